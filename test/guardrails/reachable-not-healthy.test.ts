// reachable-not-healthy: a seat is up when its published port answers from outside, measured after the incident opened (seed 002).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { reachableNotHealthy as g } from '../../src/guardrails/reachable-not-healthy.ts';
import { ok, status, transport } from '../helpers/findings.ts';
import { aliasAt, allowed, context, Journal, plus, refusal, seatAt, step } from './helpers.ts';

const up = { action: 'seat-up' as const, seat: 'flash-next' };

test('applies to declaring a seat up', () => {
  assert.equal(g.applies(step({ action: 'seat-up' }), {}), true);
  assert.equal(g.applies(step(), { action: 'seat-move' }), false);
  assert.equal(g.override, true);
});

test('seed 002: a passing healthcheck, and an answer from before the incident, are not enough', () => {
  const j = new Journal();
  j.report([seatAt(plus(j.incident.openedAt, -20), 'flash-next', ok())]);
  j.add('evidence', { evidence: { kind: 'yesno', of: 'healthcheck', answer: true } }, { step: 'seat-up' });
  const v = refusal(g, context({ journal: j, input: up, now: plus(j.incident.openedAt, 30) }));
  assert.equal(v.refused, 'declaring seat flash-next up: no probe since the incident opened (2026-09-13T06:59:30.000Z) reached it from outside or through gen-large');
  assert.match(v.why, /healthcheck/);
  assert.equal(v.waitsFor, 'a probe that reaches flash-next from outside or through gen-large');
});

test('an alias routed to the seat answering through the gateway after the incident opened is enough', () => {
  const j = new Journal();
  j.report([aliasAt(plus(j.incident.openedAt, 25), 'gen-large', 'ok')]);
  allowed(g, context({ journal: j, input: up, now: plus(j.incident.openedAt, 30) }));
});

test('the seat’s own port answering from outside is enough', () => {
  const j = new Journal();
  j.report([seatAt(plus(j.incident.openedAt, 25), 'flash-next', ok())]);
  allowed(g, context({ journal: j, input: up, now: plus(j.incident.openedAt, 30) }));
});

test('an alias routed elsewhere says nothing of this seat', () => {
  const j = new Journal();
  j.report([aliasAt(plus(j.incident.openedAt, 25), 'gen', 'ok')]);
  refusal(g, context({ journal: j, input: up }));
});

test('an alias that failed, or a seat whose port refused, is not up', () => {
  const j = new Journal();
  j.report([aliasAt(plus(j.incident.openedAt, 25), 'gen-large', status(500), transport('refused')), seatAt(plus(j.incident.openedAt, 25), 'flash-next', transport('refused'))]);
  refusal(g, context({ journal: j, input: up }));
});

test('a later failure from outside wins over an earlier answer', () => {
  const j = new Journal();
  j.report([aliasAt(plus(j.incident.openedAt, 10), 'gen-large', 'ok')]);
  j.report([seatAt(plus(j.incident.openedAt, 20), 'flash-next', transport('refused'))]);
  const v = refusal(g, context({ journal: j, input: up }));
  assert.equal(v.refused, 'declaring seat flash-next up: it answered at 2026-09-13T07:09:30Z but its port failed from outside at 2026-09-13T07:19:30Z');
});

test('a seat-up without the seat is refused, asking for it', () => {
  assert.equal(refusal(g, context({ input: { action: 'seat-up' } })).waitsFor, 'the seat');
});
