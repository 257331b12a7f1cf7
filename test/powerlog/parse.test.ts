// The shapes a power log takes besides the plain one: values not reported, nvidia-smi restarted
// mid-file, columns in another order or without units, rows of a sample straddling a second,
// lines that are not rows, and inputs that are not power logs at all.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { summarisePowerLog, summarisePowerLogLines, type PowerLogResult, type PowerLogSummary } from '../../src/powerlog/index.ts';
import { splitLines } from '../../src/powerlog/lines.ts';

const HEADER = 'timestamp, index, power.draw [W], power.limit [W]';
const r2 = (n: number | null | undefined): number | null => (n === null || n === undefined ? null : Math.round(n * 100) / 100);

async function ok(text: string): Promise<PowerLogSummary> {
  const result = await summarisePowerLog([text]);
  assert.ok(result.ok, result.ok ? '' : result.message);
  return result.summary;
}

async function refused(text: string): Promise<Extract<PowerLogResult, { ok: false }>> {
  const result = await summarisePowerLog([text]);
  assert.ok(!result.ok, 'expected a refusal');
  return result;
}

test('[N/A], [Not Supported], [Unknown Error]: counted per GPU, left out of its figures and of that sample’s sum', async () => {
  const s = await ok(
    [
      HEADER,
      '2026/09/13 06:51:04.100, 0, 100.00 W, 600.00 W',
      '2026/09/13 06:51:04.104, 1, [N/A], [N/A]',
      '2026/09/13 06:51:14.100, 0, 110.00 W, 600.00 W',
      '2026/09/13 06:51:14.104, 1, 50.00 W, 300.00 W',
      '2026/09/13 06:51:24.100, 0, [Not Supported], 600.00 W',
      '2026/09/13 06:51:24.104, 1, 60.00 W, 300.00 W',
      '2026/09/13 06:51:34.100, 0, [Unknown Error], 600.00 W',
      '2026/09/13 06:51:34.104, 1, 70.00 W, 300.00 W',
      '2026/09/13 06:51:44.100, 0, 120.00 W, 600.00 W',
      '2026/09/13 06:51:44.104, 1, 65.00 W, 300.00 W',
      '',
    ].join('\n'),
  );
  assert.deepEqual(
    s.gpus.map((g) => [g.gpu, g.rows, g.readings, g.notReported, g.peak?.watts, r2(g.meanW), g.limitW]),
    [
      ['0', 5, 3, 2, 120, 110, 600],
      ['1', 5, 4, 1, 70, 61.25, 300],
    ],
  );
  // 06:51:04 counts only GPU 0 (GPU 1 had given no number yet); 06:51:24 and :34 lack GPU 0.
  assert.equal(s.samples, 5);
  assert.equal(s.sum.samples, 3);
  assert.equal(s.sum.incomplete, 2);
  assert.deepEqual(s.sum.peak, { watts: 185, at: '2026/09/13 06:51:44.100' });
  assert.equal(s.lines.skipped, 0);
});

test('a header repeated mid-file (nvidia-smi restarted, another column set): both stretches read, mapped by their own header', async () => {
  const s = await ok(
    [
      HEADER,
      '2026/09/13 06:51:04.100, 0, 100.00 W, 600.00 W',
      '2026/09/13 06:51:04.104, 1, 200.00 W, 600.00 W',
      '2026/09/13 06:51:14.100, 0, 101.00 W, 600.00 W',
      '2026/09/13 06:51:14.104, 1, 201.00 W, 600.00 W',
      'timestamp, name, power.draw [W], index',
      '2026/09/13 06:53:00.000, NVIDIA H200, 300.00 W, 0',
      '2026/09/13 06:53:00.004, NVIDIA H200, 400.00 W, 1',
      '2026/09/13 06:53:10.000, NVIDIA H200, 310.00 W, 0',
      '2026/09/13 06:53:10.004, NVIDIA H200, 390.00 W, 1',
      '',
    ].join('\n'),
  );
  assert.equal(s.lines.headers, 2);
  assert.equal(s.lines.skipped, 0);
  assert.equal(s.samples, 4);
  assert.deepEqual(s.sum.peak, { watts: 700, at: '2026/09/13 06:53:00.000' });
  assert.deepEqual(s.sum.last, { watts: 700, at: '2026/09/13 06:53:10.000' });
  assert.deepEqual(s.longestGap, { ms: 105_900, after: '2026/09/13 06:51:14.100' });
  assert.deepEqual(s.gpus.map((g) => [g.gpu, g.name, g.rows, g.peak?.watts]), [
    ['0', 'NVIDIA H200', 4, 310],
    ['1', 'NVIDIA H200', 4, 400],
  ]);
});

