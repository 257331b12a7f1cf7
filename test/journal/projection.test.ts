// The journal covers what it shows: an incident's row (title, site, DRILL, status, who opened and
// closed it) is a projection of its events, and each incident's event count and head hash are kept
// where a deletion of its newest events must forge them too. Edits made with the real sqlite3 shell,
// as someone with the file would; `verify` names what changed, and reads show the chain's values.
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Actor } from '../../src/incident/types.ts';
import { hashStored } from '../../src/journal/chain.ts';
import { openSqliteCore } from '../../src/journal/sqlite.ts';
import { JournalError } from '../../src/journal/store.ts';

const dir = mkdtempSync(join(tmpdir(), 'seatbelt-projection-'));
after(() => rmSync(dir, { recursive: true, force: true }));

const SQLITE3 = '/usr/bin/sqlite3';
const ana: Actor = { kind: 'slack', id: 'U0ANA', name: 'ana' };
const at = '2025-03-01T14:05:00.000Z';
let files = 0;

/** Incident 1 (a DRILL, open) and 2 (closed), six events each before the close. */
function journal(): string {
  const path = join(dir, `j${++files}.sqlite`);
  const j = openSqliteCore(path, { now: () => new Date(at) });
  for (const [title, drill] of [['fv dark', true], ['ana gateway', false]] as const) {
    const id = j.openIncident({ site: 'fv', title, actor: ana, at, drill }).incident.id;
    for (let n = 2; n <= 6; n++) j.append({ incident: id, kind: 'note', actor: ana, happenedAt: at, payload: { text: `note ${n}` } });
  }
  j.closeIncident(2, ana, at, 'done');
  assert.equal(j.verify().ok, true);
  j.close();
  return path;
}

function shell(path: string, sql: string): string {
  return execFileSync(SQLITE3, [path, sql], { encoding: 'utf8', stdio: 'pipe' });
}

function withJournal<T>(path: string, fn: (j: ReturnType<typeof openSqliteCore>) => T): T {
  const j = openSqliteCore(path, { now: () => new Date(at) });
  try {
    return fn(j);
  } finally {
    j.close();
  }
}

const FORGE = `UPDATE incidents SET title = 'FORGED', site = 'irv', drill = 0, opened_by = '{"kind":"local","name":"mallory"}', status = 'closed', closed_by = '{"kind":"local","name":"mallory"}', closed_at = '${at}' WHERE id = 1;`;

test('a plain UPDATE of an incident row is refused by the database itself', () => {
  const path = journal();
  assert.throws(() => shell(path, FORGE), /projection of its events/);
  assert.throws(() => shell(path, "UPDATE incidents SET status = 'open', closed_by = NULL, closed_at = NULL WHERE id = 2;"), /projection of its events/);
  withJournal(path, (j) => assert.equal(j.incident(1)?.title, 'fv dark'));
});

test('a forged row (trigger dropped): verify names each field that differs; reads show the chain; the forged close blocks nothing', () => {
  const path = journal();
  shell(path, `DROP TRIGGER incidents_projection; ${FORGE}`);
  withJournal(path, (j) => {
    const r = j.verify();
    assert.equal(r.ok, false);
    if (r.ok) return;
    assert.equal(r.incident, 1);
    for (const field of ['title', 'site', 'drill', 'opened_by', 'status', 'closed_by', 'closed_at']) assert.match(r.why, new RegExp(`\\b${field}\\b`), field);
    assert.match(r.why, /"FORGED"/);
    assert.match(r.why, /"fv dark"/);
    assert.equal(j.verify(2).ok, true, 'the other incident holds');

    const i = j.incident(1)!;
    assert.deepEqual([i.title, i.site, i.drill, i.status, i.openedBy, i.closedBy], ['fv dark', 'fv', true, 'open', ana, undefined]);
    assert.ok(i.problems && i.problems.length > 0, 'the disagreement travels with the incident');
    assert.equal(j.newestOpen()?.id, 1, 'still the newest open incident');
    assert.deepEqual(j.incidents({ status: 'open' }).map((x) => x.id), [1]);
    // Real work goes on: the chain says open, so it closes once, for real.
    const closed = j.closeIncident(1, ana, at, 'power back');
    assert.equal(closed.ok, true);
    assert.deepEqual(j.incident(1)?.closedBy, ana);
  });
});

