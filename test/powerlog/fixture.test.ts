// The fixture is nvidia-smi's own format, as `--query-gpu=timestamp,name,pci.bus_id,index,
// power.draw,power.limit --format=csv -l 10` writes it: four cards, one sample every 10 s, rows of
// a sample a few ms apart, cut by the power loss halfway through GPU 2's row of the last sample.
// The figures below were worked out from the file by hand (and by a script independent of src/).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createReadStream } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { summarisePowerLog, type PowerLogSummary } from '../../src/powerlog/index.ts';

const FIXTURE = fileURLToPath(new URL('../fixtures/powerlog/fv-ml1-power.log', import.meta.url));
const r2 = (n: number | null | undefined): number | null => (n === null || n === undefined ? null : Math.round(n * 100) / 100);

async function summary(): Promise<PowerLogSummary> {
  const result = await summarisePowerLog(createReadStream(FIXTURE, { highWaterMark: 1024 }));
  assert.ok(result.ok, result.ok ? '' : result.message);
  return result.summary;
}

test('the summed peak, its time, and the sums of the last samples', async () => {
  const s = await summary();
  assert.equal(s.drawColumn, 'power.draw');
  assert.deepEqual(s.sum.peak && { watts: r2(s.sum.peak.watts), at: s.sum.peak.at }, { watts: 1191.38, at: '2026/09/13 06:55:14.124' });
  assert.equal(s.sum.samples, 30);
  assert.equal(s.sum.incomplete, 1, 'the sample the cut split');
  assert.equal(r2(s.sum.meanW), 873.93);
  assert.deepEqual(s.sum.last && { watts: r2(s.sum.last.watts), at: s.sum.last.at }, { watts: 1080.18, at: '2026/09/13 06:55:54.125' });
  // (06:51:04.127, 06:56:04.127]: the first sample (at .123) falls just outside.
  assert.equal(s.sum.lastWindow?.samples, 29);
  assert.equal(r2(s.sum.lastWindow?.meanW), 903.07);
  assert.equal(s.sum.lastWindow?.from, '2026/09/13 06:51:14.124');
  assert.equal(s.sum.limitsW, 2400);
});

test('the end: the last whole row, the sample the cut split, and the partial line', async () => {
  const s = await summary();
  assert.equal(s.first, '2026/09/13 06:51:04.123');
  assert.equal(s.last, '2026/09/13 06:56:04.127');
  assert.equal(s.spanMs, 300_004);
  assert.deepEqual(s.lastSample, { at: '2026/09/13 06:56:04.123', gpus: 2, complete: false });
  assert.deepEqual(s.partialLast, {
    text: '2026/09/13 06:56:04.131, NVIDIA RTX PRO 6000 Blackwell Workstation Edition, 00000000:61:00.0, 2, 21',
    at: '2026/09/13 06:56:04.131',
  });
  assert.equal(s.samples, 31);
  assert.equal(s.intervalMs, 10_000);
  assert.deepEqual(s.longestGap, { ms: 10_001, after: '2026/09/13 06:51:04.123' });
  assert.deepEqual(s.lines, { read: 124, headers: 1, rows: 122, skipped: 0 });
  assert.deepEqual(s.skippedExamples, []);
  assert.equal(s.timeWentBack, 0);
});

test('per GPU: peak and when, mean, last minutes, last reading, limit, identity', async () => {
  const s = await summary();
  const rows = s.gpus.map((g) => ({
    gpu: g.gpu,
    rows: g.rows,
    peak: g.peak && [g.peak.watts, g.peak.at],
    mean: r2(g.meanW),
    window: g.lastWindow && [r2(g.lastWindow.meanW), g.lastWindow.samples],
    last: g.last && [g.last.watts, g.last.at],
    limit: g.limitW,
  }));
  assert.deepEqual(rows, [
    { gpu: '0', rows: 31, peak: [3.9, '2026/09/13 06:51:24.125'], mean: 3.85, window: [3.85, 30], last: [3.8, '2026/09/13 06:56:04.123'], limit: 600 },
    { gpu: '1', rows: 31, peak: [3.88, '2026/09/13 06:51:04.127'], mean: 3.88, window: [3.88, 30], last: [3.88, '2026/09/13 06:56:04.127'], limit: 600 },
    // The partial "2, 21" (of 212.40) is not a reading: GPU 2's last is the sample before.
    { gpu: '2', rows: 30, peak: [587.25, '2026/09/13 06:55:14.132'], mean: 345.82, window: [345.82, 30], last: [498.35, '2026/09/13 06:55:54.133'], limit: 600 },
    { gpu: '3', rows: 30, peak: [596.4, '2026/09/13 06:55:14.136'], mean: 520.38, window: [520.38, 30], last: [574.05, '2026/09/13 06:55:54.137'], limit: 600 },
  ]);
  assert.deepEqual(
    s.gpus.map((g) => [g.index, g.busId, g.name, g.notReported]),
    [
      [0, '00000000:01:00.0', 'NVIDIA RTX PRO 6000 Blackwell Workstation Edition', 0],
      [1, '00000000:21:00.0', 'NVIDIA RTX PRO 6000 Blackwell Workstation Edition', 0],
      [2, '00000000:61:00.0', 'NVIDIA RTX PRO 6000 Blackwell Workstation Edition', 0],
      [3, '00000000:81:00.0', 'NVIDIA RTX PRO 6000 Blackwell Workstation Edition', 0],
    ],
  );
});

test('the same figures whatever the chunk size (a line split across reads, one byte at a time)', async () => {
  const whole = await summary();
  const bytes = (await import('node:fs/promises')).readFile(FIXTURE);
  async function* oneByte(): AsyncGenerator<Uint8Array> {
    const b = await bytes;
    for (let i = 0; i < b.length; i++) yield b.subarray(i, i + 1);
  }
  const result = await summarisePowerLog(oneByte());
  assert.ok(result.ok);
  assert.deepEqual(result.summary, whole);
});
