// The terminal on a journal edited behind its back (the real sqlite3 shell on a real file): a forged
// incident row, rows that are not JSON, an edited event, a deleted tail. What `seat` shows comes
// from the chain, `journal verify` names what changed, nothing crashes (exit 3), decisions are
// refused on a chain that does not hold, and the head each decision shows can be checked later.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { runCli, type CliIo } from '../../src/cli/run.ts';

const INVENTORY = fileURLToPath(new URL('../../examples/fleet.yaml', import.meta.url));
const SQLITE3 = '/usr/bin/sqlite3';
const AT = new Date('2026-09-13T07:00:00.000Z');
let dir: string;
let files = 0;

before(async () => {
  dir = await mkdtemp(join(tmpdir(), 'seat-journal-integrity-'));
});
after(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function seat(journal: string, ...args: string[]): Promise<{ code: number; out: string; err: string }> {
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

function shell(path: string, sql: string): void {
  execFileSync(SQLITE3, [path, sql], { stdio: 'pipe' });
}

/** Incident #1 at fv with the OOM runbook pinned and its first step skipped; the head that skip showed. */
async function incident(): Promise<{ path: string; head: string }> {
  const path = join(dir, `j${++files}.sqlite`);
  assert.equal((await seat(path, 'incident', 'open', 'fv', 'gen OOM after the move')).code, 0);
  assert.equal((await seat(path, 'runbook', 'start', 'gpu-oom-cotenant', '1')).code, 0);
  const skip = await seat(path, 'step', 'skip', 'restart-count', 'the logs are gone', '--incident', '1');
  assert.equal(skip.code, 0, skip.err);
  const head = /journal head ([0-9a-f]{12})\)/.exec(skip.out)?.[1];
  assert.ok(head, `a decision shows its head: ${skip.out}`);
  return { path, head };
}

test('each decision shows the short head hash, and `journal verify --head` finds it later', async () => {
  const { path, head } = await incident();
  const now = await seat(path, 'journal', 'verify', '--head', head.slice(0, 8));
  assert.equal(now.code, 0, now.out + now.err);
  assert.match(now.out, /the head you kept is #1's head now: event 3/);
  await seat(path, 'note', 'more to come', '--incident', '1');
  const later = await seat(path, 'journal', 'verify', '1', '--head', head);
  assert.equal(later.code, 0);
  assert.match(later.out, /event 3 of #1, in the chain; 1 event was recorded after it/);
  const bad = await seat(path, 'journal', 'verify', '--head', 'xyz');
  assert.equal(bad.code, 2);
  assert.match(bad.err, /8 to 64 hex digits/);
});

test('a forged incident row: verify names the fields; list and journal show the chain; real work goes on', async () => {
  const { path } = await incident();
  shell(path, `DROP TRIGGER incidents_projection; UPDATE incidents SET title = 'FORGED', site = 'irv', drill = 1, opened_by = '{"kind":"local","name":"mallory"}', status = 'closed', closed_by = '{"kind":"local","name":"mallory"}', closed_at = '2026-09-13T07:00:00.000Z' WHERE id = 1;`);
  const v = await seat(path, 'journal', 'verify');
  assert.equal(v.code, 1);
  assert.match(v.out, /journal does NOT hold: incident #1, event 1: the incident row differs from its events: title is "FORGED" in the row but incident.opened says "gen OOM after the move"/);
  for (const field of ['site', 'drill', 'opened_by', 'status', 'closed_by', 'closed_at']) assert.match(v.out, new RegExp(`\\b${field} is`), field);

  const list = await seat(path, 'incident', 'list');
  assert.equal(list.code, 0, list.err);
  assert.match(list.out, /^#1 \[open\] fv · gen OOM after the move · opened \S+ by ana\n/);
  assert.doesNotMatch(list.out, /FORGED|mallory|DRILL/);
  assert.match(list.out, /disagrees with its events: seat journal verify 1/);

  // No postmortem with a forged header: the export says why, naming the row.
  const exported = await seat(path, 'export', '1');
  assert.equal(exported.code, 1);
  assert.equal(exported.out, '');
  assert.match(exported.err, /^seat: the journal does not hold for incident #1 at event 1: the incident row differs from its events: title is "FORGED"/);

  // The forged "closed" blocks nothing: the chain says open.
  const step = await seat(path, 'step', 'skip', 'gpu-memory', 'measured by hand', '--incident', '1');
  assert.equal(step.code, 0, step.err);
  assert.match(step.out, /recorded: gpu-memory skipped by ana/);
  const close = await seat(path, 'incident', 'close', '1');
  assert.equal(close.code, 0, close.err);
  assert.match(close.out, /closed #1 \[closed\] fv · gen OOM after the move .* closed \S+ by ana/);
});

test('values that are not JSON: list, journal and export say what is wrong (never exit 3); verify names the row', async () => {
  const { path } = await incident();
  shell(path, "DROP TRIGGER incidents_projection; UPDATE incidents SET opened_by = 'not json{' WHERE id = 1; DROP TRIGGER events_no_update; UPDATE events SET payload = 'oops' WHERE incident = 1 AND seq = 2;");
  const list = await seat(path, 'incident', 'list');
  assert.equal(list.code, 0, list.err);
  assert.match(list.out, /#1 \[open\] fv · gen OOM after the move/);

  const journal = await seat(path, 'journal', '1');
  assert.equal(journal.code, 1);
  assert.match(journal.out, /^journal does NOT hold for #1: event 2: hash does not match its content; the events below are not proven/);
  assert.match(journal.err, /^seat: incident #1, event 2: its payload is not JSON data: the row was changed outside seatbelt \(seat journal verify 1 names it\)\n$/);

  const exported = await seat(path, 'export', '1');
  assert.equal(exported.code, 1);
  assert.match(exported.err, /^seat: incident #1, event 2: its payload is not JSON data/);
  assert.doesNotMatch(exported.err, /SyntaxError|\n\s+at /);

  const v = await seat(path, 'journal', 'verify', '1');
  assert.equal(v.code, 1);
  assert.match(v.out, /incident #1, event 2: hash does not match its content/);
});

test('an edited event: `seat journal` shows the break at the top; decisions are refused, a note is not', async () => {
  const { path } = await incident();
  shell(path, `DROP TRIGGER events_no_update; UPDATE events SET actor = '{"kind":"local","name":"bob"}' WHERE incident = 1 AND seq = 3;`);
  const journal = await seat(path, 'journal', '1');
  assert.equal(journal.code, 1);
  const lines = journal.out.split('\n');
  assert.match(lines[0]!, /^journal does NOT hold for #1: event 3: hash does not match its content; the events below are not proven \(seat journal verify 1\)$/);
  assert.match(lines[1]!, /^#1 \[open\] fv/);
  assert.match(journal.out, /step.skipped restart-count/);

  const step = await seat(path, 'step', 'skip', 'gpu-memory', 'measured by hand', '--incident', '1');
  assert.equal(step.code, 2);
  assert.match(step.err, /the journal of incident #1 does not hold \(event 3: hash does not match its content\): no decision is recorded on it until that is looked into; a note still is \(seat journal verify 1\)/);
  assert.equal((await seat(path, 'incident', 'close', '1')).code, 2);
  const note = await seat(path, 'note', 'someone edited event 3', '--incident', '1');
  assert.equal(note.code, 0, note.err);
});

test('a deleted tail: verify finds it; with the head record forged too, only the head that was kept does', async () => {
  const { path, head } = await incident();
  await seat(path, 'note', 'one', '--incident', '1');
  await seat(path, 'note', 'two', '--incident', '1');
  shell(path, 'DROP TRIGGER events_no_delete; DELETE FROM events WHERE incident = 1 AND seq >= 3;');
  const v = await seat(path, 'journal', 'verify');
  assert.equal(v.code, 1);
  assert.match(v.out, /incident #1, event 3: events 3 to 5 are missing: the head record says 5 events/);
  const note = await seat(path, 'note', 'on top', '--incident', '1');
  assert.equal(note.code, 1);
  assert.match(note.err, /^seat: incident #1's chain does not hold: event 3: events 3 to 5 are missing.*nothing was recorded/);

  shell(path, "DROP TRIGGER heads_forward; UPDATE heads SET events = 2, hash = (SELECT hash FROM events WHERE incident = 1 AND seq = 2) WHERE incident = 1;");
  assert.equal((await seat(path, 'journal', 'verify')).code, 0, 'a chain and its head record, both rewritten, hold');
  const kept = await seat(path, 'journal', 'verify', '--head', head);
  assert.equal(kept.code, 1);
  assert.match(kept.out, new RegExp(`journal does NOT hold: the head you kept \\(${head}\\) is the hash of no event in the journal`));
});
