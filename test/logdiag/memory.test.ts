// A 50 MB log streamed in bounded memory: the file is never held whole (nor its lines), whatever
// its size. Read in a process of its own whose JavaScript heap is capped under the file's size (a
// reader that held the file would die of it), and its resident memory measured; the bound is
// generous, and nothing is timed.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { createWriteStream } from 'node:fs';
import { mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { once } from 'node:events';
import { promisify } from 'node:util';

const CHILD = fileURLToPath(new URL('./rss-child.ts', import.meta.url));
const REPO = fileURLToPath(new URL('../../', import.meta.url));
const SIZE = 50 * 1024 * 1024;
const MiB = 1024 * 1024;

/** An hour of a busy seat: access lines, engine stats, a fallback every 1,000 lines, one KV error at the end. */
async function writeLog(path: string): Promise<{ fallbacks: number }> {
  const out = createWriteStream(path);
  let written = 0;
  let n = 0;
  let fallbacks = 0;
  while (written < SIZE) {
    const lines: string[] = [];
    for (let i = 0; i < 2000; i++, n++) {
      const s = Math.floor(n / 100);
      const t = `${String(10 + Math.floor(s / 3600)).padStart(2, '0')}:${String(Math.floor(s / 60) % 60).padStart(2, '0')}:${String(s % 60).padStart(2, '0')}`;
      if (n % 1000 === 999) {
        lines.push(`(EngineCore_DP0 pid=88) WARNING 09-04 ${t} [autotuner.py:469] [Autotuner]: OOM detected, falling back to default tactic`);
        fallbacks++;
      } else if (n % 10 === 0) {
        lines.push(`(APIServer pid=1) INFO 09-04 ${t} [loggers.py:127] Engine 000: Avg prompt throughput: 812.4 tokens/s, Avg generation throughput: 96.1 tokens/s, Running: 3 reqs, Waiting: 0 reqs, GPU KV cache usage: 41.7%`);
      } else {
        lines.push(`(APIServer pid=1) INFO:     10.250.20.${n % 250}:${30000 + (n % 30000)} - "POST /v1/chat/completions HTTP/1.1" 200 OK`);
      }
    }
    const chunk = `${lines.join('\n')}\n`;
    written += Buffer.byteLength(chunk);
    if (!out.write(chunk)) await once(out, 'drain');
  }
  out.end("(EngineCore_DP0 pid=88) ERROR 09-04 11:59:59 [core.py:708] ValueError: To serve at least one request with the model's max seq len (131072), (3.36 GiB KV cache is needed, which is larger than the available KV cache memory (2.13 GiB). Try increasing `gpu_memory_utilization`.\n");
  await once(out, 'finish');
  return { fallbacks };
}

test('a 50 MB log is streamed in bounded memory, every fallback counted', { timeout: 300_000 }, async () => {
  const dir = await mkdtemp(join(tmpdir(), 'seat-logdiag-'));
  try {
    const log = join(dir, 'big.txt');
    const { fallbacks } = await writeLog(log);
    const size = (await stat(log)).size;
    assert.ok(size >= SIZE, `${size} bytes`);
    const { stdout } = await promisify(execFile)(process.execPath, ['--max-old-space-size=32', '--max-semi-space-size=2', '--expose-gc', '--import', 'tsx', CHILD, log], { cwd: REPO, timeout: 280_000, maxBuffer: MiB });
    const r = JSON.parse(stdout) as { baseline: number; peak: number; maxRss: number; lines: number; problems: number; kinds: [string, number][]; fallbacks: { total: number; minutes: number } };
    assert.equal(r.fallbacks.total, fallbacks);
    assert.deepEqual(r.kinds, [['flashinfer_oom_fallback', 1], ['kv_cache_insufficient', 1]], 'problems in the order first seen');
    const growth = r.peak - r.baseline;
    // Holding the file (or its lines) would take at least its 50 MB; streaming takes a few.
    assert.ok(growth < 48 * MiB, `resident memory grew ${(growth / MiB).toFixed(1)} MiB while reading ${(size / MiB).toFixed(0)} MiB`);
    assert.ok(r.maxRss < 250 * MiB, `peak resident ${(r.maxRss / MiB).toFixed(0)} MiB`);
    process.stdout.write(`# logdiag memory: ${(size / MiB).toFixed(0)} MiB, ${r.lines} lines, baseline ${(r.baseline / MiB).toFixed(0)} MiB, peak ${(r.peak / MiB).toFixed(0)} MiB (+${(growth / MiB).toFixed(1)}), maxRSS ${(r.maxRss / MiB).toFixed(0)} MiB\n`);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});
