// The PostgreSQL journal on a real PostgreSQL 15 cluster (one per file, on a loopback port): the
// same events give the same hashes and the same verify answer as SQLite; two store instances
// appending at once never fork a chain, nor two taking turns on stale heads; a dedupe key records
// once and a stale step version loses across instances; the bot role may only INSERT and SELECT;
// migrate is idempotent; copy from SQLite keeps every hash.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import postgres from 'postgres';
import type { Actor, AppendResult, EventInput } from '../../src/incident/types.ts';
import { journalCopy, journalMigrate } from '../../src/cli/journal-admin.ts';
import { openPostgresJournal } from '../../src/journal/postgres.ts';
import { PG_SCHEMA_VERSION } from '../../src/journal/pg/schema.ts';
import { openSqliteCore } from '../../src/journal/sqlite.ts';
import { JournalError, type JournalStore, type SyncJournalStore } from '../../src/journal/store.ts';
import { pgMissing, startCluster, type PgCluster } from '../helpers/pg-cluster.ts';

const missing = pgMissing();
const dir = mkdtempSync(join(tmpdir(), 'seatbelt-pgtest-'));
let cluster: PgCluster;
let dbs = 0;

before(async () => {
  if (!missing) cluster = await startCluster();
});
after(async () => {
  await cluster?.stop();
  rmSync(dir, { recursive: true, force: true });
});

const ana: Actor = { kind: 'slack', id: 'U0ANA', name: 'ana' };
const ben: Actor = { kind: 'local', name: 'ben' };
const at = '2025-03-01T14:05:00.000Z';
const note = (incident: number, text: string): EventInput => ({ incident, kind: 'note', actor: ana, happenedAt: at, payload: { text } });
const done = (incident: number, actor: Actor, dedupe?: string): EventInput => ({ incident, kind: 'step.done', actor, happenedAt: at, step: 'power-log', payload: { evidence: { kind: 'value', of: 'power-log', value: 'ok' } }, ...(dedupe ? { dedupe } : {}) });

function io(env: NodeJS.ProcessEnv = {}) {
  let out = '';
  let err = '';
  return { io: { stdout: { write: (s: string | Uint8Array) => (out += String(s)) }, stderr: { write: (s: string) => (err += s) }, env }, out: () => out, err: () => err };
}

/** A migrated database of its own; its owner and bot URLs. */
async function freshDb(): Promise<{ owner: string; bot: string }> {
  const db = `seat_t${++dbs}`;
  await cluster.createDb(db);
  const owner = cluster.url('seat_owner', { db });
  const m = io();
  assert.equal(await journalMigrate(['--journal', owner], m.io), 0, m.err());
  return { owner, bot: cluster.url('seat_bot', { db }) };
}

function clock(): () => Date {
  let t = Date.parse('2025-03-01T14:00:00.000Z');
  return () => new Date((t += 1000));
}

/** The same walk of an incident, on either store. */
async function walk(j: { openIncident: JournalStore['openIncident']; append: JournalStore['append']; appendMany: JournalStore['appendMany']; closeIncident: JournalStore['closeIncident'] }): Promise<string[]> {
  const hashes: string[] = [];
  const o = await j.openIncident({ site: 'fv', title: 'fv dark after the storm ✓', actor: ana, at: '2025-03-01T13:59:00.000Z', drill: true, slack: { channel: 'C0INC', thread: '1700.01' } });
  hashes.push(o.event.hash);
  const id = o.incident.id;
  for (const e of [note(id, 'one'), note(id, 'two — naïve "quoted"')]) {
    const r = await j.append(e);
    assert.ok(r.ok);
    hashes.push(r.event.hash);
  }
  const d = await j.append(done(id, ben, 'click-1'), { step: 'power-log', version: 0 });
  assert.ok(d.ok);
  hashes.push(d.event.hash);
  const many = await j.appendMany([
    { incident: id, kind: 'evidence', actor: { kind: 'probe' }, happenedAt: at, payload: { n: 1, x: [1, 2.5, null, true], nested: { b: 1, a: 'é' } } },
    { incident: id, kind: 'correction', actor: ana, happenedAt: at, amends: 2, payload: { text: 'one was wrong' } },
    { incident: id, kind: 'evidence', actor: { kind: 'system' }, happenedAt: at, payload: { n: 2 } },
  ]);
  hashes.push(...many.map((e) => e.hash));
  const c = await j.closeIncident(id, ana, '2025-03-01T15:00:00.000Z', 'power back');
  assert.ok(c.ok);
  hashes.push(c.event.hash);
  return hashes;
}

