// The SQLite journal on real files: what goes in reads back exactly, the chain holds, the triggers
// refuse edits, a replay records once, a stale button loses to the first click.
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import type { Actor, EventInput } from '../../src/incident/types.ts';
import { GENESIS, hashEvent } from '../../src/journal/chain.ts';
import { canonicalJson } from '../../src/probes/canonical.ts';
import { JOURNAL_SCHEMA_VERSION, openSqliteCore } from '../../src/journal/sqlite.ts';
import { JournalError, type SyncJournalStore } from '../../src/journal/store.ts';

const dir = mkdtempSync(join(tmpdir(), 'seatbelt-journal-'));
after(() => rmSync(dir, { recursive: true, force: true }));

const ana: Actor = { kind: 'slack', id: 'U0ANA', name: 'ana' };
const ben: Actor = { kind: 'local', name: 'ben' };
let files = 0;

/** A fresh journal on a clock that ticks one second per read. */
function fresh(): SyncJournalStore {
  let t = Date.parse('2025-03-01T14:00:00.000Z');
  return openSqliteCore(join(dir, `j${++files}`, 'journal.sqlite'), { now: () => new Date((t += 1000)) });
}

function opened(j: SyncJournalStore, title = 'fv dark after the storm'): number {
  return j.openIncident({ site: 'fv', title, actor: ana, at: '2025-03-01T13:59:00.000Z', drill: false }).incident.id;
}

const at = '2025-03-01T14:05:00.000Z';
const note = (incident: number, text: string, more: Partial<EventInput> = {}): EventInput => ({ incident, kind: 'note', actor: ana, happenedAt: at, payload: { text }, ...more });
const done = (incident: number, actor: Actor, dedupe?: string): EventInput => ({ incident, kind: 'step.done', actor, happenedAt: at, step: 'power-log', payload: { evidence: { kind: 'value', of: 'power-log', value: 'ok' } }, ...(dedupe ? { dedupe } : {}) });

function appended(j: SyncJournalStore, e: EventInput) {
  const r = j.append(e);
  assert.ok(r.ok, 'append refused');
  return r.event;
}

test('an incident opens with its first event; the chain starts at genesis and links each event to the last', () => {
  const j = fresh();
  const r = j.openIncident({ site: 'fv', title: 'fv dark', actor: ana, at: '2025-03-01T13:59:00.000Z', drill: true, slack: { channel: 'C0INC', thread: '1700.01' } });
  assert.equal(r.duplicate, false);
  assert.deepEqual(r.incident, { id: 1, site: 'fv', title: 'fv dark', status: 'open', openedBy: ana, openedAt: '2025-03-01T13:59:00.000Z', drill: true, slack: { channel: 'C0INC', thread: '1700.01' } });
  assert.equal(r.event.seq, 1);
  assert.equal(r.event.kind, 'incident.opened');
  assert.deepEqual(r.event.payload, { site: 'fv', title: 'fv dark', drill: true });
  assert.equal(r.event.prevHash, GENESIS);
  assert.equal(r.event.recordedAt, '2025-03-01T14:00:01.000Z');
  const a = appended(j, note(1, 'one'));
  const b = appended(j, note(1, 'two'));
  assert.equal(a.prevHash, r.event.hash);
  assert.equal(b.prevHash, a.hash);
  for (const e of [r.event, a, b]) assert.equal(e.hash, hashEvent(e));
  const v = j.verify();
  assert.deepEqual(v, { ok: true, incidents: 1, events: 3, heads: new Map([[1, b.hash]]) });
  j.close();
});

test('events read back equal what was appended, and incidents list newest first', () => {
  const j = fresh();
  const one = opened(j);
  const two = opened(j, 'ana gateway 401s');
  const mine = [
    appended(j, note(one, 'first')),
    appended(j, { incident: one, kind: 'step.skipped', actor: ben, happenedAt: at, step: 'bmc', payload: { reason: 'no BMC at fv' }, dedupe: 'T-1' }),
    appended(j, { incident: one, kind: 'correction', actor: { kind: 'system' }, happenedAt: at, payload: { text: 'it was 14:03', fields: { happenedAt: '2025-03-01T14:03:00.000Z' } }, amends: 2 }),
    appended(j, { incident: one, kind: 'probe.report', actor: { kind: 'probe' }, happenedAt: at, payload: { report: { findings: [{ n: 1.5, ok: true, none: null, deep: [[1], [2, { x: 'y' }]] }] } } }),
  ];
  const back = j.events(one);
  assert.deepEqual(back.slice(1), mine);
  assert.deepEqual(j.events(one, { fromSeq: 4 }), mine.slice(2));
  assert.deepEqual(j.events(two).map((e) => e.seq), [1]);
  assert.deepEqual(j.incidents().map((i) => i.id), [two, one]);
  assert.deepEqual(j.incidents({ limit: 1 }).map((i) => i.id), [two]);
  assert.equal(j.newestOpen()?.id, two);
  assert.equal(j.incident(99), undefined);
  assert.equal(j.verify(one).ok, true);
  j.close();
});

