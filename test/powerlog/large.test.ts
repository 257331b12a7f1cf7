// A 50 MB log (ten days of four cards every 10 s, written in nvidia-smi's format with uuid, name
// and bus id) read by the real entry point: the figures are right and the process stays small,
// because the log is streamed and only the last minutes are kept. The bound is on memory, not time.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { createWriteStream } from 'node:fs';
import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { once } from 'node:events';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { formatStamp } from '../../src/powerlog/fields.ts';
import { SEED_FLEET } from './fleet.ts';

const MAIN = fileURLToPath(new URL('../../src/cli/main.ts', import.meta.url));
const MAX_RSS = fileURLToPath(new URL('../fixtures/powerlog/max-rss.mjs', import.meta.url));
const TARGET_BYTES = 50 * 1024 * 1024;
const MAX_CHILD_RSS = 150 * 1024 * 1024;
const MAX_GROWTH = 64 * 1024 * 1024;
const PEAK_SAMPLE = 40_000;
const START = Date.UTC(2026, 8, 3, 6, 0, 0, 123);

/** Writes the log with backpressure; returns how many samples it holds. */
async function writeLog(path: string): Promise<{ samples: number; bytes: number }> {
  const out = createWriteStream(path);
  const header = 'timestamp, name, pci.bus_id, uuid, index, power.draw [W], power.limit [W]\n';
  let bytes = 0;
  let samples = 0;
  const write = async (s: string): Promise<void> => {
    bytes += Buffer.byteLength(s);
    if (!out.write(s)) await once(out, 'drain');
  };
  await write(header);
  while (bytes < TARGET_BYTES) {
    let chunk = '';
    for (let n = 0; n < 500; n++, samples++) {
      const k = samples;
      // nvidia-smi restarted once, half way: its header again.
      if (k === 30_000) chunk += header;
      for (let i = 0; i < 4; i++) {
        const at = formatStamp(START + k * 10_000 + i * 3);
        // 100.00–499.99 W everywhere but one sample, where all four draw 590.25 W.
        const w = k === PEAK_SAMPLE ? 590.25 : 100 + ((k * 7919 + i * 104_729) % 40_000) / 100;
        chunk += `${at}, NVIDIA RTX PRO 6000 Blackwell Workstation Edition, 00000000:${(i * 32 + 1).toString(16).padStart(2, '0')}:00.0, GPU-c4dd6ed1-7a2e-4b1f-9c3d-00000000000${i}, ${i}, ${w.toFixed(2)} W, 600.00 W\n`;
      }
    }
    await write(chunk);
  }
  // The cut.
  await write(`${formatStamp(START + samples * 10_000)}, NVIDIA RTX PRO 6000 Blackwell Workst`);
  out.end();
  await once(out, 'finish');
  return { samples, bytes };
}

async function runSeat(args: string[], rssFile: string): Promise<{ code: number | null; out: string; err: string; ms: number }> {
  const env: NodeJS.ProcessEnv = { ...process.env, SEAT_TEST_MAX_RSS_FILE: rssFile };
  delete env.SEAT_INVENTORY;
  const t0 = performance.now();
  const child = spawn(process.execPath, ['--import', 'tsx', '--import', MAX_RSS, MAIN, ...args], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  child.stdout.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr.on('data', (d: Buffer) => (err += d.toString()));
  const [code] = (await once(child, 'close')) as [number | null];
  return { code, out, err, ms: performance.now() - t0 };
}

test('a 50 MB log through the real entry point: exact figures, peak RSS of the whole process under 150 MB, under 64 MB over a two-line log', { timeout: 300_000 }, async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'seat-powerlog-big-'));
  try {
    const log = join(dir, 'power.log');
    const inventory = join(dir, 'fleet.yaml');
    await writeFile(inventory, SEED_FLEET);
    const { samples } = await writeLog(log);
    const size = (await stat(log)).size;
    assert.ok(size >= TARGET_BYTES, `${size} bytes`);

    // The same process on a two-line log: what tsx and the CLI cost before any reading.
    const small = join(dir, 'small.log');
    await writeFile(small, 'timestamp, index, power.draw [W]\n2026/09/13 06:51:04.100, 0, 10.00 W\n');
    const base = await runSeat(['powerlog', '--site', 'fv', small, '--inventory', inventory], join(dir, 'small.rss'));
    assert.equal(base.code, 0, base.err);
    const baseRss = Number(await readFile(join(dir, 'small.rss'), 'utf8'));

    const ran = await runSeat(['powerlog', '--site', 'fv', log, '--inventory', inventory], join(dir, 'big.rss'));
    assert.equal(ran.code, 0, ran.err);
    const rss = Number(await readFile(join(dir, 'big.rss'), 'utf8'));
    const mb = (n: number): string => `${(n / 2 ** 20).toFixed(1)} MB`;
    t.diagnostic(`log ${mb(size)}, ${samples} samples, ${samples * 4} rows; read in ${(ran.ms / 1000).toFixed(1)} s (process start included); peak RSS ${mb(rss)} (a two-line log: ${mb(baseRss)}, ${(base.ms / 1000).toFixed(1)} s)`);
    assert.ok(rss < MAX_CHILD_RSS, `peak RSS ${mb(rss)}`);
    // What reading 50 MB adds over reading two lines: the garbage collector's slack, not the log.
    assert.ok(rss - baseRss < MAX_GROWTH, `grew ${mb(rss - baseRss)}`);

    const fmt = (n: number): string => n.toLocaleString('en-US');
    assert.match(ran.out, new RegExp(`: ${fmt(samples)} samples of 4 GPUs \\(NVIDIA RTX PRO 6000 Blackwell Workstation Edition\\), every 10 s$`, 'm'));
    assert.match(ran.out, new RegExp(`^ {2}lines: ${fmt(samples * 4 + 3)} read, ${fmt(samples * 4)} rows, 2 headers, 0 skipped, 1 partial$`, 'm'));
    const peakAt = formatStamp(START + PEAK_SAMPLE * 10_000).replace(/\.\d+$/, '');
    assert.match(ran.out, new RegExp(`^ {2}summed peak 2,361 W at ${peakAt} = 262% of 900 W$`, 'm'));
    assert.match(ran.out, /^ {2}the header repeats \(2 in all\): nvidia-smi was restarted$/m);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});