test('the same events give the same hashes and the same verify answer on SQLite and PostgreSQL, and a forged row or a cut tail is found alike', { skip: missing }, async () => {
  const { owner, bot } = await freshDb();
  const core: SyncJournalStore = openSqliteCore(join(dir, 'parity.sqlite'), { now: clock() });
  const sync = { openIncident: async (o: Parameters<SyncJournalStore['openIncident']>[0]) => core.openIncident(o), append: async (e: EventInput, x?: { step: string; version: number }) => core.append(e, x), appendMany: async (es: EventInput[]) => core.appendMany(es), closeIncident: async (...a: Parameters<SyncJournalStore['closeIncident']>) => core.closeIncident(...a) };
  const pg = await openPostgresJournal(bot, { now: clock() });
  try {
    const a = await walk(sync);
    const b = await walk(pg);
    assert.deepEqual(b, a);
    assert.deepEqual(await pg.verify(), core.verify());
    assert.deepEqual(await pg.events(1), core.events(1));
    assert.deepEqual(await pg.incident(1), core.incident(1));
    assert.deepEqual(await pg.stepVersion(1, 'power-log'), core.stepVersion(1, 'power-log'));
    assert.deepEqual(await pg.findHash(a[3]!.slice(0, 12)), core.findHash(a[3]!.slice(0, 12)));

    // Forged: event 3's payload changed by someone who dropped the trigger (the owner, on PostgreSQL).
    const file = new Database(join(dir, 'parity.sqlite'));
    const sql = postgres(owner, { max: 1, onnotice: () => undefined, fetch_types: false });
    try {
      file.exec("DROP TRIGGER events_no_update; UPDATE events SET payload = '{\"text\":\"three\"}' WHERE incident = 1 AND seq = 3");
      await sql.unsafe("DROP TRIGGER events_no_update ON events; UPDATE events SET payload = '{\"text\":\"three\"}' WHERE incident = 1 AND seq = 3");
      const forged = core.verify();
      assert.equal(forged.ok, false);
      assert.deepEqual(await pg.verify(), forged);
      // Put back, then the tail cut: the head record names what is gone.
      file.exec("UPDATE events SET payload = '{\"text\":\"two — naïve \\\"quoted\\\"\"}' WHERE incident = 1 AND seq = 3");
      await sql.unsafe("UPDATE events SET payload = '{\"text\":\"two — naïve \\\"quoted\\\"\"}' WHERE incident = 1 AND seq = 3");
      assert.equal(core.verify().ok, true);
      assert.equal((await pg.verify()).ok, true);
      file.exec('DROP TRIGGER events_no_delete; DELETE FROM events WHERE incident = 1 AND seq >= 7');
      await sql.unsafe('DROP TRIGGER events_no_delete ON events; DELETE FROM events WHERE incident = 1 AND seq >= 7');
      const cut = core.verify();
      assert.equal(cut.ok, false);
      assert.match((cut as { why: string }).why, /missing: the head record says 8 events/);
      assert.deepEqual(await pg.verify(), cut);
      // And an append onto the cut chain is refused alike.
      await assert.rejects(pg.append(note(1, 'after the cut')), (e: unknown) => e instanceof JournalError && e.code === 'journal_damaged');
    } finally {
      file.close();
      await sql.end();
    }
  } finally {
    core.close();
    await pg.close();
  }
});