test('free text round-trips byte for byte: emoji, quotes, right-to-left, newlines, 10 KB', () => {
  const j = fresh();
  const title = 'UPS 🔥 "tripped" \'again\' — قطع التيار\r\n停電\t\\ `rm -rf` $(x) \u0000 end';
  const id = opened(j, title);
  const long = 'ش🙂"\n'.repeat(2000); // 10,000 characters, well over 10 KB in UTF-8
  const e = appended(j, note(id, long));
  j.close();
  const again = openSqliteCore(j.path);
  assert.equal(again.incident(id)?.title, title);
  const [first, second] = again.events(id);
  assert.equal(first?.payload.title, title);
  assert.equal(second?.payload.text, long);
  assert.equal(Buffer.compare(Buffer.from(String(second?.payload.text)), Buffer.from(long)), 0);
  assert.equal(second?.hash, e.hash);
  assert.equal(again.verify().ok, true);
  again.close();
});

test('the stored payload is canonicalJson of what was given, to the byte', () => {
  const j = fresh();
  const id = opened(j);
  const payloads: Record<string, unknown>[] = [
    { z: 1, a: { y: [1, { d: 2, c: 3 }], x: 'é\n' }, u: undefined, '': 0 },
    { n: -0, big: 1e21, small: 5e-324, neg: -1.5, list: [[], {}, [null, true, false]] },
    { Z: 1, a: 2, é: 3, 'a b': 4, '10': 5, '9': 6, '\u{1F525}': 7, '\uFF00': 8 },
    { s: 'lone \uD800 surrogate stays escaped', nested: { deeper: { deepest: ['x'] } } },
    Object.assign(Object.create(null) as Record<string, unknown>, { b: 1, a: 2 }),
  ];
  for (const payload of payloads) appended(j, { ...note(id, ''), payload });
  j.close();
  const db = new Database(j.path, { readonly: true });
  const stored = db.prepare('SELECT payload FROM events WHERE incident = ? AND seq > 1 ORDER BY seq').pluck().all(id);
  db.close();
  assert.deepEqual(stored, payloads.map((p) => canonicalJson(p)));
  const again = openSqliteCore(j.path);
  for (const e of again.events(id)) assert.equal(hashEvent(e), e.hash);
  assert.equal(again.events(id)[4]?.payload.s, 'lone \uD800 surrogate stays escaped');
  again.close();
});

test('UPDATE and DELETE of an event are refused by the triggers; an incident cannot be deleted', () => {
  const j = fresh();
  opened(j);
  j.close();
  const db = new Database(j.path);
  assert.throws(() => db.prepare("UPDATE events SET payload = '{}' WHERE seq = 1").run(), /append-only: an event cannot be changed/);
  assert.throws(() => db.prepare('DELETE FROM events').run(), /append-only: an event cannot be deleted/);
  assert.throws(() => db.prepare('DELETE FROM incidents').run(), /append-only: an incident cannot be deleted/);
  db.close();
});

test('the same dedupe key twice records once and hands back the first', () => {
  const j = fresh();
  const id = opened(j);
  const a = j.append(done(id, ana, 'slack-action-1'));
  const b = j.append(done(id, ben, 'slack-action-1'));
  assert.ok(a.ok && b.ok);
  assert.equal(a.duplicate, false);
  assert.equal(b.duplicate, true);
  assert.deepEqual(b.event, a.event);
  assert.equal(j.events(id).length, 2);
  // A replayed open opens one incident.
  const o = { site: 'fv', title: 't', actor: ana, at, drill: false, dedupe: 'trigger-9' };
  const first = j.openIncident(o);
  const again = j.openIncident(o);
  assert.equal(again.duplicate, true);
  assert.deepEqual(again.incident, first.incident);
  assert.equal(j.incidents().length, 2);
  // appendMany: a key seen earlier in the batch, or before it, is the first event again.
  const many = j.appendMany([note(id, 'x', { dedupe: 'k1' }), note(id, 'x again', { dedupe: 'k1' }), note(id, 'y', { dedupe: 'slack-action-1' })]);
  assert.deepEqual(many.map((e) => e.seq), [3, 3, 2]);
  j.close();
});

