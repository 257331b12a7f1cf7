// The embedded journal: one SQLite file per bot. WAL with synchronous=FULL, so a transaction that
// has returned is on disk, and every write is BEGIN IMMEDIATE, so two processes on one file (the
// bot and a `seat` in a terminal) serialise instead of failing half-way. Events are append-only
// (triggers refuse UPDATE and DELETE); an incident's row is a projection of its events (a trigger
// refuses any other change, every read takes the events' values, verify compares), and each
// incident's event count and head hash are kept in `heads`, which only moves forward to a real event.
import Database from 'better-sqlite3';
import { randomUUID } from 'node:crypto';
import { closeSync, openSync, statSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import type { Actor, AppendResult, EventInput, Incident, IncidentStatus, JournalEvent, StepExpectation, VerifyResult } from '../incident/types.ts';
import { makeDirs } from './location.ts';
import { GENESIS, hashStored } from './chain.ts';
import { chainRow, toEvent, type EventRow } from './rows.ts';
import { INCIDENT_SELECT, projectIncident, type IncidentColumns } from './projection.ts';
import { checkActor, checkEvent, checkEvents, checkOpening, checkTime, checkWord, EVENT_KINDS, JournalError, STEP_DECISIONS, type CheckedEvent, type HashMatch, type JournalStore, type OpenIncident, type SyncJournalStore, asyncStore, type Lease, type LeaseResult, type ReplicaSeen, type StoreStatus, type KeptMessage } from './store.ts';

// The step-version queries repeat this text exactly, so SQLite can use the partial index built on
// it. ORs, not IN: an IN list costs every insert a microsecond more.
const DECIDES = `(${STEP_DECISIONS.map((k) => `kind = '${k}'`).join(' OR ')})`;
const TRIGGER_WORDS = 'record a correction that amends it instead';
const HEAD_WORDS = 'an incident\'\'s head record only moves forward, to its newest event, as events are recorded';

/** One entry per schema version; `PRAGMA user_version` is how many have run. Never edit one: add. */
const MIGRATIONS: readonly string[] = [
  `CREATE TABLE incidents (
     id INTEGER PRIMARY KEY,
     site TEXT NOT NULL,
     title TEXT NOT NULL,
     status TEXT NOT NULL CHECK (status IN ('open', 'closed')),
     opened_by TEXT NOT NULL,
     opened_at TEXT NOT NULL,
     closed_by TEXT,
     closed_at TEXT,
     drill INTEGER NOT NULL CHECK (drill IN (0, 1)),
     slack_channel TEXT,
     slack_thread TEXT,
     CHECK ((slack_channel IS NULL) = (slack_thread IS NULL))
   );
   CREATE UNIQUE INDEX incidents_thread ON incidents (slack_channel, slack_thread) WHERE slack_channel IS NOT NULL;
   CREATE INDEX incidents_status ON incidents (status, id);
   CREATE TABLE events (
     id INTEGER PRIMARY KEY,
     incident INTEGER NOT NULL REFERENCES incidents (id),
     seq INTEGER NOT NULL CHECK (seq >= 1),
     kind TEXT NOT NULL,
     actor TEXT NOT NULL,
     happened_at TEXT NOT NULL,
     recorded_at TEXT NOT NULL,
     step TEXT,
     payload TEXT NOT NULL,
     amends INTEGER,
     dedupe TEXT,
     prev_hash TEXT NOT NULL,
     hash TEXT NOT NULL,
     UNIQUE (incident, seq)
   );
   -- Partial, so the events that have no key or decide no step (most of a probe report) cost no index.
   CREATE UNIQUE INDEX events_dedupe ON events (dedupe) WHERE dedupe IS NOT NULL;
   CREATE INDEX events_decisions ON events (incident, step, seq) WHERE ${DECIDES};
   CREATE TRIGGER events_no_update BEFORE UPDATE ON events
     BEGIN SELECT RAISE(ABORT, 'the journal is append-only: an event cannot be changed; ${TRIGGER_WORDS}'); END;
   CREATE TRIGGER events_no_delete BEFORE DELETE ON events
     BEGIN SELECT RAISE(ABORT, 'the journal is append-only: an event cannot be deleted; ${TRIGGER_WORDS}'); END;
   CREATE TRIGGER incidents_no_delete BEFORE DELETE ON incidents
     BEGIN SELECT RAISE(ABORT, 'the journal is append-only: an incident cannot be deleted; close it'); END;`,
  // 2: the row a projection of the events; the head kept where a deleted tail must forge it too.
  `CREATE INDEX events_closed ON events (incident, seq) WHERE kind = 'incident.closed';
   CREATE TABLE heads (
     incident INTEGER PRIMARY KEY REFERENCES incidents (id),
     events INTEGER NOT NULL,
     hash TEXT NOT NULL
   );
   INSERT INTO heads (incident, events, hash)
     SELECT incident, seq, hash FROM events e WHERE seq = (SELECT max(seq) FROM events WHERE incident = e.incident);
   CREATE TRIGGER heads_first BEFORE INSERT ON heads
     WHEN NOT EXISTS (SELECT 1 FROM events WHERE incident = NEW.incident AND seq = NEW.events AND hash = NEW.hash)
     BEGIN SELECT RAISE(ABORT, '${HEAD_WORDS}'); END;
   CREATE TRIGGER heads_forward BEFORE UPDATE ON heads
     WHEN NEW.incident IS NOT OLD.incident OR NEW.events <= OLD.events
       OR NOT EXISTS (SELECT 1 FROM events WHERE incident = NEW.incident AND seq = NEW.events AND hash = NEW.hash)
     BEGIN SELECT RAISE(ABORT, '${HEAD_WORDS}'); END;
   CREATE TRIGGER heads_no_delete BEFORE DELETE ON heads
     BEGIN SELECT RAISE(ABORT, '${HEAD_WORDS}'); END;
   CREATE TRIGGER events_close AFTER INSERT ON events WHEN NEW.kind = 'incident.closed'
     BEGIN UPDATE incidents SET status = 'closed', closed_by = NEW.actor, closed_at = NEW.happened_at WHERE id = NEW.incident; END;
   CREATE TRIGGER incidents_projection BEFORE UPDATE ON incidents
     WHEN NEW.id IS NOT OLD.id OR NEW.site IS NOT OLD.site OR NEW.title IS NOT OLD.title OR NEW.drill IS NOT OLD.drill
       OR NEW.opened_by IS NOT OLD.opened_by OR NEW.opened_at IS NOT OLD.opened_at
       OR ((NEW.status IS NOT OLD.status OR NEW.closed_by IS NOT OLD.closed_by OR NEW.closed_at IS NOT OLD.closed_at)
         AND NOT (NEW.status = 'closed' AND EXISTS (SELECT 1 FROM events WHERE incident = NEW.id AND kind = 'incident.closed' AND actor = NEW.closed_by AND happened_at = NEW.closed_at)))
     BEGIN SELECT RAISE(ABORT, 'an incident row is a projection of its events: it cannot be changed by hand; record an event (a note, a correction, a close) instead'); END;`,
  // 3: what replicas share besides the events: a probe step's lease, and each replica's heartbeat.
  `CREATE TABLE IF NOT EXISTS leases (
     incident INTEGER NOT NULL REFERENCES incidents (id),
     step TEXT NOT NULL,
     token TEXT NOT NULL,
     actor TEXT NOT NULL,
     replica TEXT NOT NULL,
     taken_at TEXT NOT NULL,
     until TEXT NOT NULL,
     PRIMARY KEY (incident, step)
   );
   CREATE TABLE IF NOT EXISTS replicas (
     replica TEXT PRIMARY KEY,
     site TEXT NOT NULL,
     host TEXT NOT NULL,
     version TEXT NOT NULL,
     started TEXT NOT NULL,
     last_seen TEXT NOT NULL
   );`,
  // 4: where each part of an incident has its Slack message, for every replica (the first kept stands).
  `CREATE TABLE IF NOT EXISTS messages (
     incident INTEGER NOT NULL REFERENCES incidents (id),
     key TEXT NOT NULL,
     channel TEXT NOT NULL,
     ts TEXT NOT NULL,
     PRIMARY KEY (incident, key)
   );`,
  // 5: replicas asking each other to probe (src/journal/asks.ts): a request row, each replica's answers
  // streamed as rows. Coordination, not record: outside the chain, and removed once the asker is done.
  `CREATE TABLE IF NOT EXISTS probe_asks (
     id INTEGER PRIMARY KEY AUTOINCREMENT,
     replica TEXT NOT NULL,
     vantage TEXT NOT NULL,
     request TEXT NOT NULL,
     asked_at TEXT NOT NULL,
     wait_ms INTEGER NOT NULL
   );
   CREATE TABLE IF NOT EXISTS probe_answers (
     id INTEGER PRIMARY KEY AUTOINCREMENT,
     ask INTEGER NOT NULL,
     replica TEXT NOT NULL,
     vantage TEXT NOT NULL,
     kind TEXT NOT NULL,
     body TEXT NOT NULL CHECK (length(body) <= 524288),
     at TEXT NOT NULL
   );
   CREATE INDEX IF NOT EXISTS probe_answers_ask ON probe_answers (ask, id);`,
];

/** The schema version this code writes. */
export const JOURNAL_SCHEMA_VERSION = MIGRATIONS.length;

const BUSY_TIMEOUT_MS = 5000;

export interface SqliteJournalOptions {
  /** recordedAt of every event. */
  now?: () => Date;
  /** How long a write waits for another process's transaction before giving up. */
  busyTimeoutMs?: number;
}

/** The journal in a SQLite file, as every caller uses it: asynchronous over the synchronous core. */
export function openSqliteJournal(path: string, o: SqliteJournalOptions = {}): JournalStore {
  return asyncStore(openSqliteCore(path, o));
}

/** The synchronous core: one call, one transaction. For tests, benches and tools that own the file. */
export function openSqliteCore(path: string, o: SqliteJournalOptions = {}): SyncJournalStore {
  const file = path === ':memory:' ? path : resolve(path);
  if (file !== ':memory:') prepareFile(file);
  const busy = o.busyTimeoutMs ?? BUSY_TIMEOUT_MS;
  let db: Database.Database;
  try {
    db = new Database(file, { timeout: busy });
  } catch (err) {
    throw explain(err, file);
  }
  try {
    db.pragma(`busy_timeout = ${busy}`);
    // Look before changing anything: a newer schema or someone else's database is left as it was.
    checkVersion(db, file);
    if (file !== ':memory:') {
      const mode = db.pragma('journal_mode = WAL', { simple: true });
      if (mode !== 'wal') throw new JournalError('journal_io', `${file}: could not switch the journal to WAL (it stays ${String(mode)})`);
    }
    db.pragma('synchronous = FULL');
    db.pragma('foreign_keys = ON');
    migrate(db, file);
    return new SqliteJournal(db, file, o.now ?? (() => new Date()));
  } catch (err) {
    db.close();
    throw explain(err, file);
  }
}

/** The folder private to this user; a new file created 0600 (SQLite gives its -wal and -shm the same mode). */
function prepareFile(file: string): void {
  try {
    makeDirs(dirname(file));
    let exists = true;
    try {
      // A FIFO or a device here would hang SQLite's first read.
      if (!statSync(file).isFile()) throw new JournalError('journal_io', `${file}: not a regular file; the journal is an SQLite file`);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
      exists = false;
    }
    if (!exists) closeSync(openSync(file, 'wx', 0o600));
  } catch (err) {
    if (err instanceof JournalError) throw err;
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'EEXIST') return; // another process created it first
    throw new JournalError('journal_io', `${file}: cannot create the journal: ${code === 'EACCES' || code === 'EPERM' ? 'permission denied' : (code ?? String(err))}`, { cause: err });
  }
}

