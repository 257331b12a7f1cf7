// Edits behind the bot's back, made with the real sqlite3 shell as someone with the file would:
// drop the triggers, then change, remove or re-hash an event. `verify` names the incident and seq.
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Actor } from '../../src/incident/types.ts';
import { hashStored } from '../../src/journal/chain.ts';
import { openSqliteCore } from '../../src/journal/sqlite.ts';

const dir = mkdtempSync(join(tmpdir(), 'seatbelt-tamper-'));
after(() => rmSync(dir, { recursive: true, force: true }));

const SQLITE3 = '/usr/bin/sqlite3';
const ana: Actor = { kind: 'slack', id: 'U0ANA', name: 'ana' };
const at = '2025-03-01T14:05:00.000Z';
let files = 0;

/** Two incidents of six events each, closed again so the shell is the only writer. */
function journal(): string {
  const path = join(dir, `j${++files}.sqlite`);
  const j = openSqliteCore(path, { now: () => new Date(at) });
  for (const title of ['fv dark', 'ana gateway']) {
    const id = j.openIncident({ site: 'fv', title, actor: ana, at, drill: false }).incident.id;
    for (let n = 2; n <= 6; n++) j.append({ incident: id, kind: 'note', actor: ana, happenedAt: at, payload: { text: `note ${n}` } });
  }
  assert.equal(j.verify().ok, true);
  j.close();
  return path;
}

function shell(path: string, sql: string, ...flags: string[]): string {
  return execFileSync(SQLITE3, [...flags, path, sql], { encoding: 'utf8' });
}

const NO_TRIGGERS = 'DROP TRIGGER events_no_update; DROP TRIGGER events_no_delete;';

function verified(path: string, incident?: number) {
  const j = openSqliteCore(path);
  try {
    return j.verify(incident);
  } finally {
    j.close();
  }
}

test('the shell hits the triggers too while they are there', () => {
  const path = journal();
  assert.throws(() => execFileSync(SQLITE3, [path, "UPDATE events SET payload = '{}' WHERE seq = 3"], { stdio: 'pipe' }), /append-only/);
  assert.equal(verified(path).ok, true);
});

test('a changed payload: that incident and seq, "hash does not match its content"', () => {
  const path = journal();
  shell(path, `${NO_TRIGGERS} UPDATE events SET payload = '{"text":"note 4, but nicer"}' WHERE incident = 2 AND seq = 4;`);
  assert.deepEqual(verified(path), { ok: false, incident: 2, seq: 4, why: 'hash does not match its content', events: 9 });
  assert.equal(verified(path, 1).ok, true);
  assert.deepEqual(verified(path, 2), { ok: false, incident: 2, seq: 4, why: 'hash does not match its content', events: 3 });
});

test('a changed time, actor, kind or step is found the same way; a moved event leaves a gap', () => {
  const cases: [string, string][] = [
    ["happened_at = '2025-03-01T13:00:00.000Z'", 'hash does not match its content'],
    [`actor = '{"kind":"local","name":"mallory"}'`, 'hash does not match its content'],
    ["kind = 'step.done'", 'hash does not match its content'],
    ["step = 'power-log'", 'hash does not match its content'],
    ['incident = 2, seq = 7', 'seq 3 missing'],
  ];
  for (const [set, why] of cases) {
    const path = journal();
    shell(path, `${NO_TRIGGERS} UPDATE events SET ${set} WHERE incident = 1 AND seq = 3;`);
    const r = verified(path);
    assert.deepEqual(r.ok ? r : [r.incident, r.seq, r.why], [1, 3, why], set);
  }
});

test('a deleted middle event: "seq N missing"', () => {
  const path = journal();
  shell(path, `${NO_TRIGGERS} DELETE FROM events WHERE incident = 1 AND seq = 3;`);
  assert.deepEqual(verified(path), { ok: false, incident: 1, seq: 3, why: 'seq 3 missing', events: 2 });
});

test('a rewrite that also recomputes the event\'s own hash breaks the next event\'s link', () => {
  const path = journal();
  const row = JSON.parse(shell(path, 'SELECT incident, seq, kind, actor, happened_at AS happenedAt, recorded_at AS recordedAt, step, payload, amends, dedupe, prev_hash AS prevHash FROM events WHERE incident = 1 AND seq = 3;', '-json')) as [Record<string, unknown>];
  const payload = '{"text":"nothing happened"}';
  const hash = hashStored({ ...row[0], payload } as never) as string;
  shell(path, `${NO_TRIGGERS} UPDATE events SET payload = '${payload}', hash = '${hash}' WHERE incident = 1 AND seq = 3;`);
  assert.deepEqual(verified(path), { ok: false, incident: 1, seq: 4, why: 'prev_hash does not match the previous event', events: 3 });
});

test('an incident whose events were all removed, or whose row was, is named', () => {
  const path = journal();
  shell(path, `${NO_TRIGGERS} DELETE FROM events WHERE incident = 2;`);
  assert.deepEqual(verified(path), { ok: false, incident: 2, seq: 1, why: 'seq 1 missing: the incident has no events', events: 6 });
  const other = journal();
  // The shell runs with foreign keys off, so the events can outlive their incident's row.
  shell(other, 'DROP TRIGGER incidents_no_delete; DELETE FROM incidents WHERE id = 1;');
  const r = verified(other);
  assert.equal(r.ok, false);
  if (!r.ok) assert.deepEqual([r.incident, r.why], [1, 'the incident itself is missing: its row was deleted']);
});