test('two store instances appending to one incident at once never fork its chain: seqs 1..N, the chain verifies', { skip: missing }, async () => {
  const { bot } = await freshDb();
  const a = await openPostgresJournal(bot);
  const b = await openPostgresJournal(bot);
  try {
    const id = (await a.openIncident({ site: 'fv', title: 'race', actor: ana, at, drill: false })).incident.id;
    const results = await Promise.all(Array.from({ length: 200 }, (_, i) => (i % 2 === 0 ? a : b).append(note(id, `n${i}`))));
    assert.ok(results.every((r) => r.ok));
    const events = await b.events(id);
    assert.deepEqual(events.map((e) => e.seq), Array.from({ length: 201 }, (_, i) => i + 1));
    for (let i = 1; i < events.length; i++) assert.equal(events[i]!.prevHash, events[i - 1]!.hash);
    const v = await a.verify();
    assert.equal(v.ok, true);
    assert.equal(v.ok && v.events, 201);
    // Batches from both at once too.
    await Promise.all([a, b].map((j, k) => j.appendMany(Array.from({ length: 50 }, (_, i) => note(id, `batch ${k}.${i}`)))));
    assert.equal((await a.verify()).ok, true);
    assert.equal((await a.events(id)).length, 301);
  } finally {
    await a.close();
    await b.close();
  }
});

test('verify while another replica appends never takes the appends for a cut chain: one snapshot for the events and the head records', { skip: missing }, async () => {
  const { bot } = await freshDb();
  const a = await openPostgresJournal(bot);
  const b = await openPostgresJournal(bot);
  try {
    const id = (await a.openIncident({ site: 'fv', title: 'verify during appends', actor: ana, at, drill: false })).incident.id;
    let appending = true;
    const writer = (async () => {
      for (let i = 0; i < 300; i++) assert.ok((await a.append(note(id, `w${i}`))).ok);
      appending = false;
    })();
    const seen: string[] = [];
    while (appending) {
      const v = await b.verify(id);
      if (!v.ok) seen.push(`event ${v.seq}: ${v.why}`);
      const all = await b.verify();
      if (!all.ok) seen.push(`all, event ${all.seq}: ${all.why}`);
    }
    await writer;
    assert.deepEqual(seen, [], 'no verify saw a break');
    assert.equal((await b.verify(id)).ok, true);
  } finally {
    await a.close();
    await b.close();
  }
});

test('two replicas appending to one incident by turns, each on a stale head, make one chain: no decision lost or doubled, versions and amends seen across', { skip: missing }, async () => {
  const { bot } = await freshDb();
  const a = await openPostgresJournal(bot);
  const b = await openPostgresJournal(bot);
  try {
    const id = (await a.openIncident({ site: 'fv', title: 'turns', actor: ana, at, drill: false })).incident.id;
    // Each append lands on the replica that did not make the one before: the other's head is never the one it saw last.
    const made: string[] = [];
    for (let i = 0; i < 40; i++) {
      const j = i % 2 === 0 ? b : a;
      const r: AppendResult = i % 4 === 3
        ? await j.append(done(id, i % 2 === 0 ? ana : ben, `turn-${i}`), { step: 'power-log', version: (i + 1) / 4 - 1 })
        : await j.append({ ...note(id, `turn ${i}`), dedupe: `turn-${i}` });
      assert.ok(r.ok && !r.duplicate, `turn ${i} was not recorded as new`);
      assert.equal(r.event.seq, i + 2);
      made.push(r.event.hash);
    }
    // A correction of the other replica's newest event (past the head this one saw); a click
    // redelivered to the other replica; a stale version, told who decided last.
    const fix = await b.append({ incident: id, kind: 'correction', actor: ana, happenedAt: at, amends: 41, payload: { text: 'turn 39 was wrong' } });
    assert.ok(fix.ok && fix.event.seq === 42);
    const again = await a.append({ ...note(id, 'turn 38'), dedupe: 'turn-38' });
    assert.ok(again.ok && again.duplicate);
    assert.equal(again.event.hash, made[38]);
    const stale = await a.append(done(id, ana), { step: 'power-log', version: 9 });
    assert.ok(!stale.ok);
    assert.equal(stale.conflict.version, 10);
    assert.deepEqual(stale.conflict.by, ben);
    const closed = await b.closeIncident(id, ben, at, 'done');
    assert.ok(closed.ok);
    await assert.rejects(a.closeIncident(id, ana, at), (e: unknown) => e instanceof JournalError && e.code === 'already_closed');

    const c = await openPostgresJournal(bot);
    try {
      const events = await c.events(id);
      assert.deepEqual(events.map((e) => e.seq), Array.from({ length: 43 }, (_, i) => i + 1));
      for (let i = 1; i < events.length; i++) assert.equal(events[i]!.prevHash, events[i - 1]!.hash);
      assert.deepEqual(events.slice(1, 41).map((e) => e.hash), made);
      const keys = events.flatMap((e) => (e.dedupe === undefined ? [] : [e.dedupe]));
      assert.deepEqual(keys, Array.from({ length: 40 }, (_, i) => `turn-${i}`));
      assert.equal((await c.stepVersion(id, 'power-log')).version, 10);
      const v = await c.verify(id);
      assert.equal(v.ok, true);
      assert.equal(v.ok && v.events, 43);
    } finally {
      await c.close();
    }
  } finally {
    await a.close();
    await b.close();
  }
});