function checkVersion(db: Database.Database, file: string): number {
  const version = db.pragma('user_version', { simple: true }) as number;
  if (version > JOURNAL_SCHEMA_VERSION) {
    throw new JournalError(
      'journal_newer',
      `${file}: this journal has schema version ${version}, written by a newer seatbelt; this one knows up to version ${JOURNAL_SCHEMA_VERSION}. Upgrade seatbelt to use it; the file was left as it was.`,
    );
  }
  if (version === 0) {
    const tables = db.prepare("SELECT name FROM sqlite_schema WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name").pluck().all() as string[];
    if (tables.length > 0) throw new JournalError('journal_damaged', `${file}: not a seatbelt journal: it holds other tables (${tables.slice(0, 5).join(', ')}) and no journal schema version`);
  }
  return version;
}

function migrate(db: Database.Database, file: string): void {
  if (checkVersion(db, file) === JOURNAL_SCHEMA_VERSION) return;
  db.transaction(() => {
    // Again under the lock: another process may have migrated the file meanwhile.
    const from = checkVersion(db, file);
    for (const sql of MIGRATIONS.slice(from)) db.exec(sql);
    db.pragma(`user_version = ${JOURNAL_SCHEMA_VERSION}`);
  }).immediate();
}

/** SQLite's failures in words a person can act on; our own errors pass through. */
function explain(err: unknown, file: string): Error {
  if (err instanceof JournalError || !(err instanceof Database.SqliteError)) return err as Error;
  const code = err.code;
  const cause = { cause: err };
  if (code.startsWith('SQLITE_BUSY') || code.startsWith('SQLITE_LOCKED')) {
    return new JournalError('journal_busy', `${file}: the journal is busy: another process held it too long; nothing was written, try again`, cause);
  }
  if (code === 'SQLITE_FULL') return new JournalError('journal_full', `${file}: the disk is full; nothing was written`, cause);
  if (code.startsWith('SQLITE_READONLY')) return new JournalError('journal_readonly', `${file}: the journal is read-only for this user; nothing was written`, cause);
  if (code.startsWith('SQLITE_CORRUPT') || code === 'SQLITE_NOTADB') return new JournalError('journal_damaged', `${file}: not a journal, or a damaged one (${err.message})`, cause);
  if (code.startsWith('SQLITE_CANTOPEN') || code.startsWith('SQLITE_IOERR')) return new JournalError('journal_io', `${file}: cannot read or write the journal file (${err.message})`, cause);
  return err;
}

