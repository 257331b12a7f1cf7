// Power logs a real NVIDIA H200 wrote (driver 580.159.04) while a PyTorch process ran bf16 matrix
// products for 12 s: idle at 78.6 W, up to the 700 W limit and a little over it, back down. One
// log every 500 ms (-lms 500), one every second with memory columns beside (-l 1). The figures were
// worked out from the files with awk, not with src/. Also: `seat powerlog` with no inventory.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { createReadStream } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { summarisePowerLog, type PowerLogSummary } from '../../src/powerlog/index.ts';

const MAIN = fileURLToPath(new URL('../../src/cli/main.ts', import.meta.url));
const fixture = (name: string): string => fileURLToPath(new URL(`../fixtures/powerlog/${name}`, import.meta.url));
const r2 = (n: number | null | undefined): number | null => (n === null || n === undefined ? null : Math.round(n * 100) / 100);

async function summary(name: string): Promise<PowerLogSummary> {
  const result = await summarisePowerLog(createReadStream(fixture(name), { highWaterMark: 512 }));
  assert.ok(result.ok, result.ok ? '' : result.message);
  return result.summary;
}

test('every 500 ms: the peak over the 700 W limit, when, the mean, and the idle last reading', async () => {
  const s = await summary('h200-load-500ms.log');
  assert.deepEqual(s.lines, { read: 57, headers: 1, rows: 56, skipped: 0 });
  assert.equal(s.samples, 56);
  assert.equal(s.intervalMs, 500);
  assert.deepEqual([s.first, s.last], ['2026/12/04 17:08:59.837', '2026/12/04 17:09:27.495']);
  const [gpu] = s.gpus;
  assert.equal(s.gpus.length, 1);
  assert.deepEqual(gpu?.peak, { watts: 705.24, at: '2026/12/04 17:09:11.912' });
  assert.equal(r2(gpu?.meanW), 345.67);
  assert.equal(gpu?.limitW, 700);
  assert.deepEqual(s.sum.last && [r2(s.sum.last.watts), s.sum.last.at], [79.16, '2026/12/04 17:09:27.495']);
});

test('every second, memory columns beside: power still found by its name', async () => {
  const s = await summary('h200-load-1s-memory.log');
  assert.equal(s.drawColumn, 'power.draw');
  assert.deepEqual(s.lines, { read: 30, headers: 1, rows: 29, skipped: 0 });
  assert.equal(s.intervalMs, 1000);
  assert.deepEqual(s.gpus[0]?.peak, { watts: 694.24, at: '2026/12/04 17:09:21.861' });
  assert.equal(r2(s.gpus[0]?.meanW), 336.02);
});

function seat(args: string[], env: NodeJS.ProcessEnv = {}): Promise<{ code: number | null; out: string; err: string }> {
  const clean: NodeJS.ProcessEnv = { ...process.env, ...env };
  if (!('SEAT_INVENTORY' in env)) delete clean.SEAT_INVENTORY;
  const child = spawn(process.execPath, ['--import', 'tsx', MAIN, ...args], { env: clean, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  child.stdout.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr.on('data', (d: Buffer) => (err += d.toString()));
  return new Promise((resolve) => child.on('close', (code) => resolve({ code, out, err })));
}

test('seat powerlog FILE with no inventory reads the log and says it was put beside no UPS; --site still needs one', { timeout: 120_000 }, async () => {
  const ran = await seat(['powerlog', fixture('h200-load-500ms.log')]);
  assert.equal(ran.code, 0, ran.err);
  assert.equal(ran.err, '');
  assert.match(ran.out, /56 samples of 1 GPU \(NVIDIA H200\), every 0\.5 s/);
  assert.match(ran.out, /^ {2}0 +705\.2 +2026\/12\/04 17:09:11 /m);
  assert.match(ran.out, /^UPS: none to compare with \(no inventory given: pass --inventory FILE or set SEAT_INVENTORY to compare with a site's UPS\)$/m);

  const site = await seat(['powerlog', fixture('h200-load-500ms.log'), '--site', 'fv']);
  assert.equal(site.code, 2);
  assert.equal(site.out, '');
  assert.match(site.err, /^seat: no inventory: pass --inventory FILE or set SEAT_INVENTORY/);
});