test('one dedupe key from two instances records once, and the stale step version loses on the other instance, told who won', { skip: missing }, async () => {
  const { bot } = await freshDb();
  const a = await openPostgresJournal(bot);
  const b = await openPostgresJournal(bot);
  try {
    const id = (await a.openIncident({ site: 'fv', title: 'clicks', actor: ana, at, drill: false, dedupe: 'open-1' })).incident.id;
    const again = await b.openIncident({ site: 'fv', title: 'clicks', actor: ana, at, drill: false, dedupe: 'open-1' });
    assert.equal(again.duplicate, true);
    assert.equal(again.incident.id, id);
    const [r1, r2] = await Promise.all([a.append(note(id, 'x'), undefined), b.append({ ...note(id, 'x'), dedupe: 'slack-retry-7' })]);
    assert.ok(r1.ok && r2.ok);
    const [d1, d2] = await Promise.all([a.append({ ...note(id, 'y'), dedupe: 'click-9' }), b.append({ ...note(id, 'y'), dedupe: 'click-9' })]);
    assert.ok(d1.ok && d2.ok);
    assert.equal(d1.event.hash, d2.event.hash);
    assert.equal([d1.duplicate, d2.duplicate].filter(Boolean).length, 1);
    // Two people decide the step at version 0 on two instances: one wins, the other is told who.
    const [w1, w2] = await Promise.all([a.append(done(id, ana), { step: 'power-log', version: 0 }), b.append(done(id, ben), { step: 'power-log', version: 0 })]);
    const lost = [w1, w2].filter((r) => !r.ok);
    assert.equal(lost.length, 1);
    const won = [w1, w2].find((r) => r.ok);
    assert.ok(won?.ok && lost[0] && !lost[0].ok);
    assert.deepEqual(lost[0].conflict.by, won.event.actor);
    assert.equal(lost[0].conflict.version, 1);
    assert.equal((await a.events(id)).filter((e) => e.dedupe === 'click-9').length, 1);
    assert.equal((await b.verify()).ok, true);
  } finally {
    await a.close();
    await b.close();
  }
});

