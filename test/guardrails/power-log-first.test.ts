// power-log-first: after a site went dark, no power sizing until the power log's size and sha256 are recorded (seed 002).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { powerLogFirst as g } from '../../src/guardrails/power-log-first.ts';
import { addressAt, allowed, context, DARK_AT, fvAddresses, Journal, openIncident, plus, powerLog, refusal, step } from './helpers.ts';

const sizing = step({ id: 'size-ups', action: 'power-sizing' });

function darkJournal(): Journal {
  const j = new Journal();
  j.report(fvAddresses(DARK_AT, false));
  return j;
}

test('applies to power sizing, and to nothing else', () => {
  assert.equal(g.applies(sizing, {}), true);
  assert.equal(g.applies(step(), { action: 'power-sizing' }), true);
  assert.equal(g.applies(step({ action: 'power-plan' }), {}), false);
  assert.equal(g.override, true);
});

test('seed 002: sizing the UPS after fv went dark, before the power log, is refused', () => {
  const v = refusal(g, context({ journal: darkJournal(), step: sizing, now: plus(DARK_AT, 30) }));
  assert.match(v.refused, /step size-ups/);
  assert.match(v.refused, /site fv went dark \(no address answered at 2026-09-13T06:58:40Z\)/);
  assert.equal(v.waitsFor, "the power log's size and sha256");
});

test('after the power log is recorded with its size and sha256, sizing is allowed', () => {
  const j = darkJournal();
  j.add('step.done', powerLog(), { step: 'recover-power-log', at: plus(DARK_AT, 40) });
  allowed(g, context({ journal: j, step: sizing, now: plus(DARK_AT, 45) }));
});

test('a declared hash (typed, not measured) lifts it too', () => {
  const j = darkJournal();
  j.add('evidence', powerLog({ measured: false }), { step: 'recover-power-log' });
  allowed(g, context({ journal: j, step: sizing }));
});

test('an empty power log, or one without a real sha256, does not count, and the refusal says why', () => {
  const empty = darkJournal();
  empty.add('step.done', powerLog({ size: 0 }), { step: 'recover-power-log' });
  assert.match(refusal(g, context({ journal: empty, step: sizing })).refused, /recorded at #2 does not count: it is empty$/);
  const badHash = darkJournal();
  badHash.add('step.done', powerLog({ sha256: 'not-a-hash' }), { step: 'recover-power-log' });
  assert.match(refusal(g, context({ journal: badHash, step: sizing })).refused, /its sha256 is not 64 hex digits$/);
});

test('a power log recorded in another incident does not lift it', () => {
  const j = darkJournal();
  j.add('step.done', powerLog(), { step: 'recover-power-log', incident: 2 });
  refusal(g, context({ journal: j, step: sizing }));
});

test('the pinned runbook site-dark triggers it even before any probe report', () => {
  const j = new Journal();
  j.add('runbook.pinned', { runbook: 'site-dark', sha256: 'a'.repeat(64), file: 'runbooks/site-dark.md', steps: ['size-ups'] });
  assert.match(refusal(g, context({ journal: j, step: sizing })).refused, /the incident runs runbook site-dark for site fv/);
});

test('a report kept as its canonical JSON text is read the same', () => {
  const j = new Journal();
  j.report(fvAddresses(DARK_AT, false), { asText: true });
  refusal(g, context({ journal: j, step: sizing }));
});

test('a site that answered, or a dark site other than the incident’s, does not trigger it', () => {
  const answered = new Journal();
  answered.report(fvAddresses(DARK_AT, true));
  allowed(g, context({ journal: answered, step: sizing }));
  const ana = new Journal(openIncident({ site: 'ana' }));
  ana.report(fvAddresses(DARK_AT, false));
  allowed(g, context({ journal: ana, step: sizing }));
});

test('one address answering (the BMC) means the site did not go dark', () => {
  const j = new Journal();
  j.report([addressAt(DARK_AT, 'fv', 'bmc', 'fv-ml1-bmc', true), ...fvAddresses(DARK_AT, false, { bmc: false })]);
  allowed(g, context({ journal: j, step: sizing }));
});
