// no-surge-outlets: the surge-only bank shares the UPS's one input rating; never use it to exceed it (seed 002).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { noSurgeOutlets as g } from '../../src/guardrails/no-surge-outlets.ts';
import type { StepInput } from '../../src/incident/types.ts';
import { allowed, context, Journal, openIncident, refusal, step, upsAt } from './helpers.ts';

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

test('within the rating, the surge bank is allowed; the battery bank and bypass always are', () => {
  allowed(g, plan({ bank: 'surge', loadW: 60 }));
  allowed(g, plan({ bank: 'battery', loadW: 1_240 }));
  allowed(g, plan({ bank: 'bypass', loadW: 1_240 }));
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