// ---------------------------------------------------------------------------------------------


const INSERT_EVENTS = 'INSERT INTO events (incident, seq, kind, actor, happened_at, recorded_at, step, payload, amends, dedupe, prev_hash, hash) VALUES';
const EVENT_VALUES = '(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)';
/** Rows per INSERT in a batch: one call into SQLite per 16 rows costs ~2 µs less per event. */
const CHUNK = 16;
const EVENT_COLUMNS = 'incident, seq, kind, actor, happened_at AS happenedAt, recorded_at AS recordedAt, step, payload, amends, dedupe, prev_hash AS prevHash, hash';

function toIncident(r: IncidentColumns): Incident {
  return projectIncident(r).incident;
}



interface Head {
  seq: number;
  hash: string;
}

/** A verified row: hashStored()'s columns, and whether its JSON columns hold JSON objects. */
interface VerifyRow extends EventRow {
  actorOk: number;
  payloadOk: number;
}

const KINDS: ReadonlySet<string> = new Set(EVENT_KINDS);
// Canonical JSON has no leading space: valid JSON that starts with { is an object.
const READABLE = "json_valid(actor) AND substr(actor, 1, 1) = '{' AS actorOk, json_valid(payload) AND substr(payload, 1, 1) = '{' AS payloadOk";

