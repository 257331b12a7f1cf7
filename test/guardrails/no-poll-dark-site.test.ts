// no-poll-dark-site: a site dark at every address, BMC included, is not re-probed within 15 minutes (seed 002).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { noPollDarkSite as g } from '../../src/guardrails/no-poll-dark-site.ts';
import { aliasAt, allowed, context, DARK_AT, fleet, fvAddresses, Journal, plus, refusal, step } from './helpers.ts';
import { transport } from '../helpers/findings.ts';
import { stampVantage } from '../../src/probes/vantage.ts';
import { darkHold } from '../../src/guardrails/no-poll-dark-site.ts';

const probe = step({ id: 'reprobe', kind: 'probe', action: 'probe' });

function dark(): Journal {
  const j = new Journal();
  j.report(fvAddresses(DARK_AT, false));
  return j;
}

test('applies to a probe, by its action or its kind', () => {
  assert.equal(g.applies(step({ action: 'probe' }), {}), true);
  assert.equal(g.applies(step({ kind: 'probe' }), {}), true);
  assert.equal(g.applies(step(), { action: 'probe' }), true);
  assert.equal(g.applies(step({ action: 'seat-up' }), {}), false);
  assert.equal(g.override, true);
});

test('a probe of the aliases only goes through the gateway, not to the dark site: site-dark can measure its blast radius', () => {
  assert.equal(g.applies(step({ kind: 'probe', probe: { only: ['aliases'] } }), {}), false);
  assert.equal(g.applies(step({ kind: 'probe', probe: { only: ['aliases', 'power'] } }), {}), true);
  assert.equal(g.applies(step({ kind: 'probe', probe: {} }), {}), true);
});

test('seed 002: re-probing fv 6 minutes after every address went dark is refused', () => {
  const v = refusal(g, context({ journal: dark(), step: probe, now: plus(DARK_AT, 6) }));
  assert.equal(v.refused, 'probing site fv again 6 min after every address of it (BMC included) went unanswered at 2026-09-13T06:58:40Z');
  assert.equal(v.waitsFor, 'a person at the site says the UPS is reset, or 15 minutes (2026-09-13T07:13:40Z)');
});

test('15 minutes after the dark report, a probe is allowed', () => {
  allowed(g, context({ journal: dark(), step: probe, now: plus(DARK_AT, 15) }));
  allowed(g, context({ journal: dark(), step: probe, now: plus(DARK_AT, 40) }));
  refusal(g, context({ journal: dark(), step: probe, now: plus(DARK_AT, 14.9) }));
});

test('a person at the site saying the UPS is reset lifts it at once', () => {
  const j = dark();
  j.add('evidence', { evidence: { kind: 'yesno', of: 'ups-reset', answer: true } }, { step: 'reset-ups', at: plus(DARK_AT, 3) });
  allowed(g, context({ journal: j, step: probe, now: plus(DARK_AT, 4) }));
  const no = dark();
  no.add('evidence', { evidence: { kind: 'yesno', of: 'ups-reset', answer: false } }, { step: 'reset-ups', at: plus(DARK_AT, 3) });
  refusal(g, context({ journal: no, step: probe, now: plus(DARK_AT, 4) }));
});

test('an aliases-only report after it neither clears nor restarts the quiet time', () => {
  const j = dark();
  j.report([aliasAt(plus(DARK_AT, 2), 'gen', transport('timeout'), transport('timeout'))]);
  assert.match(refusal(g, context({ journal: j, step: probe, now: plus(DARK_AT, 6) })).waitsFor ?? '', /\(2026-09-13T07:13:40Z\)$/);
});

test('the last report decides: fv answering again allows a probe', () => {
  const j = dark();
  j.report(fvAddresses(plus(DARK_AT, 5), true));
  allowed(g, context({ journal: j, step: probe, now: plus(DARK_AT, 6) }));
});

test('a site whose BMC was not measured is not proven dark', () => {
  const j = new Journal();
  j.report(fvAddresses(DARK_AT, false, { bmc: false }));
  allowed(g, context({ journal: j, step: probe, now: plus(DARK_AT, 6) }));
});

test('probing another site than the dark one is allowed', () => {
  allowed(g, context({ journal: dark(), step: probe, input: { action: 'probe', site: 'ana' }, now: plus(DARK_AT, 6) }));
  refusal(g, context({ journal: dark(), step: probe, input: { action: 'probe', site: 'fv' }, now: plus(DARK_AT, 6) }));
});

/** fv's addresses as `vantage` measured them: dark to it, or answering. */
const fvFrom = (vantage: string, answered: boolean, at = DARK_AT) => fvAddresses(at, answered).map((f) => stampVantage(f, vantage));

test('per vantage: fv dark from hq and irv is held from every vantage, and the refusal names where it was measured from', () => {
  const j = new Journal();
  j.report([...fvFrom('hq', false), ...fvFrom('irv', false)]);
  const v = refusal(g, context({ journal: j, step: probe, now: plus(DARK_AT, 6) }));
  assert.equal(v.refused, 'probing site fv again, from any vantage, 6 min after every address of it (BMC included) went unanswered from hq and irv at 2026-09-13T06:58:40Z');
  assert.deepEqual(darkHold(j.events, 'fv', fleet, new Date(plus(DARK_AT, 6)))?.from, ['hq', 'irv']);
});

test('per vantage: a report where irv reached fv while hq did not holds nothing: that is hq’s own path, not a dark site', () => {
  const j = new Journal();
  j.report([...fvFrom('hq', false), ...fvFrom('irv', true)]);
  allowed(g, context({ journal: j, step: probe, now: plus(DARK_AT, 6) }));
  // And a later report dark from both holds it again.
  j.report([...fvFrom('hq', false, plus(DARK_AT, 2)), ...fvFrom('irv', false, plus(DARK_AT, 2))]);
  refusal(g, context({ journal: j, step: probe, now: plus(DARK_AT, 6) }));
});
