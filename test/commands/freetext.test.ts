// A row with a free-text "rest of the line" argument, as the incident commands will declare it:
// the text is data (any language, kept as typed), while the site and flags before it are still
// held to the narrow alphabet.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { z } from 'zod';
import { parseWords } from '../../src/commands/grammar.ts';
import { parseCommand, parseTokens } from '../../src/commands/parse.ts';
import { COMMANDS, type StepDoneCommand, type StepEvidenceCommand } from '../../src/commands/table.ts';
import { defineCommand, type CommandSpec } from '../../src/commands/spec.ts';
import { splitWords } from '../../src/commands/tokens.ts';

interface Note { verb: 'note'; site: string; text: string; severity: number | undefined }

const TABLE: CommandSpec[] = [
  defineCommand({
    words: ['note'],
    summary: 'add a note to the incident',
    frontEnds: ['cli', 'slack'],
    needsInventory: true,
    args: [
      { name: 'site', kind: 'site-or-all', required: true, shown: '<site>', help: 'the site' },
      { name: 'text', kind: 'text', required: true, shown: '<text...>', help: 'the note, as typed', maxLength: 60 },
    ],
    flags: { sev: { type: 'string', value: 'N', schema: z.string().regex(/^[1-4]$/).transform(Number), expect: '1-4', help: 'severity' } },
    build: ({ args, flags }): Note => ({ verb: 'note', site: args.site, text: args.text, severity: flags.sev }),
  }),
];

const ctx = { frontEnd: 'slack' as const, sites: ['fv', 'ana'] };
const typed = (text: string): ReturnType<typeof parseWords> => parseWords(TABLE, splitWords(text), text, ctx);

test('the rest of the line is kept as typed: shell characters, quotes, emoji, any script, spacing', () => {
  const text = 'UPS beeps; ran `upsc` $(x) — "ok"  🔥 停電 قطع';
  const r = typed(`note fv ${text}`);
  assert.deepEqual(r, { ok: true, command: { verb: 'note', site: 'fv', text, severity: undefined } });
});

test('a flag is a flag wherever it stands in the text; after -- every word is text', () => {
  const r = typed('note fv breaker tripped --sev 2 twice');
  assert.deepEqual(r, { ok: true, command: { verb: 'note', site: 'fv', text: 'breaker tripped twice', severity: 2 } });
  const inline = typed('note fv breaker --sev=3');
  assert.ok(inline.ok);
  assert.deepEqual(inline.command, { verb: 'note', site: 'fv', text: 'breaker', severity: 3 });
  const dashed = typed('note fv --sev 1 -- --sev is not a flag here, nor -h');
  assert.ok(dashed.ok);
  assert.deepEqual(dashed.command, { verb: 'note', site: 'fv', text: '--sev is not a flag here, nor -h', severity: 1 });
  const literal = typed('note fv "--sev 4" was typed -5 C in the room — then -');
  assert.ok(literal.ok, 'a quoted word, a negative number and a lone dash are text');
  assert.deepEqual(literal.command, { verb: 'note', site: 'fv', text: '"--sev 4" was typed -5 C in the room — then -', severity: undefined });
});