class SqliteJournal implements SyncJournalStore {
  private readonly q;
  private readonly txAppend;
  private readonly txMany;
  private readonly txOpen;
  private readonly txLease;
  private readonly txThread;

  constructor(
    private readonly db: Database.Database,
    readonly path: string,
    private readonly now: () => Date,
  ) {
    const p = <R>(sql: string) => db.prepare<unknown[], R>(sql);
    this.q = {
      insertIncident: p('INSERT INTO incidents (site, title, status, opened_by, opened_at, drill, slack_channel, slack_thread) VALUES (?, ?, ?, ?, ?, ?, ?, ?)'),
      insertEvent: p(`${INSERT_EVENTS} ${EVENT_VALUES}`),
      insertChunk: p(`${INSERT_EVENTS} ${Array<string>(CHUNK).fill(EVENT_VALUES).join(', ')}`),
      incident: p<IncidentColumns>(`${INCIDENT_SELECT} WHERE i.id = ?`),
      hasIncident: p<number>('SELECT 1 FROM incidents WHERE id = ?').pluck(),
      byThread: p<IncidentColumns>(`${INCIDENT_SELECT} WHERE i.slack_channel = ? AND i.slack_thread = ?`),
      threadOwner: p<number>('SELECT id FROM incidents WHERE slack_channel = ? AND slack_thread = ?').pluck(),
      list: p<IncidentColumns>(`${INCIDENT_SELECT} ORDER BY i.id DESC LIMIT ?`),
      // The status the events give, not the row's: a forged "closed" hides nothing.
      listOpen: p<IncidentColumns>(`${INCIDENT_SELECT} WHERE c.id IS NULL ORDER BY i.id DESC LIMIT ?`),
      listClosed: p<IncidentColumns>(`${INCIDENT_SELECT} WHERE c.id IS NOT NULL ORDER BY i.id DESC LIMIT ?`),
      closedAt: p<string>("SELECT happened_at FROM events WHERE incident = ? AND kind = 'incident.closed' ORDER BY seq LIMIT 1").pluck(),
      setThread: p('UPDATE incidents SET slack_channel = ?, slack_thread = ? WHERE id = ?'),
      head: p<Head>('SELECT seq, hash FROM events WHERE incident = ? ORDER BY seq DESC LIMIT 1'),
      kept: p<{ events: number; hash: string }>('SELECT events, hash FROM heads WHERE incident = ?'),
      keepFirst: p('INSERT INTO heads (incident, events, hash) VALUES (?, ?, ?)'),
      keep: p('UPDATE heads SET events = ?, hash = ? WHERE incident = ?'),
      findHash: p<HashMatch>('SELECT incident, seq FROM events WHERE substr(hash, 1, ?) = ? ORDER BY incident, seq LIMIT 10'),
      findHashIn: p<HashMatch>('SELECT incident, seq FROM events WHERE incident = ? AND substr(hash, 1, ?) = ? ORDER BY seq LIMIT 10'),
      byDedupe: p<EventRow>(`SELECT ${EVENT_COLUMNS} FROM events WHERE dedupe = ?`),
      hasSeq: p<number>('SELECT 1 FROM events WHERE incident = ? AND seq = ?').pluck(),
      events: p<EventRow>(`SELECT ${EVENT_COLUMNS} FROM events WHERE incident = ? AND seq >= ? ORDER BY seq`),
      stepCount: p<number>(`SELECT count(*) FROM events WHERE incident = ? AND step = ? AND ${DECIDES}`).pluck(),
      stepLast: p<EventRow>(`SELECT ${EVENT_COLUMNS} FROM events WHERE incident = ? AND step = ? AND ${DECIDES} ORDER BY seq DESC LIMIT 1`),
      verifyAll: p<VerifyRow>(`SELECT ${EVENT_COLUMNS}, ${READABLE} FROM events ORDER BY incident, seq`),
      verifyOne: p<VerifyRow>(`SELECT ${EVENT_COLUMNS}, ${READABLE} FROM events WHERE incident = ? ORDER BY seq`),
      eventless: p<number>('SELECT id FROM incidents WHERE NOT EXISTS (SELECT 1 FROM events WHERE events.incident = incidents.id) ORDER BY id LIMIT 1').pluck(),
    };
    this.txLease = db.transaction((l: Lease, actorJson: string): LeaseResult => {
      const row = db.prepare<[number, string], { token: string; actor: string; replica: string; at: string; until: string }>('SELECT token, actor, replica, taken_at AS at, until FROM leases WHERE incident = ? AND step = ?').get(l.incident, l.step);
      const was = row ? { incident: l.incident, step: l.step, by: JSON.parse(row.actor) as Actor, replica: row.replica, at: row.at, until: row.until } : undefined;
      if (was && Date.parse(was.until) > Date.parse(l.at)) return { ok: false, held: was };
      const token = randomUUID();
      db.prepare('INSERT INTO leases (incident, step, token, actor, replica, taken_at, until) VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT (incident, step) DO UPDATE SET token = excluded.token, actor = excluded.actor, replica = excluded.replica, taken_at = excluded.taken_at, until = excluded.until').run(l.incident, l.step, token, actorJson, l.replica, l.at, l.until);
      return was ? { ok: true, token, expired: was } : { ok: true, token };
    });
    this.txAppend = db.transaction((c: CheckedEvent, expect: StepExpectation | undefined): AppendResult => {
      const recordedAt = this.stamp();
      const first = this.firstOf(c);
      if (first) return { ok: true, event: first, duplicate: true };
      const head = this.headOf(c.input.incident);
      if (expect) {
        const conflict = this.conflict(c.input.incident, expect);
        if (conflict) return conflict;
      }
      const event = this.write(c, head, recordedAt);
      this.q.keep.run(event.seq, event.hash, event.incident);
      return { ok: true, event, duplicate: false };
    });
    this.txMany = db.transaction((cs: CheckedEvent[]): JournalEvent[] => {
      const recordedAt = this.stamp();
      // Heads carried through the batch: one lookup per incident, not per event. Rows go in
      // CHUNK at a time (one statement, not one per row); whatever a check must look up in the
      // journal (a dedupe key, a seq amended) is flushed to it first.
      const heads = new Map<number, EventRow>();
      const pending: EventRow[] = [];
      const out: JournalEvent[] = [];
      for (const c of cs) {
        // A close is checked against the closes already in the journal: flushed first too.
        if (c.input.dedupe !== undefined || c.input.amends !== undefined || c.input.kind === 'incident.closed') this.insert(pending);
        const first = this.firstOf(c);
        if (first) {
          out.push(first);
          continue;
        }
        const row = this.build(c, heads.get(c.input.incident) ?? this.headOf(c.input.incident), recordedAt);
        heads.set(row.incident, row);
        pending.push(row);
        if (pending.length === CHUNK) this.insert(pending);
        // A batch is thousands of events: each hands back the caller's payload object itself
        // when that is exactly what reads back, and a parsed copy only when it is not.
        out.push(toEvent(row, c.actor, c.exact ? c.input.payload : undefined));
      }
      this.insert(pending);
      for (const h of heads.values()) this.q.keep.run(h.seq, h.hash, h.incident);
      return out;
    });
    this.txOpen = db.transaction((o: OpenIncident, actor: Actor, c: CheckedEvent) => {
      const recordedAt = this.stamp();
      if (o.dedupe !== undefined) {
        const first = this.q.byDedupe.get(o.dedupe);
        if (first) {
          if (first.kind !== 'incident.opened') throw new JournalError('bad_event', `the dedupe key ${JSON.stringify(o.dedupe)} was already used by a ${first.kind} event of incident #${first.incident}`);
          return { incident: toIncident(this.q.incident.get(first.incident) as IncidentColumns), event: toEvent(first), duplicate: true };
        }
      }
      if (o.slack) this.threadFree(o.slack.channel, o.slack.thread, undefined);
      const id = Number(this.q.insertIncident.run(o.site, o.title, 'open', c.actorJson, o.at, o.drill ? 1 : 0, o.slack?.channel ?? null, o.slack?.thread ?? null).lastInsertRowid);
      const event = this.write({ ...c, input: { ...c.input, incident: id } }, { seq: 0, hash: GENESIS }, recordedAt);
      this.q.keepFirst.run(id, event.seq, event.hash);
      return { incident: toIncident(this.q.incident.get(id) as IncidentColumns), event, duplicate: false };
    });
    this.txThread = db.transaction((id: number, channel: string, thread: string) => {
      if (!this.q.hasIncident.get(id)) throw noIncident(id);
      this.threadFree(channel, thread, id);
      this.q.setThread.run(channel, thread, id);
    });
  }

