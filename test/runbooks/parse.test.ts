// What a good runbook turns into: the title, the summary, each step's heading line, its machine
// part and its text without the seat block; and the sha256 an incident pins.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { appendFile } from 'node:fs/promises';
import path from 'node:path';
import { loadRunbooks, parseRunbook } from '../../src/runbooks/load.ts';
import type { Runbook } from '../../src/incident/types.ts';
import { DRILL, inFolder } from './fixture.ts';

function parsed(text: string, file = 'runbooks/drill.md'): Runbook {
  const r = parseRunbook(text, file);
  assert.ok(r.ok, r.ok ? '' : r.errors.join('\n'));
  return r.runbook;
}

test('title, summary and steps, each at its heading\'s line', () => {
  const rb = parsed(DRILL);
  assert.equal(rb.id, 'drill');
  assert.equal(rb.file, 'runbooks/drill.md');
  assert.equal(rb.title, 'Drill runbook');
  assert.equal(rb.summary, 'What this runbook is for, in two lines.');
  assert.deepEqual(rb.steps, [
    { id: 'first', kind: 'check', why: 'The first lesson.', guardrails: [], title: 'First step', body: 'Read this first.\n\nAfter the block.', line: 5 },
    {
      id: 'second',
      kind: 'evidence',
      why: 'The second lesson.',
      evidence: { kind: 'value', of: 'restart-count', label: 'The restart count', pattern: '^[0-9]+$' },
      guardrails: [],
      title: 'Second step',
      body: '',
      line: 17,
    },
  ]);
});

test('lines stay right past code blocks, tables, comments, lists and CRLF line ends', () => {
  const text = [
    '<!-- written from seed 002 -->', // 1
    '# Tricky', // 2
    '',
    'Summary.',
    '',
    '```sh', // 6
    '## not a step: inside a code block',
    '```',
    '',
    '## One', // 10
    '',
    '| a | b |',
    '|---|---|',
    '| 1 | 2 |',
    '',
    '- one',
    '- two',
    '',
    '~~~seat   anything after the word',
    'id: one',
    'kind: probe',
    'why: Probed, not inferred.',
    'probe:',
    '  only: [gpus, power]',
    '~~~',
    '### A sub-heading is part of the step',
    '',
    '    an indented code block',
    '',
    'Setext heading', // 30
    '--------------',
    '',
    '```seat',
    'id: two',
    'kind: action',
    'why: Setext level-2 headings are steps too.',
    'action: seat-up',
    'guardrails: [reachable-not-healthy]',
    '```',
  ].join('\n');
  for (const t of [text, text.replaceAll('\n', '\r\n')]) {
    const rb = parsed(t);
    assert.equal(rb.title, 'Tricky');
    assert.deepEqual(rb.steps.map((s) => [s.id, s.line]), [['one', 10], ['two', 30]]);
    assert.deepEqual(rb.steps[0]!.probe, { only: ['gpus', 'power'] });
    assert.equal(rb.steps[0]!.body, '| a | b |\n|---|---|\n| 1 | 2 |\n\n- one\n- two\n\n### A sub-heading is part of the step\n\n    an indented code block');
  }
  // And an error inside the second block is reported at its key's own line.
  const r = parseRunbook(text.replace('action: seat-up', 'action: reboot'), 'runbooks/tricky.md');
  assert.ok(!r.ok);
  assert.match(r.errors[0]!, /^runbooks\/tricky\.md:37: step "two": action: expected one of /);
});

test('the body is the step\'s Markdown as written, without the seat block', () => {
  const rb = parsed(DRILL);
  for (const step of rb.steps) {
    assert.ok(!step.body.includes('```'), step.body);
    assert.ok(!step.body.includes('id: '), step.body);
  }
  assert.equal(rb.steps[0]!.body, 'Read this first.\n\nAfter the block.');
});

test('the sha256 is sha256sum of the file, and an edit changes it', async () => {
  await inFolder({ 'drill.md': DRILL }, async (dir) => {
    const file = path.join(dir, 'drill.md');
    const sum = () => execFileSync('sha256sum', [file], { encoding: 'utf8', timeout: 10_000 }).split(' ')[0];
    const before = (await loadRunbooks(dir)).runbooks.get('drill')!;
    assert.equal(before.sha256, sum());
    assert.equal(before.sha256, parsed(DRILL).sha256);
    await appendFile(file, 'One more line of text.\n');
    const after = (await loadRunbooks(dir)).runbooks.get('drill')!;
    assert.equal(after.sha256, sum());
    assert.notEqual(after.sha256, before.sha256);
  });
});

test('the hash is over the bytes as they are: a BOM and CRLF line ends count', () => {
  const crlf = `\uFEFF${DRILL.replaceAll('\n', '\r\n')}`;
  const rb = parsed(crlf);
  assert.equal(rb.sha256, createHash('sha256').update(Buffer.from(crlf, 'utf8')).digest('hex'));
  assert.notEqual(rb.sha256, parsed(DRILL).sha256);
  assert.deepEqual(rb.steps.map((s) => s.line), [5, 17]);
});

test('README.md and files that are not .md are not runbooks; the rest load sorted by name', async () => {
  const files = { 'b-two.md': DRILL, 'a-one.md': DRILL, 'README.md': '# Not a runbook\n', 'notes.txt': 'x' };
  await inFolder(files, async (dir) => {
    const r = await loadRunbooks(dir);
    assert.deepEqual(r.errors, []);
    assert.deepEqual([...r.runbooks.keys()], ['a-one', 'b-two']);
    assert.equal(r.runbooks.get('a-one')!.file, path.join(dir, 'a-one.md'));
  });
});

test('a missing folder is an error, not a throw', async () => {
  const r = await loadRunbooks('/nonexistent/seat-runbooks');
  assert.deepEqual(r.errors, ['/nonexistent/seat-runbooks: cannot read the runbook folder (ENOENT)']);
});
