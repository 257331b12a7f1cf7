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

test('seed 002: once the power log is read, sizing from a load lower than its 1,159 W GPU peak is refused with both figures; at or above it, allowed', () => {
  const j = darkJournal();
  const log = powerLog();
  j.add('step.done', { evidence: { ...(log.evidence as object), powerlog: { gpus: 4, samples: 46, peakW: 1_159.18, peakAt: '2026/09/13 06:58:18.421', lastWindowMeanW: 1_085.9, last: '2026/09/13 06:58:38.418', intervalMs: 10_000 } } }, { step: 'recover-power-log', at: plus(DARK_AT, 40) });
  const typed = (loadW: number) => context({ journal: j, step: step({ id: 'ups-rating', action: 'power-sizing' }), input: { action: 'power-sizing', loadW }, now: plus(DARK_AT, 45) });
  const v = refusal(g, typed(1_150));
  assert.equal(v.refused, 'step ups-rating with 1,150 W typed: below the 1,159 W the power log measured (its GPUs alone, at 2026/09/13 06:58:18.421; recorded at #2)');
  assert.equal(v.waitsFor, 'a load of at least 1,159 W');
  allowed(g, typed(1_159));
  allowed(g, typed(1_400));
  // No figure typed: the log's is the one sized from.
  allowed(g, context({ journal: j, step: sizing, now: plus(DARK_AT, 45) }));
});
