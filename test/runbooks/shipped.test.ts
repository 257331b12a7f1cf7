// The runbooks we ship: each loads clean, each runbook the diagnosis proposes or a person starts by
// name has its file, every guardrail named exists, and the pinned hash is the file's own sha256.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { NAMED_RUNBOOKS, RUNBOOKS } from '../../src/diagnose/runbooks.ts';
import { checkRunbooks, defaultRunbookDir, loadRunbooks, packageRoot } from '../../src/runbooks/load.ts';
import { GUARDRAIL_IDS, GUARDRAILS } from '../../src/guardrails/index.ts';
import { MAX_WHY, validateSeatBlock } from '../../src/runbooks/schema.ts';

const repo = fileURLToPath(new URL('../../', import.meta.url)).replace(/\/$/, '');
const loaded = await loadRunbooks();

test('every shipped runbook loads with no error', () => {
  assert.deepEqual(loaded.errors, []);
  const files = readdirSync(`${repo}/runbooks`).filter((n) => n.endsWith('.md') && n !== 'README.md');
  assert.equal(loaded.runbooks.size, files.length);
  for (const rb of loaded.runbooks.values()) {
    assert.equal(rb.file, `runbooks/${rb.id}.md`);
    assert.ok(rb.title && rb.summary, `${rb.id} has a title and a summary`);
    assert.ok(rb.steps.length >= 3, `${rb.id} has steps`);
  }
});

test('every runbook the diagnosis proposes or a person starts by name has a file', () => {
  // Read at run time: the list in src/diagnose/runbooks.ts is the one that counts.
  const wanted = [...Object.keys(RUNBOOKS), ...Object.keys(NAMED_RUNBOOKS), 'kv-cache-boot-race', 'seat-unreachable'];
  const missing = [...new Set(wanted)].filter((id) => !loaded.runbooks.has(id));
  assert.deepEqual(missing, []);
});

test('every guardrail a step names is a known guardrail id', () => {
  const known = new Set<string>(GUARDRAIL_IDS);
  for (const rb of loaded.runbooks.values()) {
    for (const step of rb.steps) for (const g of step.guardrails) assert.ok(known.has(g), `${rb.file}:${step.line}: ${g}`);
  }
});

test('a step may name exactly the guardrails src/guardrails implements', () => {
  assert.deepEqual([...GUARDRAIL_IDS], [...GUARDRAILS.keys()]);
  const naming = (guardrails: string[]): boolean => validateSeatBlock({ id: 'a-step', kind: 'check', why: 'A lesson.', guardrails }).ok;
  for (const id of GUARDRAILS.keys()) assert.ok(naming([id]), id);
  assert.equal(naming(['be-careful']), false);
});

test('each step says its lesson in one line', () => {
  for (const rb of loaded.runbooks.values()) {
    for (const step of rb.steps) {
      assert.ok(step.why.length > 0 && step.why.length <= MAX_WHY && !step.why.includes('\n'), `${rb.file}:${step.line}`);
      assert.ok(!step.body.includes('```seat'), `${rb.file}:${step.line}: body has no seat block`);
    }
  }
});

test('the pinned sha256 is sha256sum of the file', () => {
  for (const rb of loaded.runbooks.values()) {
    const out = execFileSync('sha256sum', [`${repo}/${rb.file}`], { encoding: 'utf8', timeout: 10_000 });
    assert.equal(rb.sha256, out.split(' ')[0], rb.file);
  }
});

test('site-dark carries the seed 002 lessons on the steps that need them', () => {
  const rb = loaded.runbooks.get('site-dark')!;
  const step = (id: string) => rb.steps.find((s) => s.id === id)!;
  assert.equal(rb.steps[0]!.kind, 'probe');
  assert.deepEqual(step('no-polling').guardrails, ['no-poll-dark-site']);
  assert.equal(step('no-polling').action, 'probe');
  // no-poll-dark-site lifts when a person says the UPS is reset: the step asks for that answer.
  const reset = step('no-polling').evidence;
  assert.equal(reset?.kind === 'yesno' && reset.of, 'ups-reset');
  assert.deepEqual(step('recover-power-log').evidence, { kind: 'file', of: 'power-log', label: '/tank/aimodels/flash-next-mtp-bench/power.log' });
  assert.ok(step('ups-rating').guardrails.includes('power-log-first'));
  assert.equal(step('ups-rating').action, 'power-sizing');
  assert.ok(step('power-plan').guardrails.includes('no-surge-outlets'));
  assert.equal(step('paid-coverage').action, 'alias-route');
  assert.deepEqual(step('recreate-containers').guardrails, ['site-answers-first', 'recreate-not-restart']);
  assert.deepEqual(step('seat-reachable').guardrails, ['reachable-not-healthy']);
  // Power comes after the power log; the power log after the blast radius.
  const at = (id: string) => rb.steps.findIndex((s) => s.id === id);
  assert.ok(at('blast-radius') < at('recover-power-log') && at('recover-power-log') < at('ups-rating'));
});

test('gpu-oom-cotenant: the backup pattern takes the seed\'s dated name and refuses its undated one', () => {
  const rb = loaded.runbooks.get('gpu-oom-cotenant')!;
  const backup = rb.steps.find((s) => s.id === 'env-backup')!;
  assert.equal(backup.action, 'env-edit');
  assert.deepEqual(backup.guardrails, ['backup-before-edit']);
  assert.ok(backup.evidence?.kind === 'value' && backup.evidence.pattern);
  const re = new RegExp(backup.evidence.pattern);
  assert.match('.env.bak-preGPU0-20260904-164032', re);
  assert.match('/opt/docker/compose/gen/.env.bak-pre-gpu0-20260904-164032', re);
  assert.doesNotMatch('.env.bak-preShrink-165133', re);
  const move = rb.steps.find((s) => s.id === 'move-or-resize')!;
  assert.deepEqual([move.action, move.guardrails], ['seat-move', ['measured-margin']]);
  assert.equal(rb.steps.find((s) => s.id === 'misattribution')?.evidence?.kind, 'yesno');
});

test('the default folder is found from src/ (tests) and from dist/src/ (the built CLI)', () => {
  assert.equal(packageRoot(), repo);
  assert.equal(packageRoot(new URL('../../dist/src/runbooks/load.js', import.meta.url)), repo);
  assert.equal(defaultRunbookDir(new URL('../../dist/src/runbooks/load.js', import.meta.url)), `${repo}/runbooks`);
});

test('seat runbook check: one ok line per runbook, with its steps and sha256', async () => {
  const check = await checkRunbooks();
  assert.equal(check.ok, true, check.lines.join('\n'));
  assert.equal(check.lines.length, loaded.runbooks.size);
  const rb = loaded.runbooks.get('site-dark')!;
  assert.ok(check.lines.includes(`ok site-dark: ${rb.steps.length} steps, sha256 ${rb.sha256.slice(0, 12)} (runbooks/site-dark.md)`), check.lines.join('\n'));
});
