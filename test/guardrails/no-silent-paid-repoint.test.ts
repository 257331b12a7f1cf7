// no-silent-paid-repoint: an existing alias never points at a paid backend; paid coverage goes under a new opt-in name (seed 002).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { backendPaid, noSilentPaidRepoint as g, paidAliasName } from '../../src/guardrails/no-silent-paid-repoint.ts';
import type { StepInput } from '../../src/incident/types.ts';
import { allowed, context, fleet, refusal } from './helpers.ts';

const route = (input: Omit<StepInput, 'action'>) => context({ input: { action: 'alias-route', ...input } });

test('no second person may approve it', () => {
  assert.equal(g.override, false);
  assert.equal(g.applies(context({}).step, { action: 'alias-route' }), true);
  assert.equal(g.applies(context({}).step, { action: 'seat-move' }), false);
});

test('seed 002: repointing summarizer to a paid backend is refused, and summarizer-paid is proposed', () => {
  const v = refusal(g, route({ alias: 'summarizer', backend: 'openrouter' }));
  assert.equal(v.refused, 'repointing alias summarizer to openrouter (paid)');
  assert.match(v.instead, /new opt-in alias summarizer-paid → openrouter/);
  assert.equal(v.waitsFor, undefined, 'nothing lifts it');
});

test('creating summarizer-paid on the paid backend is allowed', () => {
  allowed(g, route({ alias: 'summarizer-paid', backend: 'openrouter' }));
});

test('the proposed name is free in the fleet: gen-paid exists, so gen-paid-2', () => {
  assert.equal(paidAliasName(fleet, 'gen'), 'gen-paid-2');
  assert.match(refusal(g, route({ alias: 'gen', backend: 'anthropic' })).instead, /new opt-in alias gen-paid-2 → anthropic/);
});

test('a paid alias named as the backend is paid too', () => {
  assert.equal(backendPaid(fleet, 'paid-sonnet'), true);
  assert.equal(refusal(g, route({ alias: 'summarizer', backend: 'paid-sonnet' })).refused, 'repointing alias summarizer to paid-sonnet (paid)');
});

test('a free backend or a local seat is allowed', () => {
  allowed(g, route({ alias: 'summarizer', backend: 'irv-bridge' }));
  allowed(g, route({ alias: 'summarizer', backend: 'gen' }));
});

test('a backend the inventory does not name is refused: it cannot be told whether it is paid', () => {
  const v = refusal(g, route({ alias: 'summarizer', backend: 'mystery-cloud' }));
  assert.match(v.refused, /mystery-cloud: not in the inventory, so it cannot be told whether it is paid/);
  assert.match(v.waitsFor ?? '', /mystery-cloud in the inventory/);
});

test('an opt-in paid alias may change paid provider: its callers chose paid by name', () => {
  allowed(g, route({ alias: 'gen-paid', backend: 'anthropic' }));
});

test('a route without the alias or the backend is refused, asking for it', () => {
  assert.equal(refusal(g, route({ backend: 'openrouter' })).waitsFor, 'the alias');
  assert.equal(refusal(g, route({ alias: 'summarizer' })).waitsFor, 'the backend');
});
