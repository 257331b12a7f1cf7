// The terminal records what was typed, where it was meant: a flag among free text is a flag
// (`seat note hello --incident 1` is a note for #1, never the newest open incident), an option the
// command lacks is refused with the line that records it as text, and a quoted argument is one
// value (a log line as a step's evidence). The real CLI on a real SQLite journal.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { runCli, type CliIo } from '../../src/cli/run.ts';

const INVENTORY = fileURLToPath(new URL('../../examples/fleet.yaml', import.meta.url));
const AT = new Date('2026-09-13T07:00:00.000Z');
let dir: string;
let journal: string;

before(async () => {
  dir = await mkdtemp(join(tmpdir(), 'seat-freetext-'));
  journal = join(dir, 'journal.sqlite');
});
after(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function seat(...args: string[]): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const io: CliIo = {
    stdout: { write: (x: string | Uint8Array) => (out += String(x)) },
    stderr: { write: (x: string) => (err += x) },
    env: { SEAT_JOURNAL: journal, SEAT_USER: 'ana', HOME: dir },
    now: () => AT,
  };
  const code = await runCli(['--inventory', INVENTORY, ...args], io);
  return { code, out, err };
}

const LOG_LINE = 'torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 20.00 MiB. GPU 0 has a total capacity of 79.25 GiB; "expandable_segments:True"';

test('free text with flags among it, and a quoted log line, go where they were meant', async () => {
  assert.equal((await seat('incident', 'open', 'fv', 'gen OOM after the move')).code, 0);
  assert.equal((await seat('incident', 'open', 'ana', 'a newer incident')).code, 0);

  // The README's order: the text, then --incident.
  const note = await seat('note', 'hello', '--incident', '1');
  assert.equal(note.code, 0, note.err);
  assert.match(note.out, /^noted in #1 /);
  const one = await seat('journal', '1');
  assert.match(one.out, /note — hello\n/);
  assert.doesNotMatch(one.out, /--incident/);
  assert.doesNotMatch((await seat('journal', '2')).out, /note/, 'never silently the newest open incident');

  // A mistyped option is refused with the fix; nothing is recorded anywhere.
  const typo = await seat('note', 'hello', '--incdent', '1');
  assert.equal(typo.code, 2);
  assert.match(typo.err, /^seat: unknown option "--incdent" for note — did you mean --incident\? To write it as text, put the text after --: seat note -- hello --incdent 1\n/);
  assert.equal((await seat('journal', '1')).out, one.out);
  assert.doesNotMatch((await seat('journal', '2')).out, /note/);
  const literal = await seat('note', '--incident', '1', '--', 'tried', '--force', 'first');
  assert.equal(literal.code, 0, literal.err);
  assert.match((await seat('journal', '1')).out, /note — tried --force first\n/);

  // A step whose evidence is a log line: one quoted argument is one value, stored as typed.
  assert.equal((await seat('runbook', 'start', 'backend-down', '1')).code, 0);
  const done = await seat('step', 'done', 'seat-log', '--value', LOG_LINE, '--incident', '1');
  assert.equal(done.code, 0, done.err);
  assert.match((await seat('journal', '1')).out, new RegExp(`step\\.done seat-log — evidence: ${LOG_LINE.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\n`));
  const skip = await seat('step', 'skip', 'restart-count', 'the logs are gone', '--incident', '1');
  assert.equal(skip.code, 0, skip.err);
  assert.match((await seat('journal', '1')).out, /step\.skipped restart-count — skipped: the logs are gone\n/);
  assert.doesNotMatch((await seat('journal', '2')).out, /step\./);
});
