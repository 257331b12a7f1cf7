// The set of guardrails and checkStep: the ones a step names plus every one whose action it is;
// and across every scenario, no verdict moves when every finding's display text is reworded.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdir } from 'node:fs/promises';
import { checkStep, GUARDRAILS } from '../../src/guardrails/index.ts';
import type { GuardContext } from '../../src/incident/types.ts';
import { ok } from '../helpers/findings.ts';
import { aliasAt, context, DARK_AT, fvAddresses, gpusAt, Journal, plus, powerLog, rewordedContext, seatAt, step } from './helpers.ts';

test('nine guardrails, one a file, each with its one-line lesson; only two have no override', async () => {
  // index.ts is the registry; facts.ts (what they read) and dark-site-probe.ts (no-poll-dark-site's hold, read by every way of probing) serve them.
  const files = (await readdir(new URL('../../src/guardrails/', import.meta.url))).filter((f) => !['index.ts', 'facts.ts', 'dark-site-probe.ts'].includes(f)).map((f) => f.replace(/\.ts$/, ''));
  assert.deepEqual([...GUARDRAILS.keys()].sort(), files.sort());
  assert.equal(GUARDRAILS.size, 9);
  for (const g of GUARDRAILS.values()) assert.ok(g.lesson.length > 0 && !g.lesson.includes('\n'), g.id);
  assert.deepEqual([...GUARDRAILS.values()].filter((g) => !g.override).map((g) => g.id).sort(), ['no-silent-paid-repoint', 'no-surge-outlets']);
});

test('a guardrail gates its action even when the runbook forgot to name it', () => {
  const j = new Journal();
  j.report(fvAddresses(DARK_AT, false));
  const refusals = checkStep(context({ journal: j, step: step({ id: 'size-ups', action: 'power-sizing', guardrails: [] }), now: plus(DARK_AT, 20) }));
  assert.deepEqual(refusals.map((r) => r.guardrail.id), ['power-log-first']);
  assert.equal(refusals[0]!.verdict.waitsFor, "the power log's size and sha256");
});

test('a guardrail the step names runs even when the step’s action is not its own', () => {
  const refusals = checkStep(context({ step: step({ id: 'relabel', guardrails: ['recreate-not-restart'] }), input: {} }));
  assert.deepEqual(refusals.map((r) => r.guardrail.id), ['recreate-not-restart']);
});

test('named and applying, a guardrail runs once; an allowed step gives no refusal', () => {
  const ctx = context({ step: step({ action: 'container-change', guardrails: ['recreate-not-restart'] }), input: { method: 'restart' } });
  assert.equal(checkStep(ctx).length, 1);
  assert.deepEqual(checkStep({ ...ctx, input: { method: 'recreate' } }), []);
  assert.deepEqual(checkStep(context({ step: step({ kind: 'check' }) })), []);
});

test('every refusal of a step is returned, in order: the named ones first', () => {
  const ctx = context({ step: step({ id: 'edit', action: 'env-edit', guardrails: ['recreate-not-restart'] }), input: { backup: '.env.bak-preShrink-165133' } });
  assert.deepEqual(checkStep(ctx).map((r) => r.guardrail.id), ['recreate-not-restart', 'backup-before-edit']);
});

test('an unknown guardrail id in a step is an error naming it and the known ones', () => {
  assert.throws(() => checkStep(context({ step: step({ id: 'size-ups', guardrails: ['power-log-first', 'no-such-rail'] }) })), (e: Error) => {
    assert.match(e.message, /^step size-ups names a guardrail that does not exist: "no-such-rail" \(known: power-log-first, /);
    return true;
  });
});

/** One context per seed case, allowed and refused; each is checked with every display string rewritten to "x". */
function scenarios(): { name: string; refused: boolean; ctx: GuardContext }[] {
  const dark = new Journal();
  dark.report(fvAddresses(DARK_AT, false));
  const logged = new Journal();
  logged.report(fvAddresses(DARK_AT, false));
  logged.add('step.done', powerLog(), { step: 'recover-power-log' });
  const now = '2026-09-04T16:40:00.000Z';
  const margin = (free: number[]) => {
    const j = new Journal();
    free.forEach((f, i) => j.report(gpusAt(plus(now, -(i + 1) * 3), 'ana-ml2', [{ index: 0, free: f }])));
    return j;
  };
  const seatUp = new Journal();
  seatUp.report([aliasAt(plus(seatUp.incident.openedAt, 5), 'gen-large', 'ok'), seatAt(plus(seatUp.incident.openedAt, -5), 'flash-next', ok())]);
  const healthOnly = new Journal();
  healthOnly.report([seatAt(plus(healthOnly.incident.openedAt, -5), 'flash-next', ok())]);
  const move = { action: 'seat-move' as const, seat: 'gen', host: 'ana-ml2', gpu: 0 };
  return [
    { name: 'power sizing, dark, no log', refused: true, ctx: context({ journal: dark, input: { action: 'power-sizing' } }) },
    { name: 'power sizing, log recorded', refused: false, ctx: context({ journal: logged, input: { action: 'power-sizing' } }) },
    { name: 're-probe within 15 min', refused: true, ctx: context({ journal: dark, input: { action: 'probe' }, now: plus(DARK_AT, 5) }) },
    { name: 're-probe after 15 min', refused: false, ctx: context({ journal: dark, input: { action: 'probe' }, now: plus(DARK_AT, 16) }) },
    { name: '1,979 MiB', refused: true, ctx: context({ journal: margin([42_113, 42_113]), input: { ...move, wantMiB: 40_134 }, now }) },
    { name: '4,466 MiB', refused: false, ctx: context({ journal: margin([39_024, 42_106]), input: { ...move, wantMiB: 34_558 }, now }) },
    { name: 'one measurement', refused: true, ctx: context({ journal: margin([60_000]), input: { ...move, wantMiB: 34_558 }, now }) },
    { name: 'seat up through its alias', refused: false, ctx: context({ journal: seatUp, input: { action: 'seat-up', seat: 'flash-next' } }) },
    { name: 'seat up on a healthcheck', refused: true, ctx: context({ journal: healthOnly, input: { action: 'seat-up', seat: 'flash-next' } }) },
    { name: 'repoint summarizer', refused: true, ctx: context({ journal: dark, input: { action: 'alias-route', alias: 'summarizer', backend: 'openrouter' } }) },
    { name: 'surge bank', refused: true, ctx: context({ journal: dark, input: { action: 'power-plan', bank: 'surge', loadW: 1_240 } }) },
  ];
}

test('no verdict moves when every finding’s detail, target and measuredBy is rewritten to "x"', () => {
  for (const { name, refused, ctx } of scenarios()) {
    const plain = checkStep(ctx).map((r) => ({ id: r.guardrail.id, verdict: r.verdict }));
    const again = rewordedContext(ctx);
    assert.ok(again.findings.every((f) => f.detail === 'x' && f.target === 'x' && f.measuredBy === 'x'));
    assert.deepEqual(checkStep(again).map((r) => ({ id: r.guardrail.id, verdict: r.verdict })), plain, name);
    assert.equal(plain.length > 0, refused, `${name}: ${JSON.stringify(plain)}`);
  }
});