test('columns in another order, with extra columns, written with nounits', async () => {
  const s = await ok(
    [
      'power.limit [W], temperature.gpu, power.draw [W], uuid, index, timestamp',
      '600.00, 41, 312.40, GPU-c4dd6ed1-0000-0000-0000-000000000000, 2, 2026/09/13 06:51:04.100',
      '600.00, 44, 287.10, GPU-c4dd6ed1-0000-0000-0000-000000000001, 3, 2026/09/13 06:51:04.103',
      '',
    ].join('\n'),
  );
  assert.deepEqual(s.gpus.map((g) => [g.gpu, g.uuid, g.peak?.watts, g.limitW]), [
    ['2', 'GPU-c4dd6ed1-0000-0000-0000-000000000000', 312.4, 600],
    ['3', 'GPU-c4dd6ed1-0000-0000-0000-000000000001', 287.1, 600],
  ]);
  assert.equal(r2(s.sum.peak?.watts), 599.5);
});

test('no index column: the uuid names the GPU; none at all: its place in the sample does', async () => {
  const byUuid = await ok(['timestamp, uuid, power.draw [W]', '2026/09/13 06:51:04.100, GPU-a, 10.00 W', '2026/09/13 06:51:04.101, GPU-b, 20.00 W', ''].join('\n'));
  assert.deepEqual(byUuid.gpus.map((g) => [g.gpu, g.index]), [['GPU-a', null], ['GPU-b', null]]);
  const byPlace = await ok(['timestamp, power.draw [W]', '2026/09/13 06:51:04.100, 10.00 W', '2026/09/13 06:51:04.101, 20.00 W', '2026/09/13 06:51:14.100, 11.00 W', '2026/09/13 06:51:14.101, 21.00 W', ''].join('\n'));
  assert.deepEqual(byPlace.gpus.map((g) => [g.gpu, g.rows]), [['#0', 2], ['#1', 2]]);
  assert.deepEqual(byPlace.sum.peak, { watts: 32, at: '2026/09/13 06:51:14.100' });
});

test('rows of one sample a few ms apart across a second (and a day) boundary are one sample', async () => {
  const s = await ok(
    [
      HEADER,
      '2026/09/13 23:59:59.998, 0, 100.00 W, 600.00 W',
      '2026/09/14 00:00:00.003, 1, 100.00 W, 600.00 W',
      '2026/09/14 00:00:09.998, 0, 150.00 W, 600.00 W',
      '2026/09/14 00:00:10.004, 1, 150.00 W, 600.00 W',
      '',
    ].join('\n'),
  );
  assert.equal(s.samples, 2);
  assert.equal(s.sum.samples, 2);
  assert.deepEqual(s.sum.peak, { watts: 300, at: '2026/09/14 00:00:09.998' });
  assert.equal(s.intervalMs, 10_000);
});

test('the last-minutes mean is over the 5 minutes before the log ends, not the whole log', async () => {
  const lines = [HEADER];
  // 10 minutes at 1000 W, then 5 minutes at 200 W, one sample each 10 s (one GPU).
  for (let k = 0; k < 90; k++) {
    const t = new Date(Date.UTC(2026, 8, 13, 6, 0, 0) + k * 10_000).toISOString().replace('T', ' ').replace('Z', '').replaceAll('-', '/');
    lines.push(`${t}, 0, ${k < 60 ? '1000.00' : '200.00'} W, 1000.00 W`);
  }
  const s = await ok(`${lines.join('\n')}\n`);
  assert.equal(s.sum.lastWindow?.samples, 30);
  assert.equal(s.sum.lastWindow?.meanW, 200);
  assert.equal(s.sum.meanW, (60 * 1000 + 30 * 200) / 90);
  assert.equal(s.gpus[0]?.lastWindow?.meanW, 200);
});

