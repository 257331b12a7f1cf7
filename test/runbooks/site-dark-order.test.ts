// Issue 29 item 15: site-dark in the order on-call works it. The users' coverage decision (a paid
// opt-in alias, or none and who was told) comes right after stopping the polling and calling the
// site, before any power step: users are without the site's aliases the whole time.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { parseRunbook } from '../../src/runbooks/load.ts';

test('site-dark: blast radius, stop polling, the coverage decision, then the power work, bring-up and the outside check', async () => {
  const r = parseRunbook(await readFile(new URL('../../runbooks/site-dark.md', import.meta.url), 'utf8'), 'site-dark.md');
  assert.ok(r.ok, r.ok ? '' : r.errors.join('\n'));
  const steps = r.runbook.steps;
  assert.deepEqual(
    steps.map((s) => s.id),
    ['blast-radius', 'no-polling', 'paid-coverage', 'recover-power-log', 'ups-rating', 'power-plan', 'recreate-containers', 'seat-reachable'],
  );
  // Read by what the steps are, not their names: the alias routing comes before every power step.
  const coverage = steps.findIndex((s) => s.action === 'alias-route');
  const power = steps.findIndex((s) => s.action === 'power-sizing' || s.action === 'power-plan' || s.evidence?.of === 'power-log');
  assert.ok(coverage >= 0 && power >= 0);
  assert.ok(coverage < power, `the coverage decision is step ${coverage + 1}, after the first power step (${power + 1})`);
  // The bring-up waits for a probe that reaches the site (issue 29 item 14).
  assert.ok(steps.find((s) => s.id === 'recreate-containers')?.guardrails.includes('site-answers-first'));
});