  // --- writes ---------------------------------------------------------------------------------

  openIncident(o: OpenIncident): { incident: Incident; event: JournalEvent; duplicate: boolean } {
    const { actor, c } = checkOpening(o);
    return this.run(() => this.txOpen.immediate(o, actor, c));
  }

  closeIncident(id: number, actor: Actor, at: string, reason?: string, dedupe?: string): AppendResult {
    return this.append({ incident: id, kind: 'incident.closed', actor, happenedAt: at, payload: reason === undefined ? {} : { reason }, dedupe });
  }

  setSlackThread(id: number, channel: string, thread: string): void {
    checkWord(channel, 'the Slack channel');
    checkWord(thread, 'the Slack thread');
    this.run(() => this.txThread.immediate(id, channel, thread));
  }

  append(e: EventInput, expect?: StepExpectation): AppendResult {
    const c = checkEvent(e);
    if (expect) {
      if (!Number.isSafeInteger(expect.version) || expect.version < 0) throw new JournalError('bad_event', `the expected step version must be a count like 0 or 2; got ${String(expect.version)}`);
      if (e.step !== expect.step) throw new JournalError('bad_event', `the expectation is about step ${JSON.stringify(expect.step)} but the event is about ${e.step === undefined ? 'no step' : JSON.stringify(e.step)}`);
    }
    return this.run(() => this.txAppend.immediate(c, expect));
  }