test('the bot role cannot UPDATE or DELETE, and the triggers refuse the owner too', { skip: missing }, async () => {
  const { owner, bot } = await freshDb();
  const j = await openPostgresJournal(bot);
  await j.openIncident({ site: 'fv', title: 'locked', actor: ana, at, drill: false });
  await j.close();
  const asBot = postgres(bot, { max: 1, onnotice: () => undefined, fetch_types: false });
  const asOwner = postgres(owner, { max: 1, onnotice: () => undefined, fetch_types: false });
  try {
    for (const q of ["UPDATE events SET payload = '{}'", 'DELETE FROM events', "UPDATE incidents SET title = 'x'", 'DELETE FROM heads', 'TRUNCATE events CASCADE']) {
      await assert.rejects(asBot.unsafe(q), (e: { code?: string }) => e.code === '42501', q);
    }
    await assert.rejects(asOwner.unsafe("UPDATE events SET payload = '{}'"), /the journal is append-only: an event cannot be changed/);
    await assert.rejects(asOwner.unsafe('DELETE FROM events'), /an event cannot be deleted/);
    await assert.rejects(asOwner.unsafe('TRUNCATE events CASCADE'), /append-only/);
    await assert.rejects(asOwner.unsafe("UPDATE incidents SET title = 'x'"), /a projection of its events/);
    await assert.rejects(asOwner.unsafe('DELETE FROM heads'), /head record only moves forward/);
    await assert.rejects(asOwner.unsafe("INSERT INTO heads (incident, events, hash) VALUES (1, 5, 'ab')"), /head record only moves forward/);
  } finally {
    await asBot.end();
    await asOwner.end();
  }
});

test('migrate twice changes nothing; an un-migrated database is refused with what to run', { skip: missing }, async () => {
  const db = `seat_t${++dbs}`;
  await cluster.createDb(db);
  const owner = cluster.url('seat_owner', { db });
  await assert.rejects(openPostgresJournal(cluster.url('seat_bot', { db })), (e: unknown) => e instanceof JournalError && e.code === 'journal_unmigrated' && /schema is missing: run seat journal migrate/.test(e.message));
  const first = io();
  assert.equal(await journalMigrate(['--journal', owner], first.io), 0);
  assert.match(first.out(), new RegExp(`migrated from version 0 to ${PG_SCHEMA_VERSION}`));
  const second = io();
  assert.equal(await journalMigrate([], io({ SEAT_JOURNAL: owner }).io), 0);
  assert.equal(await journalMigrate(['--journal', owner], second.io), 0);
  assert.match(second.out(), new RegExp(`already at version ${PG_SCHEMA_VERSION} .*nothing to do`));
  const j = await openPostgresJournal(cluster.url('seat_bot', { db }));
  await j.close();
  const bad = io();
  assert.equal(await journalMigrate(['--journal', 'journal.sqlite'], bad.io), 2);
  assert.match(bad.err(), /name the PostgreSQL journal/);
});

test('seat journal copy moves a SQLite journal over with every hash; verify holds on the copy and new incidents go on after', { skip: missing }, async () => {
  const { owner, bot } = await freshDb();
  const file = join(dir, 'copy.sqlite');
  const core = openSqliteCore(file, { now: clock() });
  const sync = { openIncident: async (o: Parameters<SyncJournalStore['openIncident']>[0]) => core.openIncident(o), append: async (e: EventInput, x?: { step: string; version: number }) => core.append(e, x), appendMany: async (es: EventInput[]) => core.appendMany(es), closeIncident: async (...a: Parameters<SyncJournalStore['closeIncident']>) => core.closeIncident(...a) };
  await walk(sync);
  core.openIncident({ site: 'ber', title: 'second', actor: ben, at, drill: false });
  const source = core.verify();
  core.close();
  const c = io();
  assert.equal(await journalCopy(['--from', file, '--to', owner], c.io), 0, c.err());
  assert.match(c.out(), /copied 2 incidents and 9 events .*journal holds on the copy/);
  const pg = await openPostgresJournal(bot);
  try {
    assert.deepEqual(await pg.verify(), source);
    assert.deepEqual((await pg.incident(1))?.slack, { channel: 'C0INC', thread: '1700.01' });
    const next = await pg.openIncident({ site: 'fv', title: 'after the move', actor: ana, at, drill: false });
    assert.equal(next.incident.id, 3);
  } finally {
    await pg.close();
  }
  const twice = io();
  assert.equal(await journalCopy(['--from', file, '--to', owner], twice.io), 3);
  assert.match(twice.err(), /already holds 3 incidents.*nothing was copied/);
});
