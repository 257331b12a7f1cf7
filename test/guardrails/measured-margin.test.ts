// measured-margin: a seat move or resize is judged on the least free memory measured over 10 minutes (seed 000).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { measuredMargin as g } from '../../src/guardrails/measured-margin.ts';
import type { StepInput } from '../../src/incident/types.ts';
import { allowed, context, gpusAt, Journal, plus, refusal, step, testFleet } from './helpers.ts';

const NOW = '2026-09-04T16:40:00.000Z';
const moveGen: StepInput = { action: 'seat-move', seat: 'gen', host: 'ana-ml2', gpu: 0, wantMiB: 40_134 };

/** Probes of ana-ml2 (GPU0 carries mog-sec), each `minutesAgo` with GPU0's free MiB. */
function probed(samples: { minutesAgo: number; free: number }[]): Journal {
  const j = new Journal();
  for (const s of samples) j.report(gpusAt(plus(NOW, -s.minutesAgo), 'ana-ml2', [{ index: 0, free: s.free }, { index: 1, free: 50_507 }]));
  return j;
}

test('applies to seat moves and resizes', () => {
  assert.equal(g.applies(step({ action: 'seat-move' }), {}), true);
  assert.equal(g.applies(step(), { action: 'seat-resize' }), true);
  assert.equal(g.applies(step({ action: 'seat-up' }), {}), false);
  assert.equal(g.override, true);
});

test('seed 000: the 1,979 MiB "margin" (free 42,113, wants 40,134) is refused, named in MiB', () => {
  const v = refusal(g, context({ journal: probed([{ minutesAgo: 4, free: 42_113 }, { minutesAgo: 1, free: 42_113 }]), input: moveGen, now: NOW }));
  assert.equal(v.refused, 'moving seat gen to ana-ml2 GPU0 (wants 40,134 MiB): margin 1,979 MiB (the least free measured over 2 probes in 10 minutes, 42,113 MiB, less 40,134), under the 4,096 MiB floor');
  assert.match(v.why, /declared util × total/);
  assert.match(v.why, /not a measurement/);
  assert.match(v.instead, /at most 38,017 MiB/);
});

test('seed 000: 4,466 MiB measured over the window (the least of two probes) is allowed', () => {
  allowed(g, context({ journal: probed([{ minutesAgo: 6, free: 42_106 }, { minutesAgo: 2, free: 39_024 }]), input: { ...moveGen, wantMiB: 34_558 }, now: NOW }));
});

test('the window’s minimum decides: one good reading does not hide a bad one', () => {
  const v = refusal(g, context({ journal: probed([{ minutesAgo: 6, free: 52_000 }, { minutesAgo: 2, free: 42_113 }]), input: moveGen, now: NOW }));
  assert.match(v.refused, /margin 1,979 MiB/);
});

test('a single measurement is refused: it waits for two probes within 10 minutes', () => {
  const v = refusal(g, context({ journal: probed([{ minutesAgo: 1, free: 60_000 }]), input: moveGen, now: NOW }));
  assert.match(v.refused, /on one measurement \(it would leave 19,866 MiB, one reading is not a window\)/);
  assert.equal(v.waitsFor, 'two GPU probes of ana-ml2 GPU0 within 10 minutes');
});

test('a stale measurement (11 minutes old) does not count', () => {
  const v = refusal(g, context({ journal: probed([{ minutesAgo: 11, free: 60_000 }, { minutesAgo: 1, free: 60_000 }]), input: moveGen, now: NOW }));
  assert.match(v.refused, /on one measurement/);
  const none = refusal(g, context({ journal: probed([{ minutesAgo: 12, free: 60_000 }, { minutesAgo: 11, free: 60_000 }]), input: moveGen, now: NOW }));
  assert.match(none.refused, /on no measurement of its free memory in the last 10 minutes/);
  assert.equal(none.waitsFor, 'two GPU probes of ana-ml2 GPU0 within 10 minutes');
});

test('with no probe at all, the declared budget alone is refused', () => {
  refusal(g, context({ input: moveGen, now: NOW }));
});

test('another card’s measurements do not count for this one', () => {
  const j = new Journal();
  for (const m of [4, 1]) j.report(gpusAt(plus(NOW, -m), 'ana-ml2', [{ index: 0, free: 80_000 }]));
  allowed(g, context({ journal: j, input: moveGen, now: NOW }));
  for (const where of [{ gpu: 1 }, { host: 'fv-ml1' }]) {
    const v = refusal(g, context({ journal: j, input: { ...moveGen, ...where }, now: NOW }));
    assert.match(v.refused, /on no measurement/);
  }
});

test('the floor is the fleet’s marginFloorMiB', () => {
  const journal = probed([{ minutesAgo: 4, free: 42_113 }, { minutesAgo: 1, free: 42_113 }]);
  allowed(g, context({ journal, input: moveGen, now: NOW, fleet: testFleet(1024) }));
});

test('a resize counts what the seat itself measurably holds on its card: shrinking gen is judged on what it gives back', () => {
  const j = new Journal();
  const gen = [{ gpuUuid: null, gpuIndex: 0, pid: 4242, name: 'python3 -m vllm gen', usedMiB: 40_134 }];
  for (const m of [5, 1]) j.report(gpusAt(plus(NOW, -m), 'fv-ml1', [{ index: 0, free: 1_548 }], gen));
  // Its host and card come from the inventory: 1,548 + 40,134 − 34,558 = 7,124 MiB.
  allowed(g, context({ journal: j, input: { action: 'seat-resize', seat: 'gen', wantMiB: 34_558 }, now: NOW }));
  assert.match(refusal(g, context({ journal: j, input: { action: 'seat-resize', seat: 'gen', wantMiB: 40_000 }, now: NOW })).refused, /resizing seat gen on fv-ml1 GPU0 \(wants 40,000 MiB\): margin 1,682 MiB/);
});

test('a move without its destination or its size is refused, asking for them', () => {
  const v = refusal(g, context({ input: { action: 'seat-move', seat: 'gen' }, now: NOW }));
  assert.equal(v.refused, 'moving seat gen without the host, the GPU, what it will take (wantMiB)');
});
