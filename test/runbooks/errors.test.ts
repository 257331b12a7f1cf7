// A malformed runbook is refused whole, each problem one line: file, line, and what was expected.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { checkRunbooks, loadRunbooks, parseRunbook } from '../../src/runbooks/load.ts';
import { DRILL, cut, edit, inFolder, refused } from './fixture.ts';

const STEP_KEYS = 'id, kind, why, probe, evidence, action, guardrails';

test('the drill runbook itself loads', async () => {
  const r = parseRunbook(DRILL, 'runbooks/drill.md');
  assert.ok(r.ok, r.ok ? '' : r.errors.join('\n'));
});

test('an unknown key is named, on its own line, with the keys that are allowed', async () => {
  assert.deepEqual(await refused(edit(DRILL, 12, 'why: The first lesson.', 'colour: red')), [
    `drill.md:13: step "first": unknown key "colour": expected one of ${STEP_KEYS}`,
  ]);
  assert.deepEqual(await refused(edit(DRILL, 26, '  label: The restart count', '  colour: red')), [
    'drill.md:27: step "second": evidence: unknown key "colour": expected one of kind, of, label, pattern',
  ]);
});

test('a missing why points at the seat block and says what it should hold', async () => {
  assert.deepEqual(await refused(edit(DRILL, 12)), [
    'drill.md:9: step "first": why: missing: expected one line saying why this step exists (the lesson it carries)',
  ]);
  assert.deepEqual(await refused(edit(DRILL, 12, 'why: |', '  two', '  lines')), [
    'drill.md:12: step "first": why: expected one line saying why this step exists (the lesson it carries), got 2 lines',
  ]);
  assert.deepEqual(await refused(edit(DRILL, 12, `why: ${'x'.repeat(201)}`)), [
    'drill.md:12: step "first": why: expected one line saying why this step exists (the lesson it carries) of at most 200 characters, got 201',
  ]);
});

test('a bad kind, or a bad evidence kind, lists the kinds there are', async () => {
  assert.deepEqual(await refused(edit(DRILL, 11, 'kind: chore')), [
    'drill.md:11: step "first": kind: expected one of probe, check, action, evidence, decision, got "chore"',
  ]);
  assert.deepEqual(await refused(edit(DRILL, 24, '  kind: blob')), [
    'drill.md:24: step "second": evidence.kind: expected one of file, value, yesno, got "blob"',
  ]);
  assert.deepEqual(await refused(edit(DRILL, 10, 'id: First_Step')), [
    'drill.md:10: step "First step": id: expected the step id: a strict word (lower-case letters, digits and "-", starting with a letter, at most 40 characters), got "First_Step"',
  ]);
});

test('a probe step without a probe, and an evidence step without evidence, are refused at their kind', async () => {
  assert.deepEqual(await refused(edit(DRILL, 11, 'kind: probe')), [
    'drill.md:11: step "first": probe: missing: a probe step says what it probes: expected probe: {} for every group, or probe: { only: [gpus] }',
  ]);
  assert.deepEqual(await refused(edit(DRILL, 11, 'kind: check', 'probe: { only: [gpus] }')), [
    'drill.md:12: step "first": probe: only a probe step runs a probe: expected kind: probe, or no probe key (this step is kind: check)',
  ]);
  const [e] = await refused(cut(DRILL, 23, 27));
  assert.match(e!, /^drill\.md:21: step "second": evidence: missing: an evidence step says what it needs/);
});

test('unknown guardrails and actions are refused with the list of known ones', async () => {
  const errors = await refused(edit(DRILL, 12, 'why: The first lesson.', 'action: reboot', 'guardrails:', '  - power-log-first', '  - be-careful', '  - power-log-first'));
  assert.equal(errors.length, 3);
  assert.match(errors[0]!, /^drill\.md:13: step "first": action: expected one of power-sizing, power-plan, .*, probe, got "reboot"$/);
  assert.match(errors[1]!, /^drill\.md:16: step "first": guardrails\[1\]: expected one of power-log-first, .*recreate-not-restart(?:, [a-z-]+)*, got "be-careful"$/);
  assert.equal(errors[2], 'drill.md:17: step "first": guardrails[2]: "power-log-first" is listed twice: expected each guardrail once');
});

test('a step with no seat block, or two, is refused', async () => {
  assert.deepEqual(await refused(cut(DRILL, 9, 13)), [
    'drill.md:5: step "First step": no seat block: expected one ```seat block with the step\'s id, kind and why',
  ]);
  assert.deepEqual(await refused(edit(DRILL, 15, '```seat', 'id: again', '```')), [
    'drill.md:15: step "First step": a second seat block: expected exactly one per step (the first is at line 9)',
  ]);
});

test('a seat block inside a list is refused: it would be read as part of the text', async () => {
  assert.deepEqual(await refused(edit(DRILL, 15, '- a list item', '', '  ```seat', '  id: inner', '  ```')), [
    'drill.md:17: step "First step": a seat block inside a list or quote: expected it at the top level of the step, not indented',
  ]);
});

test('a duplicate step id names the step that has it first', async () => {
  assert.deepEqual(await refused(edit(DRILL, 20, 'id: first')), [
    'drill.md:20: step "first": id: "first" is already the id of the step at line 5: expected each step id once in a runbook',
  ]);
});