  appendMany(events: EventInput[]): JournalEvent[] {
    const cs = checkEvents(events);
    if (cs.length === 0) return [];
    return this.run(() => this.txMany.immediate(cs));
  }

  // --- reads ----------------------------------------------------------------------------------

  incident(id: number): Incident | undefined {
    return this.run(() => {
      const r = this.q.incident.get(id);
      return r && toIncident(r);
    });
  }

  incidentByThread(channel: string, thread: string): Incident | undefined {
    return this.run(() => {
      const r = this.q.byThread.get(channel, thread);
      return r && toIncident(r);
    });
  }

  incidents(o: { status?: IncidentStatus; limit?: number } = {}): Incident[] {
    const limit = o.limit ?? -1; // SQLite: a negative LIMIT is none
    const q = o.status === 'open' ? this.q.listOpen : o.status === 'closed' ? this.q.listClosed : this.q.list;
    return this.run(() => q.all(limit).map(toIncident));
  }

  newestOpen(): Incident | undefined {
    return this.incidents({ status: 'open', limit: 1 })[0];
  }

  events(incident: number, o: { fromSeq?: number } = {}): JournalEvent[] {
    return this.run(() => this.q.events.all(incident, o.fromSeq ?? 1).map((r) => toEvent(r)));
  }

  stepVersion(incident: number, step: string): { version: number; last?: JournalEvent } {
    return this.run(() => this.version(incident, step));
  }

  /**
   * Recomputes every hash and link in seq order, one row at a time (constant memory). The chain
   * shows an edit, a removal from the middle and a row moved between incidents; each incident's
   * head record shows its newest events removed (unless it was forged too: compare `heads` with a
   * head kept elsewhere, findHash()); its row is compared with its events field by field; a row
   * whose JSON columns hold no JSON object is named unreadable.
   */
  verify(incident?: number): VerifyResult {
    return this.run((): VerifyResult => {
      if (incident !== undefined && !this.q.hasIncident.get(incident)) throw noIncident(incident);
      const rows = incident === undefined ? this.q.verifyAll.iterate() : this.q.verifyOne.iterate(incident);
      const heads = new Map<number, string>();
      let current = -1;
      let next = 1;
      let prev = GENESIS;
      let checked = 0;
      const fail = (inc: number, seq: number, why: string, part?: 'row'): VerifyResult => ({ ok: false, incident: inc, seq, why, events: checked, ...(part ? { part } : {}) });
      for (const r of rows) {
        if (r.incident !== current) {
          // The incident before is whole as a chain: now its head record and its row.
          const whole = current === -1 ? undefined : this.wholeIncident(current, next - 1, prev);
          if (whole) return fail(current, whole.seq, whole.why, whole.part);
          current = r.incident;
          next = 1;
          prev = GENESIS;
        }
        let failure: VerifyResult | undefined;
        if (r.seq !== next) failure = fail(current, next, r.seq === next + 1 ? `seq ${next} missing` : `seq ${next} to ${r.seq - 1} missing`);
        else if (hashStored(r) !== r.hash) failure = fail(current, r.seq, 'hash does not match its content');
        else if (r.prevHash !== prev) failure = fail(current, r.seq, r.seq === 1 ? 'prev_hash is not the genesis hash (64 zeros)' : 'prev_hash does not match the previous event');
        else if (r.actorOk !== 1 || r.payloadOk !== 1) failure = fail(current, r.seq, `unreadable: its ${r.actorOk !== 1 ? 'actor' : 'payload'} is not a JSON object (the row was written outside seatbelt, its hash made to match)`);
        else if (!KINDS.has(r.kind)) failure = fail(current, r.seq, `unreadable: its kind ${JSON.stringify(String(r.kind).slice(0, 40))} is not an event kind`);
        // Leaving the loop ends the statement (for...of calls the iterator's return()).
        if (failure) return failure;
        prev = r.hash;
        next = r.seq + 1;
        checked++;
        heads.set(current, prev);
      }
      const last = current === -1 ? undefined : this.wholeIncident(current, next - 1, prev);
      if (last) return fail(current, last.seq, last.why, last.part);
      // Rows the scan cannot see: an incident whose events are all gone.
      const eventless = incident === undefined ? this.q.eventless.get() : heads.size === 0 ? incident : undefined;
      if (eventless !== undefined) return fail(eventless, 1, 'seq 1 missing: the incident has no events');
      return { ok: true, incidents: heads.size, events: checked, heads };
    });
  }