test('non-JSON values in an incident row: no crash; verify names them', () => {
  const path = journal();
  shell(path, "DROP TRIGGER incidents_projection; UPDATE incidents SET opened_by = 'not json{', closed_by = '{', title = x'00ff' WHERE id = 2;");
  withJournal(path, (j) => {
    assert.equal(j.incidents().length, 2);
    assert.equal(j.incident(2)?.title, 'ana gateway');
    const r = j.verify(2);
    assert.equal(r.ok, false);
    if (!r.ok) {
      assert.match(r.why, /opened_by/);
      assert.match(r.why, /closed_by/);
      assert.match(r.why, /title/);
    }
  });
});

test('an event whose payload is not JSON, its hash recomputed to match: verify reports it unreadable; reads say so clearly', () => {
  const path = journal();
  const row = JSON.parse(execFileSync(SQLITE3, ['-json', path, 'SELECT incident, seq, kind, actor, happened_at AS happenedAt, recorded_at AS recordedAt, step, payload, amends, dedupe, prev_hash AS prevHash FROM events WHERE incident = 1 AND seq = 6;'], { encoding: 'utf8' })) as [Record<string, unknown>];
  const hash = hashStored({ ...row[0], payload: 'garbage' } as never) as string;
  shell(path, `DROP TRIGGER events_no_update; UPDATE events SET payload = 'garbage', hash = '${hash}' WHERE incident = 1 AND seq = 6; DROP TRIGGER heads_forward; UPDATE heads SET hash = '${hash}' WHERE incident = 1;`);
  withJournal(path, (j) => {
    const r = j.verify(1);
    assert.equal(r.ok, false);
    if (!r.ok) {
      assert.deepEqual([r.incident, r.seq], [1, 6]);
      assert.match(r.why, /payload is not a JSON object/);
    }
    assert.throws(
      () => j.events(1),
      (e: unknown) => e instanceof JournalError && e.code === 'journal_damaged' && /incident #1, event 6/.test(e.message) && /seat journal verify 1/.test(e.message),
    );
  });
});

test('the head record: refused to change or delete; a deleted tail is found; appends to a cut chain are refused', () => {
  const path = journal();
  assert.throws(() => shell(path, 'UPDATE heads SET events = 4 WHERE incident = 1;'), /head/);
  assert.throws(() => shell(path, 'DELETE FROM heads WHERE incident = 1;'), /head/);
  shell(path, 'DROP TRIGGER events_no_delete; DELETE FROM events WHERE incident = 1 AND seq >= 5;');
  withJournal(path, (j) => {
    const r = j.verify();
    assert.equal(r.ok, false);
    if (!r.ok) {
      assert.deepEqual([r.incident, r.seq], [1, 5]);
      assert.match(r.why, /events 5 to 6 are missing/);
    }
    assert.throws(
      () => j.append({ incident: 1, kind: 'note', actor: ana, happenedAt: at, payload: { text: 'on top of a cut chain' } }),
      (e: unknown) => e instanceof JournalError && e.code === 'journal_damaged' && /seat journal verify 1/.test(e.message),
    );
  });
});

test('a tail deleted and the head record forged too: the chain holds, only a head kept elsewhere shows it', () => {
  const path = journal();
  const kept = withJournal(path, (j) => j.events(1).at(-1)!.hash);
  const four = withJournal(path, (j) => j.events(1)[3]!.hash);
  shell(path, `DROP TRIGGER events_no_delete; DELETE FROM events WHERE incident = 1 AND seq >= 5; DROP TRIGGER heads_forward; UPDATE heads SET events = 4, hash = '${four}' WHERE incident = 1;`);
  withJournal(path, (j) => {
    assert.equal(j.verify().ok, true, 'what a chain alone cannot see');
    assert.deepEqual(j.findHash(kept.slice(0, 8)), []);
    assert.deepEqual(j.findHash(four.slice(0, 10)), [{ incident: 1, seq: 4 }]);
  });
});

test('a journal of schema version 1 is migrated: its heads are filled in from its events and it verifies', () => {
  const path = journal();
  // Back to version 1 by hand, as an older seatbelt left it.
  shell(path, 'DROP TRIGGER heads_forward; DROP TRIGGER heads_no_delete; DROP TRIGGER heads_first; DROP TABLE heads; DROP TRIGGER incidents_projection; DROP TRIGGER events_close; DROP INDEX events_closed; PRAGMA user_version = 1;');
  withJournal(path, (j) => {
    assert.equal(j.verify().ok, true);
    j.append({ incident: 1, kind: 'note', actor: ana, happenedAt: at, payload: { text: 'after the upgrade' } });
    const r = j.verify();
    assert.ok(r.ok && r.heads.get(1) === j.events(1).at(-1)!.hash);
  });
  assert.throws(() => shell(path, 'UPDATE heads SET events = 4 WHERE incident = 1;'), /head/);
});