test('lines that are not rows are skipped, counted and shown; the time going back restarts the window', async () => {
  const s = await ok(
    [
      HEADER,
      '2026/09/13 06:51:04.100, 0, 500.00 W, 600.00 W',
      'NVIDIA-SMI has failed because it couldn\'t communicate with the NVIDIA driver.',
      '2026/13/13 06:51:14.100, 0, 500.00 W, 600.00 W',
      '2026/09/13 06:51:14.100, x, 500.00 W, 600.00 W',
      '2026/09/13 06:51:14.100, 0, lots, 600.00 W',
      '2026/09/13 06:40:00.000, 0, 100.00 W, 600.00 W',
      '',
    ].join('\n'),
  );
  assert.equal(s.lines.skipped, 4);
  assert.deepEqual(s.skippedExamples.map((x) => [x.line, x.why]), [
    [3, '1 fields where the header has 4'],
    [4, 'timestamp not like 2026/09/13 06:56:04.123'],
    [5, 'index not a number'],
  ]);
  assert.equal(s.timeWentBack, 1);
  assert.deepEqual(s.sum.lastWindow, { meanW: 100, samples: 1, from: '2026/09/13 06:40:00.000', to: '2026/09/13 06:40:00.000' });
  assert.deepEqual(s.sum.peak, { watts: 500, at: '2026/09/13 06:51:04.100' });
});

test('not a power log: no header with a power.draw column (a noheader log, a YAML file, binary) is refused early', async () => {
  const noheader = await refused('2026/09/13 06:51:04.100, 0, 500.00 W, 600.00 W\n');
  assert.equal(noheader.code, 'not_power_log');
  assert.match(noheader.message, /^not a power log: no header line with a power\.draw column/);
  const memory = await refused('index, memory.used [MiB]\n0, 1000 MiB\n');
  assert.equal(memory.code, 'not_power_log');
  const tsLess = await refused('index, power.draw [W]\n0, 100.00 W\n');
  assert.equal(tsLess.code, 'no_timestamp');
  assert.equal((await refused('')).code, 'not_power_log');
  // A megabyte with no newline is one overlong line, cut at the cap, not a megabyte held.
  const binary = await summarisePowerLog([Buffer.alloc(1_000_000, 0xff)]);
  assert.ok(!binary.ok && binary.code === 'not_power_log');
  // Reading stops after the first lines: an endless input without a header ends.
  let pulled = 0;
  async function* endless(): AsyncGenerator<string> {
    for (;;) {
      pulled++;
      yield 'fleet: seeds-fleet\n';
    }
  }
  assert.equal((await summarisePowerLog(endless())).ok, false);
  assert.ok(pulled <= 60, `read ${pulled} lines`);
});

test('lines given already split: the last one is the cut only when said so', async () => {
  const lines = [HEADER, '2026/09/13 06:51:04.100, 0, 500.00 W, 600.00 W', '2026/09/13 06:51:14.100, 0, 51'];
  const cut = await summarisePowerLogLines(lines, { endsMidLine: true });
  assert.ok(cut.ok);
  assert.deepEqual(cut.summary.partialLast, { text: '2026/09/13 06:51:14.100, 0, 51', at: '2026/09/13 06:51:14.100' });
  assert.equal(cut.summary.gpus[0]?.rows, 1);
  const whole = await summarisePowerLogLines(lines);
  assert.ok(whole.ok);
  assert.equal(whole.summary.partialLast, null);
  assert.equal(whole.summary.gpus[0]?.rows, 1, '"51" has no unit and 4 fields are wanted: skipped');
  assert.equal(whole.summary.lines.skipped, 1);
});

test('splitLines: CRLF, a UTF-8 character split across chunks, an overlong line cut and the rest dropped, the tail marked partial', async () => {
  const bytes = Buffer.from(`a\r\nGPU é\n${'x'.repeat(50)}\nb\ntail`);
  const at = bytes.indexOf(0xc3) + 1; // inside "é"
  const out = [];
  for await (const l of splitLines([bytes.subarray(0, at), bytes.subarray(at)], 10)) out.push(l);
  assert.deepEqual(out, [
    { text: 'a', partial: false },
    { text: 'GPU é', partial: false },
    { text: 'x'.repeat(11), partial: false },
    { text: 'b', partial: false },
    { text: 'tail', partial: true },
  ]);
});