  /** What the event hashes alone cannot show about an incident whose chain is whole: its row, its head record. */
  private wholeIncident(id: number, seq: number, hash: string): { seq: number; why: string; part?: 'row' } | undefined {
    const row = this.q.incident.get(id);
    if (!row) return { seq: 1, why: 'the incident itself is missing: its row was deleted' };
    const cut = cutAt(this.q.kept.get(id), seq, hash);
    if (cut) return cut;
    const { problems } = projectIncident(row);
    const first = problems[0];
    if (first) return { seq: first.seq, why: `the incident row differs from its events: ${problems.map((p) => p.text).join('; ')}`, part: 'row' };
    return undefined;
  }

  findHash(prefix: string, incident?: number): HashMatch[] {
    if (!/^[0-9a-f]{8,64}$/.test(prefix)) throw new JournalError('bad_event', `a head is 8 to 64 hex digits (seat journal verify prints 12); got ${JSON.stringify(prefix.slice(0, 70))}`);
    return this.run(() => (incident === undefined ? this.q.findHash.all(prefix.length, prefix) : this.q.findHashIn.all(incident, prefix.length, prefix)));
  }

  close(): void {
    if (this.db.open) this.db.close();
  }

  takeLease(l: Lease): LeaseResult {
    const actorJson = JSON.stringify(checkActor(l.by));
    checkWord(l.step, 'the step');
    checkWord(l.replica, 'the replica');
    checkTime(l.at, 'the time the lease was taken');
    checkTime(l.until, 'the time the lease ends');
    return this.run(() => this.txLease.immediate(l, actorJson));
  }

  dropLease(incident: number, step: string, token: string): void {
    this.run(() => this.db.prepare('DELETE FROM leases WHERE incident = ? AND step = ? AND token = ?').run(incident, step, token));
  }

  heartbeat(r: { replica: string; site: string; host: string; version: string; at: string }): void {
    checkTime(r.at, 'the heartbeat time');
    this.run(() =>
      this.db
        .prepare('INSERT INTO replicas (replica, site, host, version, started, last_seen) VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (replica) DO UPDATE SET site = excluded.site, host = excluded.host, version = excluded.version, last_seen = excluded.last_seen')
        .run(checkWord(r.replica, 'the replica'), checkWord(r.site, 'the site'), checkWord(r.host, 'the host'), checkWord(r.version, 'the version'), r.at, r.at),
    );
  }

  replicas(): ReplicaSeen[] {
    return this.run(() => this.db.prepare<[], ReplicaSeen>('SELECT replica, site, host, version, started, last_seen AS lastSeen FROM replicas ORDER BY last_seen DESC, replica').all());
  }

  status(): StoreStatus {
    return { kind: 'sqlite', where: this.path, server: this.path, primary: true };
  }

  messages(incident: number): KeptMessage[] {
    return this.run(() => this.db.prepare<[number], KeptMessage>('SELECT key, channel, ts FROM messages WHERE incident = ?').all(incident));
  }

  keepMessage(incident: number, key: string, channel: string, ts: string): void {
    checkWord(key, 'the message key');
    checkWord(channel, 'the Slack channel');
    checkWord(ts, 'the Slack message ts');
    this.run(() => this.db.prepare('INSERT INTO messages (incident, key, channel, ts) VALUES (?, ?, ?, ?) ON CONFLICT (incident, key) DO NOTHING').run(incident, key, channel, ts));
  }

  // --- inside a transaction -------------------------------------------------------------------

  private stamp(): string {
    const t = this.now();
    if (Number.isNaN(t.getTime())) throw new Error('the clock gave an invalid date');
    return t.toISOString();
  }

  /** The event recorded first under this dedupe key, if one was. */
  private firstOf(c: CheckedEvent): JournalEvent | undefined {
    if (c.input.dedupe === undefined) return undefined;
    const r = this.q.byDedupe.get(c.input.dedupe);
    return r && toEvent(r);
  }