test('a YAML syntax error gives the line inside the block', async () => {
  const [e] = await refused(edit(DRILL, 25, '   of: restart-count'));
  assert.match(e!, /^drill\.md:25: step "second": the seat block is not valid YAML: bad indentation of a mapping entry/);
  const [dup] = await refused(edit(DRILL, 11, 'kind: check', 'id: again'));
  assert.match(dup!, /^drill\.md:12: step "first": the seat block is not valid YAML: duplicated mapping key/);
  assert.deepEqual(await refused(cut(DRILL, 28, 28)), [
    'drill.md:19: step "Second step": the seat block is not closed: expected a closing fence (```) after its YAML',
  ]);
  assert.deepEqual(await refused(cut(DRILL, 13, 13)), [
    'drill.md:9: step "First step": the seat block runs on into line 16 (a heading or a fence): expected its closing fence before it',
  ]);
});

test('an evidence pattern that is not a regular expression is refused with why', async () => {
  assert.deepEqual(await refused(edit(DRILL, 27, "  pattern: '^([0-9]+$'")), [
    'drill.md:27: step "second": evidence.pattern: expected a regular expression, got "^([0-9]+$" (Invalid regular expression: /^([0-9]+$/: Unterminated group)',
  ]);
});

test('no title, no summary, no steps, a second title', async () => {
  assert.deepEqual(await refused(edit(DRILL, 1, '')), ['drill.md:1: no title: expected a # heading with the runbook\'s name first']);
  assert.deepEqual(await refused(cut(DRILL, 3, 4)), [
    'drill.md:1: no summary: expected a paragraph under the # title saying when this runbook applies',
  ]);
  assert.deepEqual(await refused('# Only a title\n\nAnd its summary.\n'), [
    'drill.md:1: no steps: expected at least one ## step heading, each with a ```seat block',
  ]);
  assert.deepEqual(await refused(edit(DRILL, 16, '# Another title')), [
    'drill.md:16: a second # heading: expected one # title a runbook (its steps are ## headings; the first title is at line 1)',
  ]);
  assert.deepEqual(await refused(`Intro text.\n\n${DRILL}`), ['drill.md:1: text before the title: expected the runbook to begin with its # title']);
});

test('control characters, non-UTF-8 and oversize files are refused before parsing', async () => {
  assert.deepEqual(await refused(edit(DRILL, 7, 'Read\x07 this first.')), ['drill.md:7: a control character (U+0007): expected plain Markdown text']);
  assert.deepEqual(await refused(edit(DRILL, 7, 'Read\u202E this first.')), ['drill.md:7: a control character (U+202E): expected plain Markdown text']);
  assert.deepEqual(await refused(Buffer.from([0x23, 0x20, 0xff, 0x0a])), ['drill.md: not UTF-8 text: expected a Markdown runbook in UTF-8']);
  const big = `${DRILL}\n${'x'.repeat(256 * 1024)}\n`;
  assert.deepEqual(await refused(big), [`drill.md: ${Buffer.byteLength(big)} bytes: expected a runbook of at most 256 KiB`]);
  const r = parseRunbook(big, 'runbooks/drill.md');
  assert.ok(!r.ok && r.errors[0]!.startsWith('runbooks/drill.md: '));
});

test('a file name that is not a strict word, and a folder named *.md, are refused', async () => {
  await inFolder({ 'Drill Runbook.md': DRILL, 'README.md': 'not a runbook' }, async (dir) => {
    await mkdir(path.join(dir, 'folder.md'));
    const r = await loadRunbooks(dir);
    assert.deepEqual(r.errors.map((e) => e.replace(`${dir}/`, '')), [
      'Drill Runbook.md: the file name "Drill Runbook" is not a runbook id: expected a strict word (lower-case letters, digits and "-", starting with a letter, at most 40 characters), then .md',
      'folder.md: not a regular file: expected a Markdown runbook',
    ]);
  });
});

test('an error in parseRunbook names the file as passed', () => {
  const r = parseRunbook(edit(DRILL, 11, 'kind: chore'), 'runbooks/site-dark.md');
  assert.deepEqual(r.ok ? [] : r.errors, ['runbooks/site-dark.md:11: step "first": kind: expected one of probe, check, action, evidence, decision, got "chore"']);
});

test('every problem of a file is reported, in line order', async () => {
  const text = edit(edit(DRILL, 24, '  kind: blob'), 11, 'kind: chore');
  assert.deepEqual((await refused(text)).map((e) => e.split(':')[1]), ['11', '24']);
});

test('seat runbook check reports the errors and every runbook that has no file', async () => {
  await inFolder({ 'site-dark.md': edit(DRILL, 11, 'kind: chore') }, async (dir) => {
    const check = await checkRunbooks(dir);
    assert.equal(check.ok, false);
    const lines = check.lines.map((l) => l.replace(`${dir}/`, ''));
    assert.equal(lines[0], 'site-dark.md:11: step "first": kind: expected one of probe, check, action, evidence, decision, got "chore"');
    assert.ok(lines.includes('gateway-down.md: missing: the diagnosis proposes "gateway-down" (src/diagnose/runbooks.ts): expected a runbook file for it'), lines.join('\n'));
    assert.ok(lines.includes('seat-unreachable.md: missing: the diagnosis proposes "seat-unreachable" (src/diagnose/runbooks.ts): expected a runbook file for it'));
    assert.ok(lines.includes('kv-cache-boot-race.md: missing: a person starts by name "kv-cache-boot-race" (src/diagnose/runbooks.ts): expected a runbook file for it'));
    assert.ok(!lines.some((l) => l.startsWith('site-dark.md: missing')), 'a file that fails to parse is not also missing');
  });
});
