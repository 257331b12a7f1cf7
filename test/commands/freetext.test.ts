// A row with a free-text "rest of the line" argument, as the incident commands will declare it:
// the text is data (any language, kept as typed), while the site and flags before it are still
// held to the narrow alphabet.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { z } from 'zod';
import { parseWords } from '../../src/commands/grammar.ts';
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

test('flags come before the text; after the text starts, a dash is text', () => {
  const r = typed('note fv --sev 2 breaker --reset tried');
  assert.ok(r.ok);
  assert.deepEqual(r.command, { verb: 'note', site: 'fv', text: 'breaker --reset tried', severity: 2 });
  const dashed = typed('note fv -- --sev is not a flag here');
  assert.ok(dashed.ok);
  assert.equal((dashed.command as Note).text, '--sev is not a flag here');
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
