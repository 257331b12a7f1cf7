// `seat watch gpus`: each figure is worded by its provenance. Free memory minus the declared budget is
// the declared margin, even when the verdict rests on it — seed 000 called exactly that "measured";
// a measured margin is shown only where the seat's real use on the card was measured, and where both
// exist both are shown, each named.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { sizingLines } from '../../src/watch/render.ts';
import { judgeSizing, type SizingInput } from '../../src/watch/sizing.ts';
import { freeStats } from '../../src/watch/stats.ts';
import type { Sample } from '../../src/watch/sample.ts';

function gpu0(free: number[], seatsMiB: Record<string, number>): Sample[] {
  return free.map((f, i) => ({ atMs: i * 10_000, gpus: [{ index: 0, totalMiB: 97_887, freeMiB: f, seatsMiB, reason: null }] }));
}

function lines(samples: Sample[], o: Partial<SizingInput> & Pick<SizingInput, 'util'>): string[] {
  return sizingLines(judgeSizing({ seat: 'gen', gpu: 0, floorMiB: 4096, stats: freeStats(samples).find((g) => g.index === 0), currentUtil: null, measuredElsewhere: null, cutShort: false, ...o }));
}

test('seed 000, gen at 0.41 before the move: 1,979 MiB is the declared margin, never called measured', () => {
  const out = lines(gpu0([42_113], { 'mog-sec': 55_126 }), { util: 0.41 });
  const margins = out.filter((l) => /^ {2}\w+ margin /.test(l));
  assert.deepEqual(margins, [
    '  declared margin   1,979 MiB (measured free − declared budget) — the verdict rests on this, against the 4,096 MiB floor',
    '  measured margin   not measured: gen does not run on GPU0 yet, so what it really takes there is unknown (the runtime allocates on top of the budget)',
  ]);
  assert.ok(!out.some((l) => /measured margin +[\d,]+ MiB/.test(l)), out.join('\n'));
  assert.ok(!out.some((l) => /whatever the declared margin says/.test(l)), 'a verdict resting on the declared margin does not dismiss it');
});

test('gen running on GPU0: both margins shown, each named by where it comes from', () => {
  const out = lines(gpu0([4_466], { 'mog-sec': 55_126, gen: 34_558 }), { util: 0.38, currentUtil: 0.38 });
  assert.ok(out.includes('  declared margin   1,827 MiB (measured free + gen\'s own 34,558 − declared budget)'), out.join('\n'));
  assert.ok(out.includes('  measured margin   4,466 MiB (measured free with the seat running) — the verdict rests on this, against the 4,096 MiB floor'), out.join('\n'));
});