  /**
   * Every incident has its opened event, so no head means no incident. A head that is not the one
   * recorded (events removed from the end, or added behind the store's back) is not written on.
   */
  private headOf(incident: number): Head {
    const head = this.q.head.get(incident);
    if (!head) throw noIncident(incident);
    const cut = cutAt(this.q.kept.get(incident), head.seq, head.hash);
    if (cut) throw new JournalError('journal_damaged', `incident #${incident}'s chain does not hold: event ${cut.seq}: ${cut.why}; nothing was recorded (seat journal verify ${incident})`);
    return head;
  }

  private version(incident: number, step: string): { version: number; last?: JournalEvent } {
    const version = this.q.stepCount.get(incident, step) ?? 0;
    if (version === 0) return { version };
    return { version, last: toEvent(this.q.stepLast.get(incident, step) as EventRow) };
  }

  private conflict(incident: number, expect: StepExpectation): AppendResult | undefined {
    const { version, last } = this.version(incident, expect.step);
    if (version === expect.version) return undefined;
    if (!last) throw new JournalError('bad_event', `step ${expect.step} of incident #${incident} has no decision yet, but version ${expect.version} was expected`);
    return { ok: false, conflict: { step: expect.step, version, by: last.actor, at: last.recordedAt, kind: last.kind } };
  }

  private threadFree(channel: string, thread: string, id: number | undefined): void {
    const other = this.q.threadOwner.get(channel, thread);
    if (other !== undefined && other !== id) throw new JournalError('thread_taken', `that Slack thread already belongs to incident #${other}`);
  }

  private write(c: CheckedEvent, head: Head, recordedAt: string): JournalEvent {
    const row = this.build(c, head, recordedAt);
    this.insert([row]);
    // Handed back as it reads back: the payload parsed from the stored text (one event: a copy
    // costs nothing beside the fsync), the actor the checked copy.
    return toEvent(row, c.actor);
  }

  /** The event's row, checked against the journal and hashed (closing updates the incident's row by trigger). */
  private build(c: CheckedEvent, head: Head, recordedAt: string): EventRow {
    const e = c.input;
    if (e.amends !== undefined && !this.q.hasSeq.get(e.incident, e.amends)) {
      throw new JournalError('bad_event', `incident #${e.incident} has no event ${e.amends} to amend (its events are 1 to ${head.seq})`);
    }
    if (e.kind === 'incident.opened' && head.seq !== 0) throw new JournalError('bad_event', 'an incident is opened once: use openIncident');
    if (e.kind === 'incident.closed') {
      const closed = this.q.closedAt.get(e.incident);
      if (closed !== undefined) throw new JournalError('already_closed', `incident #${e.incident} is already closed (at ${String(closed)})`);
    }
    return chainRow(c, head, recordedAt);
  }

  /** Inserts the rows and empties the array: a full chunk in one statement, a remainder row by row. */
  private insert(rows: EventRow[]): void {
    if (rows.length === CHUNK) {
      const args: unknown[] = [];
      for (const r of rows) args.push(r.incident, r.seq, r.kind, r.actor, r.happenedAt, r.recordedAt, r.step, r.payload, r.amends, r.dedupe, r.prevHash, r.hash);
      this.q.insertChunk.run(...args);
    } else {
      for (const r of rows) this.q.insertEvent.run(r.incident, r.seq, r.kind, r.actor, r.happenedAt, r.recordedAt, r.step, r.payload, r.amends, r.dedupe, r.prevHash, r.hash);
    }
    rows.length = 0;
  }

  private run<T>(fn: () => T): T {
    try {
      return fn();
    } catch (err) {
      throw explain(err, this.path);
    }
  }
}

function noIncident(id: number): JournalError {
  return new JournalError('no_incident', `there is no incident #${id}`);
}

/** Where the chain's end and the incident's head record disagree, if they do. */
function cutAt(kept: { events: number; hash: string } | undefined, seq: number, hash: string): { seq: number; why: string } | undefined {
  if (!kept) return { seq, why: 'its head record is missing (the heads table has no row for it)' };
  const says = `the head record says ${kept.events} event${kept.events === 1 ? '' : 's'} ending at ${String(kept.hash).slice(0, 12)}`;
  if (kept.events > seq) return { seq: seq + 1, why: `${kept.events === seq + 1 ? `event ${seq + 1} is` : `events ${seq + 1} to ${kept.events} are`} missing: ${says}, the chain ends at event ${seq} (its newest events were removed)` };
  if (kept.events < seq) return { seq: kept.events + 1, why: `the chain goes on past its head record to event ${seq}: ${says} (events were added outside seatbelt)` };
  if (kept.hash !== hash) return { seq, why: `event ${seq} is not the recorded head: ${says}` };
  return undefined;
}