test('compare-and-set: two clicks on the same button version, the first records and the second names who won', () => {
  const j = fresh();
  const id = opened(j);
  assert.deepEqual(j.stepVersion(id, 'power-log'), { version: 0 });
  const first = j.append(done(id, ana), { step: 'power-log', version: 0 });
  const second = j.append(done(id, ben), { step: 'power-log', version: 0 });
  assert.ok(first.ok);
  assert.deepEqual(second, { ok: false, conflict: { step: 'power-log', version: 1, by: ana, at: first.event.recordedAt, kind: 'step.done' } });
  assert.equal(j.events(id).length, 2);
  const v = j.stepVersion(id, 'power-log');
  assert.equal(v.version, 1);
  assert.deepEqual(v.last, first.event);
  // A note on the step does not move its version; a current expectation records.
  appended(j, note(id, 'fyi', { step: 'power-log' }));
  assert.equal(j.append(done(id, ben), { step: 'power-log', version: 1 }).ok, true);
  assert.throws(() => j.append(done(id, ben), { step: 'other', version: 0 }), /expectation is about step "other"/);
  j.close();
});

test('a correction must name an existing seq in its incident; only a correction amends', () => {
  const j = fresh();
  const id = opened(j);
  const other = opened(j);
  appended(j, note(other, 'a'));
  appended(j, note(other, 'b'));
  const correction = (amends?: number): EventInput => ({ incident: id, kind: 'correction', actor: ana, happenedAt: at, payload: { text: 'typo' }, ...(amends === undefined ? {} : { amends }) });
  assert.throws(() => j.append(correction(3)), (e: unknown) => e instanceof JournalError && e.code === 'bad_event' && /incident #1 has no event 3 to amend/.test(e.message));
  assert.throws(() => j.append(correction()), /must name the seq/);
  assert.throws(() => j.append(correction(0)), /must name the seq/);
  assert.throws(() => j.append(note(id, 'x', { amends: 1 })), /only a correction amends/);
  assert.equal(appended(j, correction(1)).amends, 1);
  assert.equal(j.events(id).length, 2);
  j.close();
});

test('payloads that are not JSON data are refused with where and why; nothing is written', () => {
  const j = fresh();
  const id = opened(j);
  const refuses = (payload: Record<string, unknown>, why: RegExp) => assert.throws(() => j.append({ ...note(id, ''), payload }), (e: unknown) => e instanceof JournalError && why.test(e.message));
  refuses({ f: () => 1 }, /payload\.f is a function/);
  refuses({ a: [1, undefined] }, /payload\.a\[1\] is undefined/);
  refuses({ a: [1, , 3] }, /payload\.a\[1\] is a hole/);
  refuses({ n: { 'odd key': NaN } }, /payload\.n\["odd key"\] is NaN/);
  refuses({ n: Infinity }, /is Infinity/);
  refuses({ b: 10n }, /payload\.b is a bigint/);
  refuses({ d: new Date(0) }, /payload\.d is a Date/);
  refuses({ m: new Map() }, /is a Map/);
  const cyclic: Record<string, unknown> = {};
  cyclic.self = cyclic;
  refuses(cyclic, /nested more than 64 deep/);
  // An undefined field is simply absent, as in JSON.
  assert.deepEqual(appended(j, { ...note(id, ''), payload: { text: 'x', gone: undefined } }).payload, { text: 'x' });
  assert.throws(() => j.append({ ...note(id, ''), happenedAt: '2025-03-01 14:00' }), /UTC ISO-8601/);
  assert.throws(() => j.append({ ...note(id, ''), kind: 'nope' as never }), /unknown event kind "nope"/);
  assert.throws(() => j.append({ ...note(id, ''), actor: { kind: 'slack' } as never }), /Slack id must be a non-empty string/);
  assert.throws(() => j.append(note(42, 'x')), (e: unknown) => e instanceof JournalError && e.code === 'no_incident' && e.message === 'there is no incident #42');
  assert.throws(() => j.append({ ...note(id, ''), kind: 'incident.opened' }), /opened once/);
  assert.equal(j.events(id).length, 2);
  j.close();
});

test('payload size is capped per kind: 64 KiB for what people type, 8 MiB for a probe report', () => {
  const j = fresh();
  const id = opened(j);
  assert.throws(() => j.append(note(id, 'x'.repeat(70_000))), (e: unknown) => e instanceof JournalError && e.code === 'too_large' && /note payload is over 70,0\d\d bytes.*64 KiB/.test(e.message));
  // Counted in UTF-8 bytes: 22,000 three-byte characters are 66,000 bytes.
  assert.throws(() => j.append(note(id, '停'.repeat(22_000))), /66,0\d\d bytes serialised; the most for a note is 64 KiB/);
  const report = { incident: id, kind: 'probe.report' as const, actor: { kind: 'probe' } as Actor, happenedAt: at, payload: { report: { blob: 'f'.repeat(5 * 2 ** 20) } } };
  assert.equal(appended(j, report).seq, 2);
  assert.throws(() => j.append({ ...report, payload: { report: { blob: 'f'.repeat(9 * 2 ** 20) } } }), /the most for a probe\.report is 8,192 KiB/);
  j.close();
});

test('closing: the event and the status together; a second close is refused, a replayed one is not', () => {
  const j = fresh();
  const id = opened(j);
  const r = j.closeIncident(id, ben, '2025-03-01T15:00:00.000Z', 'power back', 'close-1');
  assert.ok(r.ok);
  assert.deepEqual(r.event.payload, { reason: 'power back' });
  const i = j.incident(id);
  assert.equal(i?.status, 'closed');
  assert.deepEqual(i?.closedBy, ben);
  assert.equal(i?.closedAt, '2025-03-01T15:00:00.000Z');
  assert.equal(j.newestOpen(), undefined);
  assert.deepEqual(j.incidents({ status: 'closed' }).map((x) => x.id), [id]);
  const replay = j.closeIncident(id, ben, '2025-03-01T15:00:00.000Z', 'power back', 'close-1');
  assert.ok(replay.ok && replay.duplicate);
  assert.throws(() => j.closeIncident(id, ana, at), (e: unknown) => e instanceof JournalError && e.code === 'already_closed');
  j.close();
});

test('Slack threads: set once per incident, found by thread, never shared', () => {
  const j = fresh();
  const a = opened(j);
  const b = opened(j);
  j.setSlackThread(a, 'C0INC', '1700.5');
  assert.equal(j.incidentByThread('C0INC', '1700.5')?.id, a);
  assert.equal(j.incidentByThread('C0INC', '1700.6'), undefined);
  assert.throws(() => j.setSlackThread(b, 'C0INC', '1700.5'), /already belongs to incident #1/);
  assert.throws(() => j.setSlackThread(9, 'C0INC', '1'), /no incident #9/);
  j.close();
});

test('appendMany writes a batch in one transaction: all or nothing', () => {
  const j = fresh();
  const id = opened(j);
  const batch = Array.from({ length: 50 }, (_, i) => note(id, `finding ${i}`));
  const events = j.appendMany(batch);
  assert.deepEqual(events.map((e) => e.seq), Array.from({ length: 50 }, (_, i) => i + 2));
  assert.ok(new Set(events.map((e) => e.recordedAt)).size === 1, 'one commit, one recorded time');
  assert.throws(() => j.appendMany([note(id, 'fine'), note(77, 'no such incident')]), /no incident #77/);
  assert.throws(() => j.appendMany([note(id, 'fine'), { ...note(id, ''), payload: { x: NaN } }]), /event 2 of 2: payload\.x is NaN/);
  assert.equal(j.events(id).length, 51);
  assert.deepEqual(j.appendMany([]), []);
  assert.equal(j.verify().ok, true);
  j.close();
});

test('a long batch across two incidents, with a repeated key and a correction of an event in the same batch', () => {
  const j = fresh();
  const a = opened(j);
  const b = opened(j);
  const batch: EventInput[] = [];
  for (let i = 0; i < 40; i++) batch.push(note(i % 2 ? b : a, `n${i}`, i === 3 ? { dedupe: 'once' } : {}));
  batch.push(note(a, 'again', { dedupe: 'once' }));
  batch.push({ incident: b, kind: 'correction', actor: ben, happenedAt: at, payload: { text: 'n39 meant n38' }, amends: 21 });
  const events = j.appendMany(batch);
  assert.equal(events.length, 42);
  assert.deepEqual(events[40], events[3]);
  assert.deepEqual(events[41]?.seq, 22);
  const recorded = events.filter((_, i) => i !== 40);
  assert.deepEqual(j.events(a).slice(1), recorded.filter((e) => e.incident === a));
  assert.deepEqual(j.events(b).slice(1), recorded.filter((e) => e.incident === b));
  assert.deepEqual(j.verify(), { ok: true, incidents: 2, events: 43, heads: new Map([[a, events[38]?.hash], [b, events[41]?.hash]]) });
  j.close();
});

test('appendMany hands back what reads back: the caller\'s payload when exact, a copy when not', () => {
  const j = fresh();
  const id = opened(j);
  const exact = { text: 'as is', list: [1, 2] };
  const sparse = { text: 'gone', gone: undefined, zero: -0 };
  const [a, b] = j.appendMany([note(id, '', { payload: exact }), note(id, '', { payload: sparse })]);
  assert.equal(a?.payload, exact);
  assert.notEqual(b?.payload, sparse);
  assert.deepEqual(j.events(id, { fromSeq: 2 }), [a, b]);
  j.close();
});

test('two connections on one file take turns; one held too long is reported as busy, nothing written', () => {
  const j = fresh();
  const id = opened(j);
  const other = openSqliteCore(j.path, { busyTimeoutMs: 50 });
  assert.equal(appended(other, note(id, 'from the terminal')).seq, 2);
  assert.equal(appended(j, note(id, 'from the bot')).seq, 3);
  const holder = new Database(j.path);
  holder.exec('BEGIN IMMEDIATE');
  assert.throws(() => other.append(note(id, 'waits')), (e: unknown) => e instanceof JournalError && e.code === 'journal_busy' && /another process held it too long; nothing was written/.test(e.message));
  holder.exec('ROLLBACK');
  holder.close();
  assert.equal(appended(other, note(id, 'now')).seq, 4);
  other.close();
  j.close();
});

test('pragmas: WAL, synchronous FULL, a busy timeout, foreign keys; a private folder and file', () => {
  const j = fresh();
  j.close();
  const db = new Database(j.path);
  assert.equal(db.pragma('journal_mode', { simple: true }), 'wal');
  db.close();
  // synchronous, busy_timeout and foreign_keys are per connection: read them on the store's own.
  const store = openSqliteCore(j.path) as unknown as { db: Database.Database; close(): void };
  assert.equal(store.db.pragma('synchronous', { simple: true }), 2);
  assert.equal(store.db.pragma('busy_timeout', { simple: true }), 5000);
  assert.equal(store.db.pragma('foreign_keys', { simple: true }), 1);
  store.close();
  assert.equal(statSync(join(j.path, '..')).mode & 0o777, 0o700);
  assert.equal(statSync(j.path).mode & 0o777, 0o600);
});

test('migrations: a fresh file gets the current version; a newer file is refused and left as it was', () => {
  const j = fresh();
  j.close();
  const db = new Database(j.path);
  assert.equal(db.pragma('user_version', { simple: true }), JOURNAL_SCHEMA_VERSION);
  db.pragma(`user_version = ${JOURNAL_SCHEMA_VERSION + 1}`);
  db.close();
  assert.throws(
    () => openSqliteCore(j.path),
    (e: unknown) => e instanceof JournalError && e.code === 'journal_newer' && e.message.includes(`schema version ${JOURNAL_SCHEMA_VERSION + 1}, written by a newer seatbelt; this one knows up to version ${JOURNAL_SCHEMA_VERSION}`),
  );
  const check = new Database(j.path);
  assert.equal(check.pragma('user_version', { simple: true }), JOURNAL_SCHEMA_VERSION + 1);
  check.close();
});

test('a file that is not a journal is refused in words, not a stack trace', () => {
  const other = join(dir, 'other.sqlite');
  const db = new Database(other);
  db.exec('CREATE TABLE bookmarks (url TEXT)');
  db.close();
  assert.throws(() => openSqliteCore(other), /not a seatbelt journal: it holds other tables \(bookmarks\)/);
  assert.throws(() => openSqliteCore(dir), /not a regular file/);
});
