// no-surge-outlets: the surge-only bank shares the UPS's one input rating; never use it to exceed it (seed 002).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { noSurgeOutlets as g } from '../../src/guardrails/no-surge-outlets.ts';
import type { StepInput } from '../../src/incident/types.ts';
import { allowed, context, Journal, openIncident, powerLog, refusal, step, upsAt } from './helpers.ts';

const BYPASS = 'bypass the UPS entirely (the surge bank shares the one input cord: 12 A at 120 V for a 1500 VA unit)';
const plan = (input: Omit<StepInput, 'action'>, journal?: Journal) => context({ input: { action: 'power-plan', ...input }, ...(journal ? { journal } : {}) });

test('applies to power plans; no second person may approve going past it', () => {
  assert.equal(g.applies(step({ action: 'power-plan' }), {}), true);
  assert.equal(g.applies(step({ action: 'power-sizing' }), {}), false);
  assert.equal(g.override, false);
});

test('seed 002: two loaded cards on the surge bank of the 900 W fvups are refused; bypass instead', () => {
  const v = refusal(g, plan({ bank: 'surge', loadW: 1_240 }));
  assert.equal(v.refused, 'putting 1,240 W on the surge-only bank of UPS fvups at site fv: over its 900 W rating');
  assert.equal(v.instead, BYPASS);
  assert.equal(v.waitsFor, undefined);
});

test('the surge bank with no load figure is refused: it cannot be shown to stay within the rating', () => {
  const v = refusal(g, plan({ bank: 'surge' }));
  assert.match(v.refused, /no load figure: it cannot be shown to stay within its 900 W rating/);
  assert.equal(v.instead, BYPASS);
});

test('within the rating, the surge and battery banks are allowed; bypass always is', () => {
  allowed(g, plan({ bank: 'surge', loadW: 60 }));
  allowed(g, plan({ bank: 'battery', loadW: 800 }));
  allowed(g, plan({ bank: 'bypass', loadW: 1_240 }));
});

test('the battery bank is held to the same rating: over it, or with no load figure, refused', () => {
  assert.match(refusal(g, plan({ bank: 'battery', loadW: 1_240 })).refused, /^putting 1,240 W on the battery bank of UPS fvups at site fv: over its 900 W rating$/);
  assert.match(refusal(g, plan({ bank: 'battery' })).refused, /battery bank of UPS fvups at site fv with no load figure: it cannot be shown to stay within its 900 W rating/);
});

/** Seed 002's recovered power log as the drill's file reads: 4 GPUs summed, peak 1,159.18 W. */
function withSeedLog(): Journal {
  const j = new Journal();
  const log = powerLog();
  j.add('step.done', { evidence: { ...(log.evidence as object), powerlog: { gpus: 4, samples: 46, peakW: 1_159.18, peakAt: '2026/09/13 06:58:18.421', lastWindowMeanW: 1_085.9, last: '2026/09/13 06:58:38.418', intervalMs: 10_000 } } }, { step: 'recover-power-log' });
  return j;
}

test('seed 002: with the power log in, the load is at least its 1,159 W GPU peak on every bank: no figure, or a smaller one, does not get under 900 W', () => {
  const fv = withSeedLog();
  const none = refusal(g, plan({ bank: 'battery' }, fv));
  assert.equal(none.refused, "putting 1,159 W (the power log's GPU peak at 2026/09/13 06:58:18.421; the chassis draws more) on the battery bank of UPS fvups at site fv: over its 900 W rating");
  assert.match(none.instead, /raw PDU \(bank bypass\)/);
  assert.match(refusal(g, plan({ bank: 'surge' }, fv)).refused, /^putting 1,159 W \(the power log's GPU peak .*\) on the surge-only bank of UPS fvups at site fv: over its 900 W rating$/);
  assert.match(refusal(g, plan({ bank: 'battery', loadW: 1_400 }, fv)).refused, /^putting 1,400 W on the battery bank .*: over its 900 W rating$/);
  allowed(g, plan({ bank: 'bypass' }, fv));
  allowed(g, plan({ bank: 'bypass', loadW: 1_400 }, fv));
});

test('a typed load lower than the measured peak is refused with both figures, on any bank', () => {
  const fv = withSeedLog();
  for (const bank of ['battery', 'surge', 'bypass'] as const) {
    const v = refusal(g, plan({ bank, loadW: 1_150 }, fv));
    assert.match(v.refused, /1,150 W typed: below the 1,159 W the power log measured \(its GPUs alone, at 2026\/09\/13 06:58:18\.421; recorded at #1\)/);
    assert.match(v.instead, /at least 1,159 W/);
  }
});

test('a UPS with no watt rating in the inventory: the one upsd reports is used, else refused', () => {
  const ana = new Journal(openIncident({ site: 'ana' }));
  assert.match(refusal(g, plan({ bank: 'surge', loadW: 500 }, ana)).refused, /anaups at site ana: its rating in W is not known/);
  ana.report([upsAt(ana.incident.openedAt, 'ana', { 'ups.status': 'OL', 'ups.load': '20', 'ups.realpower.nominal': '2700' })]);
  allowed(g, plan({ bank: 'surge', loadW: 500 }, ana));
  assert.match(refusal(g, plan({ bank: 'surge', loadW: 2_800 }, ana)).refused, /over its 2,700 W rating/);
});

test('the smaller of the inventory’s rating and the one upsd reports decides', () => {
  const fv = new Journal();
  fv.report([upsAt(fv.incident.openedAt, 'fv', { 'ups.status': 'OL', 'ups.load': '20', 'ups.realpower.nominal': '850' })]);
  assert.match(refusal(g, plan({ bank: 'surge', loadW: 880 }, fv)).refused, /over its 850 W rating/);
});
