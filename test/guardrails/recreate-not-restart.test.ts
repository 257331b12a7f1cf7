// recreate-not-restart: after an address or label change, recreate containers; labels attach only at creation (seed 002).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { recreateNotRestart as g } from '../../src/guardrails/recreate-not-restart.ts';
import { allowed, context, refusal, step } from './helpers.ts';

const change = step({ id: 'relabel', action: 'container-change' });

test('applies to container changes', () => {
  assert.equal(g.applies(change, {}), true);
  assert.equal(g.applies(step(), { action: 'container-change' }), true);
  assert.equal(g.applies(step({ action: 'env-edit' }), {}), false);
  assert.equal(g.override, true);
});

test('seed 002: a restart is refused; docker compose up -d recreates', () => {
  const v = refusal(g, context({ step: change, input: { method: 'restart' } }));
  assert.equal(v.refused, 'applying the change of step relabel by restarting the containers');
  assert.match(v.why, /attach only at creation/);
  assert.match(v.instead, /docker compose up -d <svc>/);
});

test('a recreate is allowed', () => {
  allowed(g, context({ step: change, input: { method: 'recreate' } }));
});

test('no method is refused, asking which', () => {
  const v = refusal(g, context({ step: change, input: {} }));
  assert.match(v.refused, /without saying how: restart or recreate/);
  assert.equal(v.waitsFor, 'the method: recreate');
});