test('an option the command lacks, standing in the text, is refused with the line that records it as text', () => {
  assert.deepEqual(typed('note fv --sev 2 breaker --reset tried'), {
    ok: false,
    error: 'unknown option "--reset" for note (known: --sev). To write it as text, put the text after --: /seat note fv --sev 2 -- breaker --reset tried',
  });
  assert.deepEqual(typed('note fv ran rm -rf on it'), {
    ok: false,
    error: 'unknown option "-rf" for note (known: --sev). To write it as text, put the text after --: /seat note fv -- ran rm -rf on it',
  });
  const near = typed('note fv hello --seve 2');
  assert.ok(!near.ok);
  assert.equal(near.error, 'unknown option "--seve" for note — did you mean --sev? To write it as text, put the text after --: /seat note fv -- hello --seve 2');
  const argv = parseWords(TABLE, ['note', 'fv', "it's down;", '--bogus'].map((text) => ({ text, start: 0 })), null, { frontEnd: 'cli', sites: ['fv'] });
  assert.ok(!argv.ok);
  assert.match(argv.error, /put the text after --: seat note fv -- 'it'\\''s down;' --bogus$/, 'the fix, quoted for a shell');
});

test('Slack text: a quoted value is one word; the quotes of free text are kept as typed', () => {
  assert.deepEqual(splitWords('note "a b"  \'c d\' “e f” x"y don\'t \'tis').map((w) => [w.text, w.quoted === true]), [
    ['note', false],
    ['a b', true],
    ['c d', true],
    ['e f', true],
    ['x"y', false],
    ["don't", false],
    ["'tis", false],
  ]);
  const r = typed('note fv he said "stop --sev now" --sev 4');
  assert.ok(r.ok);
  assert.deepEqual(r.command, { verb: 'note', site: 'fv', text: 'he said "stop --sev now"', severity: 4 });
});

test('control characters and bidi overrides are stripped; line breaks become spaces', () => {
  const r = typed('note fv a\u0007b\u202Eevil\u202C\nnext\tline\u0000');
  assert.ok(r.ok);
  assert.equal((r.command as Note).text, 'abevil next line');
});

test('the text is capped in characters (code points), refused rather than cut', () => {
  const r = typed(`note fv ${'停'.repeat(61)}`);
  assert.deepEqual(r, { ok: false, error: 'text is 61 characters; the most is 60' });
  assert.ok(typed(`note fv ${'停'.repeat(60)}`).ok);
});

test('the site before the text is still refused on a hostile character; a missing text is named', () => {
  assert.deepEqual(typed('note fv; rm -rf / now'), { ok: false, error: 'unexpected character ";" in "fv;"' });
  assert.deepEqual(typed('note mars hello'), { ok: false, error: 'unknown site "mars" (known: fv, ana, all)' });
  assert.deepEqual(typed('note fv'), { ok: false, error: 'note needs <text...>: the note, as typed' });
  assert.deepEqual(typed('note fv --sev 9 hi'), { ok: false, error: '--sev: expected 1-4, got "9"' });
});

test('argv (the shell already split it) joins the words with one space', () => {
  const words = ['note', 'ana', 'fan', 'loud;', 'see', 'ticket'].map((text) => ({ text, start: 0 }));
  const r = parseWords(TABLE, words, null, { frontEnd: 'cli', sites: ['ana'] });
  assert.ok(r.ok);
  assert.equal((r.command as Note).text, 'fan loud; see ticket');
});

// The real command table: every command with free text and flags, as the terminal and Slack give it.
const REAL_SITES = ['fv', 'ana', 'irv'];
const AFTER_TEXT: [string[], Record<string, unknown>][] = [
  [['note', 'hello', '--incident', '1'], { verb: 'note', incident: 1, text: 'hello' }],
  [['step', 'skip', 'restart-count', 'the logs are gone', '--incident', '2'], { verb: 'step skip', step: 'restart-count', incident: 2, reason: 'the logs are gone' }],
  [['step', 'block', 'ups-reset', 'waiting', '--incident=3', 'on the DC'], { verb: 'step block', step: 'ups-reset', incident: 3, reason: 'waiting on the DC' }],
  [['override', 'request', 'move-seat', 'measured-margin', 'the', '--incident', '#4', 'window is short'], { verb: 'override request', step: 'move-seat', guardrail: 'measured-margin', incident: 4, reason: 'the window is short' }],
  [['diagnose', 'vllm.log', '--since', '10m'], { verb: 'diagnose', input: 'vllm.log', since: '10m' }],
];

test('every command with free text and flags reads a flag that stands after the text, in argv and in Slack', () => {
  const covered = new Set(AFTER_TEXT.map(([argv]) => COMMANDS.find((s) => argv.join(' ').startsWith(`${s.words[0]} `))!.words[0]));
  for (const spec of COMMANDS) {
    const hasText = spec.args.some((a) => a.kind === 'text');
    if (hasText && Object.keys(spec.flags).length > 0) assert.ok(covered.has(spec.words[0]), `${spec.words[0]} is checked here`);
  }
  for (const [argv, expected] of AFTER_TEXT) {
    const r = parseTokens(argv, REAL_SITES);
    assert.ok(r.ok, r.ok ? '' : r.error);
    assert.deepEqual(r.command, expected, argv.join(' '));
    const slack = parseCommand(argv.join(' '), REAL_SITES, 'slack');
    assert.ok(slack.ok, slack.ok ? '' : slack.error);
    assert.deepEqual(slack.command, expected, `/seat ${argv.join(' ')}`);
  }
  const typo = parseTokens(['note', 'hello', '--incdent', '1'], REAL_SITES);
  assert.deepEqual(typo, { ok: false, error: 'unknown option "--incdent" for note — did you mean --incident? To write it as text, put the text after --: seat note -- hello --incdent 1' });
  const literal = parseTokens(['note', '--incident', '1', '--', 'hello', '--incident', '1'], REAL_SITES);
  assert.deepEqual(literal, { ok: true, command: { verb: 'note', incident: 1, text: 'hello --incident 1' } });
});

const LOG_LINE = 'torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 20.00 MiB. GPU 0 has a total capacity of 79.25 GiB of which 18.75 MiB is free; "expandable_segments:True"';

test('a quoted --value is one value: spaces, quotes and log lines stored as data, from the shell and from Slack', () => {
  const a = parseTokens(['step', 'done', 'kv-error', '--value', 'a b'], REAL_SITES);
  assert.ok(a.ok, a.ok ? '' : a.error);
  assert.deepEqual((a.command as StepDoneCommand).evidence, { value: 'a b' });
  const log = parseTokens(['step', 'done', 'seat-log', `--value=${LOG_LINE}`, '--incident', '2'], REAL_SITES);
  assert.ok(log.ok, log.ok ? '' : log.error);
  assert.deepEqual((log.command as StepDoneCommand).evidence, { value: LOG_LINE });
  assert.equal((log.command as StepDoneCommand).incident, 2);
  const negative = parseTokens(['step', 'evidence', 'restart-count', '--value', '-1 (unknown)'], REAL_SITES);
  assert.ok(negative.ok && (negative.command as StepEvidenceCommand).evidence.value === '-1 (unknown)');
  const ctl = parseTokens(['step', 'done', 'seat-log', '--value', 'a\u001b[2Jb\nc'], REAL_SITES);
  assert.ok(ctl.ok && (ctl.command as StepDoneCommand).evidence.value === 'a[2Jb c', 'controls stripped, line breaks a space');

  for (const [open, close] of [['"', '"'], ["'", "'"], ['\u201c', '\u201d']]) {
    const s = parseCommand(`step done seat-log --value ${open}${LOG_LINE.replace(/"/g, '')}${close} --incident 2`, REAL_SITES, 'slack');
    assert.ok(s.ok, s.ok ? '' : s.error);
    assert.deepEqual((s.command as StepDoneCommand).evidence, { value: LOG_LINE.replace(/"/g, '') });
  }
  const quotedInside = parseCommand(`step done seat-log --value '${LOG_LINE}'`, REAL_SITES, 'slack');
  assert.ok(quotedInside.ok && (quotedInside.command as StepDoneCommand).evidence.value === LOG_LINE);
  const unquoted = parseCommand('step done seat-log --value CUDA out of memory', REAL_SITES, 'slack');
  assert.deepEqual(unquoted, { ok: false, error: 'step done takes one step, got "seat-log" and "out of memory" (a value with spaces goes in quotes: --value "a b")' });
  // Names stay names: a step id, a site, a flag that is no free text.
  assert.ok(!parseTokens(['step', 'done', 'kv error', '--value', 'x'], REAL_SITES).ok);
  assert.ok(!parseCommand('step done "kv error" --value x', REAL_SITES, 'slack').ok);
  assert.ok(!parseTokens(['step', 'done', 'x', '--seat', 'a b'], REAL_SITES).ok);
});
