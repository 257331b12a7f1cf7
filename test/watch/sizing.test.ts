// Seed 000's sizing error, as numbers the watch must judge: the declared budget is shown, the verdict
// rests on measured free memory, and a margin under the floor is refused however it was derived.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { judgeSizing, type SizingInput } from '../../src/watch/sizing.ts';
import { freeStats, median } from '../../src/watch/stats.ts';
import type { Sample } from '../../src/watch/sample.ts';

const TOTAL = 97_887;

/** GPU0 of ana-ml2 over a window: one sample per free figure, with the seats measured on it. */
function gpu0(free: number[], seatsMiB: Record<string, number> = { 'mog-sec': 55_126 }): Sample[] {
  return free.map((f, i) => ({ atMs: i * 10_000, gpus: [{ index: 0, totalMiB: TOTAL, freeMiB: f, seatsMiB, reason: null }] }));
}

function sizing(samples: Sample[], o: Partial<SizingInput> & Pick<SizingInput, 'util'>) {
  return judgeSizing({ seat: 'gen', gpu: 0, floorMiB: 4096, stats: freeStats(samples).find((g) => g.index === 0), currentUtil: null, measuredElsewhere: null, cutShort: false, ...o });
}

test('seed 000, util 0.43: wants 42,091 MiB against 42,113 free — a 22 MiB margin is refused', () => {
  const z = sizing(gpu0(Array(37).fill(42_113)), { util: 0.43 });
  assert.equal(z.declaredMiB, 42_091);
  assert.equal(z.minFreeMiB, 42_113);
  assert.equal(z.declaredMarginMiB, 22);
  assert.equal(z.measuredMarginMiB, 22);
  assert.equal(z.decision, 'refuse');
  assert.equal(z.restsOn, 'free minus the declared budget');
});

test('seed 000, util 0.41: wants 40,134 MiB, declared margin 1,979 — refused, not "safe"', () => {
  const z = sizing(gpu0(Array(37).fill(42_113)), { util: 0.41 });
  assert.equal(z.declaredMiB, 40_134);
  assert.equal(z.declaredMarginMiB, 1_979);
  assert.equal(z.decision, 'refuse');
  assert.match(z.why, /under the floor: not safe/);
});

test('seed 000, util 0.38 with gen running on GPU0: 4,466–7,548 MiB free measured over 6 min — allowed on the measurement', () => {
  const free = Array.from({ length: 37 }, (_, i) => (i === 17 ? 4_466 : i === 3 ? 7_548 : 5_000 + ((i * 137) % 2_000)));
  const z = sizing(gpu0(free, { 'mog-sec': 55_126, gen: 34_558 }), { util: 0.38, currentUtil: 0.38 });
  const stats = freeStats(gpu0(free))[0]!;
  assert.deepEqual([stats.minFreeMiB, stats.maxFreeMiB, stats.count, stats.missing], [4_466, 7_548, 37, 0]);
  assert.equal(z.declaredMiB, 37_197);
  assert.equal(z.seatMeasuredMiB, 34_558);
  assert.equal(z.declaredMarginMiB, 4_466 + 34_558 - 37_197, 'the declared arithmetic says 1,827: under the floor');
  assert.equal(z.measuredMarginMiB, 4_466, 'the free memory with the seat running is what is left');
  assert.equal(z.restsOn, 'free with the seat running');
  assert.equal(z.decision, 'allow');
});

test('the same watch cut short by Ctrl-C decides nothing: a longer window can only see less', () => {
  const z = sizing(gpu0([7_548, 6_000], { gen: 34_558 }), { util: 0.38, currentUtil: 0.38, cutShort: true });
  assert.equal(z.decision, 'inconclusive');
  // A refusal holds on part of the window: the minimum can only go down.
  assert.equal(sizing(gpu0([42_113]), { util: 0.41, cutShort: true }).decision, 'refuse');
});

test('util 0.38 before the move: 4,916 MiB against the declared budget — allowed for now, with the caveat', () => {
  const z = sizing(gpu0(Array(37).fill(42_113)), { util: 0.38 });
  assert.equal(z.measuredMarginMiB, 42_113 - 37_197);
  assert.equal(z.decision, 'allow');
  assert.match(z.why, /runtime takes more than the budget; watch again once the seat runs there/);
});

test('a seat running there at another util: the measured free moves by the budget change, and says so', () => {
  // gen at 0.41 left 1,548 MiB free; shrinking to 0.38 gives back 40,134 − 37,197 = 2,937.
  const z = sizing(gpu0([1_548, 1_800], { gen: 40_565 }), { util: 0.38, currentUtil: 0.41 });
  assert.equal(z.measuredMarginMiB, 1_548 + 2_937);
  assert.equal(z.restsOn, 'free with the seat running, adjusted by the budget change');
  assert.equal(z.decision, 'allow');
});

test('a seat that takes more than its budget elsewhere on the host is judged by what it takes', () => {
  const z = sizing(gpu0(Array(3).fill(42_113)), { util: 0.38, measuredElsewhere: { gpu: 1, mib: 39_000 } });
  assert.equal(z.measuredMarginMiB, 42_113 - 39_000);
  assert.equal(z.restsOn, 'free minus its measured use elsewhere');
  assert.equal(z.decision, 'refuse');
});

test('nothing measured on the card: not decided, never allowed', () => {
  const none: Sample[] = [{ atMs: 0, gpus: [{ index: 0, totalMiB: TOTAL, freeMiB: null, seatsMiB: {}, reason: 'not_reported' }] }];
  assert.equal(sizing(none, { util: 0.38 }).decision, 'inconclusive');
  assert.equal(judgeSizing({ seat: 'gen', gpu: 3, util: 0.38, floorMiB: 4096, stats: undefined, currentUtil: null, measuredElsewhere: null, cutShort: false }).why, 'the host reported no GPU3');
  assert.deepEqual(freeStats(none)[0], { index: 0, totalMiB: TOTAL, count: 0, missing: 1, minFreeMiB: null, medianFreeMiB: null, maxFreeMiB: null, seatsMaxMiB: {} });
});

test('median of odd and even counts', () => {
  assert.equal(median([1, 2, 9]), 2);
  assert.equal(median([1, 2, 3, 9]), 3);
  assert.equal(median([]), null);
});
