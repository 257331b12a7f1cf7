// backup-before-edit: an .env edit records its timestamped backup name first (seed 000).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { backupBeforeEdit as g, backupProblem } from '../../src/guardrails/backup-before-edit.ts';
import { allowed, context, Journal, refusal, step } from './helpers.ts';

const edit = (backup?: string, journal?: Journal) => context({ input: { action: 'env-edit', ...(backup !== undefined ? { backup } : {}) }, ...(journal ? { journal } : {}) });

test('applies to .env edits', () => {
  assert.equal(g.applies(step({ action: 'env-edit' }), {}), true);
  assert.equal(g.applies(step({ action: 'container-change' }), {}), false);
  assert.equal(g.override, true);
});

test('seed 000: .env.bak-preGPU0-20260904-164032 is allowed', () => {
  allowed(g, edit('.env.bak-preGPU0-20260904-164032'));
  allowed(g, edit('/opt/docker/compose/gen/.env.bak-preGPU0-20260904-164032'));
  allowed(g, edit('.env.bak-pre-gpu0-move-20260904-164032'));
});

test('seed 000: .env.bak-preShrink-165133 (no date) is refused', () => {
  const v = refusal(g, edit('.env.bak-preShrink-165133'));
  assert.equal(v.refused, 'editing .env with backup ".env.bak-preShrink-165133": it has no date and time (.env.bak-<why>-yyyyMMdd-HHmmss)');
  assert.equal(v.waitsFor, "the backup's name, .env.bak-<why>-yyyyMMdd-HHmmss");
});

test('a date or a time that is not on the calendar or the clock is refused', () => {
  assert.equal(backupProblem('.env.bak-x-20260231-120000'), '20260231 is not a calendar date');
  assert.equal(backupProblem('.env.bak-x-20260904-246000'), '246000 is not a time of day');
  assert.equal(backupProblem('.env.bak-x-20260904-126099'), '126099 is not a time of day');
  assert.equal(backupProblem('.env.bak-20260904-164032'), 'its reason is missing or has characters other than letters, digits and "-" (.env.bak-<why>-yyyyMMdd-HHmmss)');
  assert.equal(backupProblem('.env.bak-pre_gpu-20260904-164032'), 'its reason is missing or has characters other than letters, digits and "-" (.env.bak-<why>-yyyyMMdd-HHmmss)');
  assert.equal(backupProblem('.env.old'), 'it is not named .env.bak-<why>-yyyyMMdd-HHmmss');
  assert.equal(backupProblem('.env.bak-leap-20280229-000000'), null);
});

test('with no backup named, an earlier env-backup evidence of the incident counts; none is refused', () => {
  assert.match(refusal(g, edit()).refused, /^editing \.env \(step act\) with no backup recorded$/);
  const j = new Journal();
  j.add('step.done', { evidence: { kind: 'value', of: 'env-backup', value: '.env.bak-preGPU0-20260904-164032' } }, { step: 'backup-env' });
  allowed(g, edit(undefined, j));
  const other = new Journal();
  other.add('step.done', { evidence: { kind: 'value', of: 'env-backup', value: '.env.bak-preGPU0-20260904-164032' } }, { step: 'backup-env', incident: 9 });
  refusal(g, edit(undefined, other));
});

test('the backup this edit names wins over an earlier one', () => {
  const j = new Journal();
  j.add('evidence', { evidence: { kind: 'value', of: 'env-backup', value: '.env.bak-preGPU0-20260904-164032' } }, { step: 'backup-env' });
  refusal(g, edit('.env.bak-preShrink-165133', j));
});
