// The shared journal of bot replicas: PostgreSQL through postgres.js (multi-host URLs with
// target_session_attrs, so a store follows its primary's failover to a promoted standby). The same
// events, canonical serialisation and per-incident hash chain as the SQLite store (chain.ts), the
// same checks before the transaction (store.ts) and inside it. Appends to one incident serialise on
// a transaction-scoped advisory lock on its id, so two replicas never fork a chain; dedupe keys and
// Slack threads are unique constraints, so a race is settled by the database and retried once to
// hand back the first. A promise resolves only after COMMIT answered. A single append is one
// autocommit statement (seat_append, migration 4) on the head this store saw last; the rest are
// transactions.
import { randomUUID } from 'node:crypto';
import postgres, { type PendingQuery, type Sql, type TransactionSql } from 'postgres';
import type { Actor, AppendResult, EventInput, Incident, IncidentStatus, JournalEvent, StepExpectation, VerifyResult } from '../incident/types.ts';
import { GENESIS, hashStored } from './chain.ts';
import { chainRow, toEvent, type EventRow } from './rows.ts';
import { shownJournal } from './spec.ts';
import { LOCK_CLASS, PG_SCHEMA_VERSION, schemaVersion } from './pg/schema.ts';
import { projectIncident, type IncidentColumns } from './projection.ts';
import { checkActor, checkEvent, checkEvents, checkOpening, checkTime, checkWord, EVENT_KINDS, JournalError, STEP_DECISIONS, type CheckedEvent, type HashMatch, type JournalStore, type Lease, type LeaseResult, type OpenIncident, type ReplicaSeen, type ReplicaSide, type StoreStatus, type KeptMessage } from './store.ts';

export interface PostgresJournalOptions {
  /** recordedAt of every event. */
  now?: () => Date;
  /** Seconds to wait for a connection to a writable primary (the URL's connect_timeout wins); default 5. */
  connectTimeoutS?: number;
  /** Connections in the pool; default 4. */
  max?: number;
}

export { LOCK_CLASS };

const DECIDES = `kind IN (${STEP_DECISIONS.map((k) => `'${k}'`).join(', ')})`;
const EVENT_COLUMNS = 'incident, seq, kind, actor, happened_at AS "happenedAt", recorded_at AS "recordedAt", step, payload, amends, dedupe, prev_hash AS "prevHash", hash';
const INCIDENT_SELECT = `SELECT i.id, i.site, i.title, CASE WHEN c.seq IS NULL THEN 'open' ELSE 'closed' END AS status, i.opened_by, i.opened_at,
    c.actor AS closed_by, c.happened_at AS closed_at, i.drill, t.channel AS slack_channel, t.thread AS slack_thread,
    o.kind AS o_kind, o.actor AS o_actor, o.happened_at AS o_at, o.payload AS o_payload, c.seq AS c_seq, c.actor AS c_actor, c.happened_at AS c_at
  FROM incidents i
  LEFT JOIN events o ON o.incident = i.id AND o.seq = 1
  LEFT JOIN LATERAL (SELECT seq, actor, happened_at FROM events WHERE incident = i.id AND kind = 'incident.closed' ORDER BY seq LIMIT 1) c ON true
  LEFT JOIN LATERAL (SELECT channel, thread FROM threads WHERE incident = i.id ORDER BY id DESC LIMIT 1) t ON true`;
/** Incidents whose last seen head a store keeps (an open incident or two is the rule; a guess is all it is). */
const HEADS_KEPT = 1024;
/** Rows per INSERT in a batch (12 parameters each, well under PostgreSQL's 65,535). */
const CHUNK = 1000;
const KINDS: ReadonlySet<string> = new Set(EVENT_KINDS);


interface Head {
  seq: number;
  hash: string;
}

/** What seat_append answered other than 'ok': the incident's real head, and the event that answers where there is one. */
interface Answer {
  outcome: 'ok' | 'moved' | 'duplicate' | 'conflict' | 'no_incident' | 'damaged' | 'no_amends' | 'opened' | 'closed';
  headSeq: number | null;
  headHash: string | null;
  keptEvents: number | null;
  keptHash: string | null;
  closedAt: string | null;
  version: number | null;
  /** A dedupe key's first event, or the step's last decision. */
  event: EventRow | null;
}

const RECORDED: Answer = { outcome: 'ok', headSeq: null, headHash: null, keptEvents: null, keptHash: null, closedAt: null, version: null, event: null };

/** seat_append's one text column: 'ok', or the JSON of an Answer. */
function answer(rs: readonly { a: string }[]): Answer {
  const text = rs[0]?.a;
  if (text === 'ok') return RECORDED;
  if (typeof text !== 'string') throw new JournalError('journal_io', 'seat_append gave no answer; nothing was recorded');
  return JSON.parse(text) as Answer;
}

/** Opens the journal at a `postgres://` URL (one host or several); refuses a database whose schema is missing or older. */
export async function openPostgresJournal(url: string, o: PostgresJournalOptions = {}): Promise<JournalStore> {
  const shown = shownJournal(url);
  const sql = connect(url, o);
  try {
    // Bounded: with the primary dead and a hot standby up, postgres.js would go round the hosts for ever.
    const v = await bounded(schemaVersion(sql), deadlineMs(url, o), shown);
    if (v < PG_SCHEMA_VERSION) {
      throw new JournalError('journal_unmigrated', `${shown}: the journal's schema is ${v === 0 ? 'missing' : `at version ${v}, older than this seatbelt's ${PG_SCHEMA_VERSION}`}: run seat journal migrate --journal <the URL> as the database owner`);
    }
    if (v > PG_SCHEMA_VERSION) {
      throw new JournalError('journal_newer', `${shown}: this journal has schema version ${v}, written by a newer seatbelt; this one knows up to version ${PG_SCHEMA_VERSION}. Upgrade seatbelt to use it`);
    }
  } catch (err) {
    await sql.end({ timeout: 1 }).catch(() => undefined);
    throw explainPg(err, shown, false);
  }
  return new PostgresJournal(sql, () => connect(url, o), shown, o.now ?? (() => new Date()), deadlineMs(url, o));
}

/** How long a call waits for a writable primary before it answers journal_unavailable: the connect timeout, per host. */
function deadlineMs(url: string, o: PostgresJournalOptions): number {
  const t = /[?&]connect_timeout=(\d+)/.exec(url)?.[1];
  return (t !== undefined ? Number(t) : (o.connectTimeoutS ?? 5)) * 1000 + 500;
}

/** `p`, or a journal_unavailable once `ms` have passed (postgres.js keeps trying hosts on its own: bounded here). */
function bounded<T>(p: Promise<T>, ms: number, shown: string, late?: (v: T) => void): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    let done = false;
    const timer = setTimeout(() => {
      done = true;
      reject(new JournalError('journal_unavailable', `${shown}: no writable PostgreSQL primary could be reached within ${(ms / 1000).toFixed(1)} s; nothing was recorded`));
    }, ms);
    timer.unref?.();
    p.then(
      (v) => {
        clearTimeout(timer);
        if (done) late?.(v);
        else resolve(v);
      },
      (err: unknown) => {
        clearTimeout(timer);
        if (!done) reject(err instanceof Error ? err : new Error(String(err)));
      },
    );
  });
}

/**
 * A postgres.js pool for the URL. postgres.js 3.4 decides `read-write` from the server's
 * default_transaction_read_only alone, which a hot standby reports `off`: it is asked for `primary`
 * (not in recovery) instead, which is what read-write means on a streaming pair.
 */
export function connect(url: string, o: { connectTimeoutS?: number; max?: number; settings?: Record<string, string> } = {}): Sql {
  let tsa: string | null = null;
  let timeout: number | undefined;
  try {
    const q = new URL(url.replace(/^(postgres(?:ql)?:\/\/)(?:[^@/?]*@)?[^/?]*/i, '$1h'));
    tsa = q.searchParams.get('target_session_attrs');
    const t = q.searchParams.get('connect_timeout');
    if (t !== null && /^\d+$/.test(t)) timeout = Number(t);
  } catch {
    throw new JournalError('bad_event', `${shownJournal(url)}: not a PostgreSQL URL like postgres://user@host1:5432,host2:5432/seat?target_session_attrs=read-write`);
  }
  return postgres(url, {
    max: o.max ?? 4,
    connect_timeout: timeout ?? o.connectTimeoutS ?? 5,
    fetch_types: false,
    onnotice: () => undefined,
    idle_timeout: 60,
    ...(tsa === 'read-write' ? { target_session_attrs: 'primary' as const } : {}),
    connection: { application_name: 'seatbelt', ...o.settings },
  });
}

/** Where the chain's end and the incident's head record disagree, if they do (the SQLite store's words). */
function cutAt(kept: { events: number; hash: string } | undefined, seq: number, hash: string): { seq: number; why: string } | undefined {
  if (!kept) return { seq, why: 'its head record is missing (the heads table has no row for it)' };
  const says = `the head record says ${kept.events} event${kept.events === 1 ? '' : 's'} ending at ${String(kept.hash).slice(0, 12)}`;
  if (kept.events > seq) return { seq: seq + 1, why: `${kept.events === seq + 1 ? `event ${seq + 1} is` : `events ${seq + 1} to ${kept.events} are`} missing: ${says}, the chain ends at event ${seq} (its newest events were removed)` };
  if (kept.events < seq) return { seq: kept.events + 1, why: `the chain goes on past its head record to event ${seq}: ${says} (events were added outside seatbelt)` };
  if (kept.hash !== hash) return { seq, why: `event ${seq} is not the recorded head: ${says}` };
  return undefined;
}



function isJsonObject(s: unknown): boolean {
  if (typeof s !== 'string' || s[0] !== '{') return false;
  try {
    JSON.parse(s);
    return true;
  } catch {
    return false;
  }
}

function noIncident(id: number): JournalError {
  return new JournalError('no_incident', `there is no incident #${id}`);
}

const LOST = new Set(['ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH', 'ENOTFOUND', 'EAI_AGAIN', 'CONNECTION_CLOSED', 'CONNECTION_DESTROYED', 'CONNECTION_ENDED', 'CONNECT_TIMEOUT']);

/** A failure in words a person can act on, with a JournalError code; `committing`: COMMIT had been sent. */
export function explainPg(err: unknown, shown: string, committing: boolean): Error {
  if (err instanceof JournalError) return err;
  const e = err as { code?: unknown; message?: unknown; constraint_name?: unknown };
  const code = typeof e.code === 'string' ? e.code : '';
  const message = typeof e.message === 'string' ? e.message : String(err);
  const cause = { cause: err };
  if (LOST.has(code) || code.startsWith('08') || code.startsWith('57P') || code === '25006' || code.startsWith('28') || code === '3D000') {
    const what = committing
      ? 'the connection was lost while the transaction committed: it may or may not have been recorded (repeating it with the same dedupe key records it once; seat journal verify shows what is there)'
      : 'nothing was recorded';
    const why = code === '25006' ? 'the server is a read-only standby' : code.startsWith('28') || code === '3D000' ? message : `${code || 'connection lost'}`;
    return new JournalError('journal_unavailable', `${shown}: no writable PostgreSQL primary could be reached (${why}); ${what}`, cause);
  }
  if (code === '53100') return new JournalError('journal_full', `${shown}: the database server's disk is full; nothing was written`, cause);
  if (code === '42501') return new JournalError('journal_readonly', `${shown}: this database role may not do that (${message}); nothing was written`, cause);
  if (code === 'P0001') return new JournalError('journal_readonly', message, cause);
  if (code === '40001' || code === '40P01' || code === '55P03') return new JournalError('journal_busy', `${shown}: the journal is busy (${message}); nothing was written, try again`, cause);
  if (code === '42P01') return new JournalError('journal_unmigrated', `${shown}: the journal's schema is missing a table (${message}): run seat journal migrate`, cause);
  if (code.startsWith('22') || code.startsWith('23')) return new JournalError('bad_event', `${shown}: the database refused the event (${message})`, cause);
  return new JournalError('journal_io', `${shown}: ${message}`, cause);
}

function retryable(err: unknown): boolean {
  const e = err as { code?: unknown; constraint_name?: unknown };
  return e.code === '23505' && (e.constraint_name === 'events_dedupe' || e.constraint_name === 'threads_unique' || e.constraint_name === 'events_seq');
}

type Tx = TransactionSql;

class PostgresJournal implements JournalStore {
  readonly kind = 'postgres' as const;
  /**
   * The last head this store saw of each incident (its own appends, seat_append's answers), oldest
   * first: append() hashes its row on it. Only a guess: seat_append refuses a row built on a head
   * that moved (another replica appended) and answers with the real one.
   */
  private readonly seen = new Map<number, Head>();

  constructor(
    private sql: Sql,
    private readonly make: () => Sql,
    readonly path: string,
    private readonly now: () => Date,
    private readonly deadline: number,
  ) {}

  // --- transactions ---------------------------------------------------------------------------

  /**
   * One transaction on one connection: BEGIN, the advisory locks of `incidents` (in id order, so
   * two batches never deadlock) and `work`'s statements pipelined; a unique-key race retried once.
   */
  private async tx<T>(incidents: number[], work: (c: Tx, recordedAt: string) => Promise<{ value: T; writes?: (c: Tx) => Promise<unknown>[] }>, at?: string): Promise<T> {
    for (let attempt = 0; ; attempt++) {
      // Until the transaction has a connection, a lost primary is answered within the deadline;
      // once it runs, the socket's own failure ends it. A connection found after the deadline rolls back.
      let started = false;
      let abandoned = false;
      let committing = false;
      try {
        const run = this.sql.begin(async (c) => {
          if (abandoned) throw new JournalError('journal_unavailable', `${this.path}: no writable PostgreSQL primary in time; nothing was recorded`);
          started = true;
          await Promise.all([...new Set(incidents)].sort((a, b) => a - b).map((id) => c`SELECT pg_advisory_xact_lock(${LOCK_CLASS}, ${id})`));
          const { value, writes } = await work(c, at ?? this.stamp());
          if (writes) await Promise.all(writes(c));
          // postgres.js sends COMMIT once this returns: from here a lost connection leaves it in doubt.
          committing = true;
          return [value] as const;
        });
        const [value] = await new Promise<readonly [T]>((resolve, reject) => {
          const timer = setTimeout(() => {
            if (started) return;
            abandoned = true;
            reject(new JournalError('journal_unavailable', `${this.path}: no writable PostgreSQL primary could be reached within ${(this.deadline / 1000).toFixed(1)} s; nothing was recorded`));
          }, this.deadline);
          timer.unref?.();
          run.then(
            (v) => {
              clearTimeout(timer);
              resolve(v as unknown as readonly [T]);
            },
            (err: unknown) => {
              clearTimeout(timer);
              reject(err instanceof Error ? err : new Error(String(err)));
            },
          );
        });
        return value;
      } catch (err) {
        if (!committing && attempt === 0 && retryable(err)) continue;
        throw this.failed(err, committing);
      }
    }
  }

  /**
   * The error as told, and a fresh pool after a lost primary: postgres.js 3.4's pool can keep
   * cycling the hosts it had after a failover; a new one finds the promoted node on its next call.
   * The heads seen are forgotten with the old pool: what the promoted node holds is asked anew.
   */
  private failed(err: unknown, committing: boolean): Error {
    const e = explainPg(err, this.path, committing);
    if (e instanceof JournalError && e.code === 'journal_unavailable') {
      this.seen.clear();
      const old = this.sql;
      this.sql = this.make();
      old.end({ timeout: 0 }).catch(() => undefined);
    }
    return e;
  }

  private stamp(): string {
    const t = this.now();
    if (Number.isNaN(t.getTime())) throw new Error('the clock gave an invalid date');
    return t.toISOString();
  }

  private async read<T>(f: () => Promise<T>): Promise<T> {
    try {
      return await bounded(f(), this.deadline, this.path);
    } catch (err) {
      throw this.failed(err, false);
    }
  }

  // --- lookups inside a transaction (after the lock) --------------------------------------------

  private async byDedupe(c: Sql | Tx, keys: string[]): Promise<Map<string, EventRow>> {
    if (keys.length === 0) return new Map();
    const rows = await c.unsafe<EventRow[]>(`SELECT ${EVENT_COLUMNS} FROM events WHERE dedupe IN (SELECT jsonb_array_elements_text($1::text::jsonb))`, [JSON.stringify(keys)]);
    return new Map(rows.map((r) => [r.dedupe as string, r]));
  }

  /** The head of each incident, checked against its head record; throws no_incident / journal_damaged. */
  private async heads(c: Sql | Tx, ids: number[]): Promise<Map<number, Head & { closedAt?: string }>> {
    const rows = await c.unsafe<{ id: number; seq: number | null; hash: string | null; kept_events: number | null; kept_hash: string | null; closed_at: string | null }[]>(
      `SELECT i.id, e.seq, e.hash, k.events AS kept_events, k.hash AS kept_hash, cl.happened_at AS closed_at
         FROM (SELECT value::integer AS id FROM jsonb_array_elements_text($1::text::jsonb)) AS i
         LEFT JOIN LATERAL (SELECT seq, hash FROM events WHERE incident = i.id ORDER BY seq DESC LIMIT 1) e ON true
         LEFT JOIN LATERAL (SELECT events, hash FROM heads WHERE incident = i.id ORDER BY events DESC LIMIT 1) k ON true
         LEFT JOIN LATERAL (SELECT happened_at FROM events WHERE incident = i.id AND kind = 'incident.closed' ORDER BY seq LIMIT 1) cl ON true`,
      [JSON.stringify(ids)],
    );
    const out = new Map<number, Head & { closedAt?: string }>();
    for (const r of rows) {
      if (r.seq === null || r.hash === null) throw noIncident(r.id);
      const cut = cutAt(r.kept_events === null ? undefined : { events: r.kept_events, hash: r.kept_hash as string }, r.seq, r.hash);
      if (cut) throw new JournalError('journal_damaged', `incident #${r.id}'s chain does not hold: event ${cut.seq}: ${cut.why}; nothing was recorded (seat journal verify ${r.id})`);
      out.set(r.id, { seq: r.seq, hash: r.hash, ...(r.closed_at === null ? {} : { closedAt: r.closed_at }) });
    }
    return out;
  }

  private async version(c: Sql | Tx, incident: number, step: string): Promise<{ version: number; last?: JournalEvent }> {
    const rows = await c.unsafe<(EventRow & { n: number })[]>(
      `SELECT ${EVENT_COLUMNS}, count(*) OVER ()::integer AS n FROM events WHERE incident = $1 AND step = $2 AND ${DECIDES} ORDER BY seq DESC LIMIT 1`,
      [incident, step],
    );
    const r = rows[0];
    if (!r) return { version: 0 };
    const { n, ...row } = r;
    return { version: n, last: toEvent(row) };
  }

  /** The event's row, checked against its incident's head (carried through a batch) and hashed. */
  private build(c: CheckedEvent, head: Head & { closedAt?: string }, recordedAt: string): EventRow {
    const e = c.input;
    if (e.amends !== undefined && !(e.amends >= 1 && e.amends <= head.seq)) {
      throw new JournalError('bad_event', `incident #${e.incident} has no event ${e.amends} to amend (its events are 1 to ${head.seq})`);
    }
    if (e.kind === 'incident.opened' && head.seq !== 0) throw new JournalError('bad_event', 'an incident is opened once: use openIncident');
    if (e.kind === 'incident.closed' && head.closedAt !== undefined) throw new JournalError('already_closed', `incident #${e.incident} is already closed (at ${head.closedAt})`);
    return chainRow(c, head, recordedAt);
  }

  private inserts(c: Tx, rows: EventRow[], heads: Iterable<EventRow>): Promise<unknown>[] {
    const out: Promise<unknown>[] = [];
    for (let i = 0; i < rows.length; i += CHUNK) {
      const part = rows.slice(i, i + CHUNK).map((r) => ({
        incident: r.incident, seq: r.seq, kind: r.kind, actor: r.actor, happened_at: r.happenedAt, recorded_at: r.recordedAt,
        step: r.step, payload: r.payload, amends: r.amends, dedupe: r.dedupe, prev_hash: r.prevHash, hash: r.hash,
      }));
      out.push(c`INSERT INTO events ${c(part, 'incident', 'seq', 'kind', 'actor', 'happened_at', 'recorded_at', 'step', 'payload', 'amends', 'dedupe', 'prev_hash', 'hash')}`);
    }
    for (const h of heads) out.push(c`INSERT INTO heads (incident, events, hash) VALUES (${h.incident}, ${h.seq}, ${h.hash})`);
    return out;
  }

  // --- writes ---------------------------------------------------------------------------------

  async openIncident(o: OpenIncident): Promise<{ incident: Incident; event: JournalEvent; duplicate: boolean }> {
    const { c } = checkOpening(o);
    const r = await this.tx([], async (t, recordedAt) => {
      if (o.dedupe !== undefined) {
        const first = (await this.byDedupe(t, [o.dedupe])).get(o.dedupe);
        if (first) {
          if (first.kind !== 'incident.opened') throw new JournalError('bad_event', `the dedupe key ${JSON.stringify(o.dedupe)} was already used by a ${first.kind} event of incident #${first.incident}`);
          return { value: { id: first.incident, event: toEvent(first), duplicate: true } };
        }
      }
      if (o.slack) await this.threadFree(t, o.slack.channel, o.slack.thread, undefined);
      const [row] = await t<{ id: number }[]>`INSERT INTO incidents (site, title, opened_by, opened_at, drill) VALUES (${o.site}, ${o.title}, ${c.actorJson}, ${o.at}, ${o.drill ? 1 : 0}) RETURNING id`;
      const id = (row as { id: number }).id;
      const ev = this.build({ ...c, input: { ...c.input, incident: id } }, { seq: 0, hash: GENESIS }, recordedAt);
      return {
        value: { id, event: toEvent(ev, c.actor), duplicate: false },
        writes: (w: Tx) => [...this.inserts(w, [ev], [ev]), ...(o.slack ? [w`INSERT INTO threads (incident, channel, thread) VALUES (${id}, ${o.slack.channel}, ${o.slack.thread})`] : [])],
      };
    });
    if (!r.duplicate) this.saw(r.id, { seq: r.event.seq, hash: r.event.hash });
    const incident = await this.incident(r.id);
    if (!incident) throw noIncident(r.id);
    return { incident, event: r.event, duplicate: r.duplicate };
  }

  closeIncident(id: number, actor: Actor, at: string, reason?: string, dedupe?: string): Promise<AppendResult> {
    return this.append({ incident: id, kind: 'incident.closed', actor, happenedAt: at, payload: reason === undefined ? {} : { reason }, dedupe });
  }

  private async threadFree(c: Sql | Tx, channel: string, thread: string, id: number | undefined): Promise<boolean> {
    const [r] = await c<{ incident: number }[]>`SELECT incident FROM threads WHERE channel = ${channel} AND thread = ${thread}`;
    if (r && r.incident !== id) throw new JournalError('thread_taken', `that Slack thread already belongs to incident #${r.incident}`);
    return r === undefined;
  }

  async setSlackThread(id: number, channel: string, thread: string): Promise<void> {
    checkWord(channel, 'the Slack channel');
    checkWord(thread, 'the Slack thread');
    await this.tx([], async (t) => {
      const [has] = await t`SELECT 1 FROM incidents WHERE id = ${id}`;
      if (!has) throw noIncident(id);
      // A thread once given to an incident stays its (threads is insert-only): given again, nothing to add.
      const free = await this.threadFree(t, channel, thread, id);
      return { value: undefined, writes: free ? (w: Tx) => [w`INSERT INTO threads (incident, channel, thread) VALUES (${id}, ${channel}, ${thread})`] : undefined };
    });
  }

  /**
   * One decision in one autocommit statement, seat_append: the row hashed here on the head last
   * seen, checked and inserted under the incident's lock there. A head that moved is built on once
   * more; moved again (replicas appending to it at once), the row is built under the lock in one
   * transaction, where the head cannot move between reading and writing.
   */
  async append(e: EventInput, expect?: StepExpectation): Promise<AppendResult> {
    const c = checkEvent(e);
    if (expect) {
      if (!Number.isSafeInteger(expect.version) || expect.version < 0) throw new JournalError('bad_event', `the expected step version must be a count like 0 or 2; got ${String(expect.version)}`);
      if (e.step !== expect.step) throw new JournalError('bad_event', `the expectation is about step ${JSON.stringify(expect.step)} but the event is about ${e.step === undefined ? 'no step' : JSON.stringify(e.step)}`);
    }
    // One recordedAt for the decision, however many tries it takes.
    const recordedAt = this.stamp();
    try {
      let raced = false;
      for (let asked = 0; asked < 2; ) {
        const head = this.seen.get(e.incident);
        // No head seen yet: the statement only asks (and answers a duplicate or a conflict as well).
        const row = head && chainRow(c, head, recordedAt);
        let got: Answer;
        try {
          got = await this.once(c, row, expect);
        } catch (err) {
          // A dedupe key taken by another incident's append at that instant: asked again, it is a duplicate.
          if (!raced && err instanceof JournalError && err.cause !== undefined && retryable(err.cause)) {
            raced = true;
            continue;
          }
          throw err;
        }
        asked++;
        const r = this.settle(c, expect, got, row);
        if (r !== 'moved') return r;
      }
      return await this.tx([], async (t) => {
        const asked = this.settle(c, expect, answer(await this.seatAppend(t, c, undefined, expect)), undefined);
        if (asked !== 'moved') return { value: asked };
        const row = chainRow(c, this.seen.get(e.incident) as Head, recordedAt);
        const r = this.settle(c, expect, answer(await this.seatAppend(t, c, row, expect)), row);
        if (r === 'moved') throw new JournalError('journal_io', `${this.path}: incident #${e.incident}'s head moved while its lock was held; nothing was recorded`);
        return { value: r };
      }, recordedAt);
    } catch (err) {
      // In doubt, refused or damaged: what the head is now is asked next time.
      this.seen.delete(e.incident);
      throw err;
    }
  }

  /** The seat_append statement for an event, its row hashed on a head (none: only ask), not yet sent. */
  private seatAppend(q: Sql | Tx, c: CheckedEvent, row: EventRow | undefined, expect: StepExpectation | undefined): PendingQuery<{ a: string }[]> {
    const e = c.input;
    return q<{ a: string }[]>`SELECT seat_append(${e.incident}, ${row?.seq ?? null}, ${e.kind}, ${c.actorJson}, ${e.happenedAt}, ${row?.recordedAt ?? null},
      ${e.step ?? null}, ${c.payloadJson}, ${e.amends ?? null}, ${e.dedupe ?? null}, ${row?.prevHash ?? null}, ${row?.hash ?? null}, ${expect?.version ?? null}) AS a`;
  }

  /** seat_append's answer as append() gives it, the head it names kept; 'moved': build on that head. */
  private settle(c: CheckedEvent, expect: StepExpectation | undefined, a: Answer, row: EventRow | undefined): AppendResult | 'moved' {
    const id = c.input.incident;
    if (a.outcome === 'no_incident') throw noIncident(id);
    if (a.outcome === 'damaged') {
      const cut = cutAt(a.keptEvents === null ? undefined : { events: a.keptEvents, hash: a.keptHash as string }, a.headSeq as number, a.headHash as string);
      throw new JournalError('journal_damaged', `incident #${id}'s chain does not hold: event ${cut?.seq ?? (a.headSeq as number)}: ${cut?.why ?? 'its head record disagrees with its events'}; nothing was recorded (seat journal verify ${id})`);
    }
    if (a.outcome === 'ok' && row) {
      this.saw(id, { seq: row.seq, hash: row.hash });
      return { ok: true, event: toEvent(row, c.actor), duplicate: false };
    }
    if (a.headSeq !== null && a.headHash !== null) this.saw(id, { seq: a.headSeq, hash: a.headHash });
    switch (a.outcome) {
      case 'moved':
        return 'moved';
      case 'duplicate':
        return { ok: true, event: toEvent(a.event as EventRow), duplicate: true };
      case 'conflict': {
        const x = expect as StepExpectation;
        if (!a.event) throw new JournalError('bad_event', `step ${x.step} of incident #${id} has no decision yet, but version ${x.version} was expected`);
        const last = toEvent(a.event);
        return { ok: false, conflict: { step: x.step, version: a.version as number, by: last.actor, at: last.recordedAt, kind: last.kind } };
      }
      case 'no_amends':
        throw new JournalError('bad_event', `incident #${id} has no event ${String(c.input.amends)} to amend (its events are 1 to ${String(a.headSeq)})`);
      case 'opened':
        throw new JournalError('bad_event', 'an incident is opened once: use openIncident');
      case 'closed':
        throw new JournalError('already_closed', `incident #${id} is already closed (at ${String(a.closedAt)})`);
      default:
        throw new JournalError('journal_io', `${this.path}: seat_append answered ${JSON.stringify(String(a.outcome))}; nothing was recorded`);
    }
  }

  /** Keeps an incident's head as seen last, the newest at the end, the oldest let go past HEADS_KEPT. */
  private saw(id: number, head: Head): void {
    this.seen.delete(id);
    this.seen.set(id, head);
    if (this.seen.size > HEADS_KEPT) this.seen.delete(this.seen.keys().next().value as number);
  }

  /**
   * seat_append as one autocommit statement on the pool. Until the statement is sent, a lost
   * primary is answered within the deadline, and the statement is taken back so it is never sent
   * later; once sent, it is its own commit, so a lost connection leaves a row in doubt. postgres.js
   * marks a query sent by giving it `state` (the backend it went to, which cancel() uses) as it
   * writes it: nothing public tells that.
   */
  private async once(c: CheckedEvent, row: EventRow | undefined, expect: StepExpectation | undefined): Promise<Answer> {
    const q = this.seatAppend(this.sql, c, row, expect);
    const sent = () => ((q as unknown as { state?: unknown }).state ?? null) !== null;
    try {
      return await new Promise<Answer>((resolve, reject) => {
        const timer = setTimeout(() => {
          if (sent()) return;
          void Promise.resolve(q.cancel()).catch(() => undefined);
          reject(new JournalError('journal_unavailable', `${this.path}: no writable PostgreSQL primary could be reached within ${(this.deadline / 1000).toFixed(1)} s; nothing was recorded`));
        }, this.deadline);
        timer.unref?.();
        q.then(
          (rs) => {
            clearTimeout(timer);
            try {
              resolve(answer(rs));
            } catch (err) {
              reject(err instanceof Error ? err : new Error(String(err)));
            }
          },
          (err: unknown) => {
            clearTimeout(timer);
            reject(err instanceof Error ? err : new Error(String(err)));
          },
        );
      });
    } catch (err) {
      throw this.failed(err, row !== undefined && sent());
    }
  }

  async appendMany(events: EventInput[]): Promise<JournalEvent[]> {
    const cs = checkEvents(events);
    if (cs.length === 0) return [];
    const ids = [...new Set(cs.map((c) => c.input.incident))];
    // Each incident's newest row, its head seen once the batch commits (filled anew if the batch is retried).
    const last = new Map<number, EventRow>();
    const out = await this.tx(ids, async (t, recordedAt) => {
      const keys = cs.flatMap((c) => (c.input.dedupe === undefined ? [] : [c.input.dedupe]));
      const [firsts, heads] = await Promise.all([this.byDedupe(t, keys), this.heads(t, ids)]);
      const carried = new Map<number, Head & { closedAt?: string }>(heads);
      const inBatch = new Map<string, JournalEvent>();
      const rows: EventRow[] = [];
      last.clear();
      const out: JournalEvent[] = [];
      for (const c of cs) {
        const key = c.input.dedupe;
        if (key !== undefined) {
          const first = firsts.get(key);
          const again = first ? toEvent(first) : inBatch.get(key);
          if (again) {
            out.push(again);
            continue;
          }
        }
        const head = carried.get(c.input.incident) as Head & { closedAt?: string };
        const row = this.build(c, head, recordedAt);
        carried.set(row.incident, { seq: row.seq, hash: row.hash, ...(row.kind === 'incident.closed' ? { closedAt: row.happenedAt } : head.closedAt === undefined ? {} : { closedAt: head.closedAt }) });
        rows.push(row);
        last.set(row.incident, row);
        const ev = toEvent(row, c.actor, c.exact ? c.input.payload : undefined);
        if (key !== undefined) inBatch.set(key, ev);
        out.push(ev);
      }
      return { value: out, writes: (w: Tx) => this.inserts(w, rows, last.values()) };
    });
    for (const row of last.values()) this.saw(row.incident, { seq: row.seq, hash: row.hash });
    return out;
  }

  // --- reads ----------------------------------------------------------------------------------

  async incident(id: number): Promise<Incident | undefined> {
    const rows = await this.read(() => this.sql.unsafe<IncidentColumns[]>(`${INCIDENT_SELECT} WHERE i.id = $1`, [id]));
    return rows[0] && projectIncident(rows[0]).incident;
  }

  async incidentByThread(channel: string, thread: string): Promise<Incident | undefined> {
    const rows = await this.read(() => this.sql.unsafe<IncidentColumns[]>(`${INCIDENT_SELECT} WHERE i.id = (SELECT incident FROM threads WHERE channel = $1 AND thread = $2)`, [channel, thread]));
    return rows[0] && projectIncident(rows[0]).incident;
  }

  async incidents(o: { status?: IncidentStatus; limit?: number } = {}): Promise<Incident[]> {
    const where = o.status === 'open' ? 'WHERE c.seq IS NULL' : o.status === 'closed' ? 'WHERE c.seq IS NOT NULL' : '';
    const limit = o.limit === undefined || o.limit < 0 ? 'ALL' : String(Math.floor(o.limit));
    const rows = await this.read(() => this.sql.unsafe<IncidentColumns[]>(`${INCIDENT_SELECT} ${where} ORDER BY i.id DESC LIMIT ${limit}`));
    return rows.map((r) => projectIncident(r).incident);
  }

  async newestOpen(): Promise<Incident | undefined> {
    return (await this.incidents({ status: 'open', limit: 1 }))[0];
  }

  async events(incident: number, o: { fromSeq?: number } = {}): Promise<JournalEvent[]> {
    const rows = await this.read(() => this.sql.unsafe<EventRow[]>(`SELECT ${EVENT_COLUMNS} FROM events WHERE incident = $1 AND seq >= $2 ORDER BY seq`, [incident, o.fromSeq ?? 1]));
    return rows.map((r) => toEvent(r));
  }

  stepVersion(incident: number, step: string): Promise<{ version: number; last?: JournalEvent }> {
    return this.read(() => this.version(this.sql, incident, step));
  }

  /** As the SQLite store's verify(), in the same words: rows streamed in (incident, seq) order. */
  /**
   * Every link recomputed. One REPEATABLE READ snapshot for all of it: the events, the head records and
   * the incident rows read as of one instant, so an append committing meanwhile (another replica's)
   * is never taken for a cut chain. The events stream by cursor; the incidents' own checks come after.
   */
  async verify(incident?: number): Promise<VerifyResult> {
    return this.read(() =>
      this.sql.begin('isolation level repeatable read read only', async (t): Promise<VerifyResult> => {
        if (incident !== undefined && (await t`SELECT 1 FROM incidents WHERE id = ${incident}`).length === 0) throw noIncident(incident);
        const heads = new Map<number, string>();
        /** Each incident's end as its events say: checked against its head record and row once the cursor is done. */
        const ends: { id: number; seq: number; hash: string }[] = [];
        let current = -1;
        let next = 1;
        let prev = GENESIS;
        let checked = 0;
        const fail = (inc: number, seq: number, why: string, part?: 'row'): VerifyResult => ({ ok: false, incident: inc, seq, why, events: checked, ...(part ? { part } : {}) });
        const query = incident === undefined
          ? t.unsafe<EventRow[]>(`SELECT ${EVENT_COLUMNS} FROM events ORDER BY incident, seq`)
          : t.unsafe<EventRow[]>(`SELECT ${EVENT_COLUMNS} FROM events WHERE incident = $1 ORDER BY seq`, [incident]);
        let failure: VerifyResult | undefined;
        scan: for await (const batch of query.cursor(5000)) {
          for (const r of batch) {
            if (r.incident !== current) {
              if (current !== -1) ends.push({ id: current, seq: next - 1, hash: prev });
              current = r.incident;
              next = 1;
              prev = GENESIS;
            }
            if (r.seq !== next) failure = fail(current, next, r.seq === next + 1 ? `seq ${next} missing` : `seq ${next} to ${r.seq - 1} missing`);
            else if (hashStored(r) !== r.hash) failure = fail(current, r.seq, 'hash does not match its content');
            else if (r.prevHash !== prev) failure = fail(current, r.seq, r.seq === 1 ? 'prev_hash is not the genesis hash (64 zeros)' : 'prev_hash does not match the previous event');
            else if (!isJsonObject(r.actor) || !isJsonObject(r.payload)) failure = fail(current, r.seq, `unreadable: its ${!isJsonObject(r.actor) ? 'actor' : 'payload'} is not a JSON object (the row was written outside seatbelt, its hash made to match)`);
            else if (!KINDS.has(r.kind)) failure = fail(current, r.seq, `unreadable: its kind ${JSON.stringify(String(r.kind).slice(0, 40))} is not an event kind`);
            if (failure) break scan;
            prev = r.hash;
            next = r.seq + 1;
            checked++;
            heads.set(current, prev);
          }
        }
        if (!failure && current !== -1) ends.push({ id: current, seq: next - 1, hash: prev });
        // The incidents before the first broken event, in order: the first break of the journal is the one told.
        for (const e of ends) {
          const whole = await this.wholeIncident(t, e.id, e.seq, e.hash);
          if (whole) return fail(e.id, whole.seq, whole.why, whole.part);
        }
        if (failure) return failure;
        const eventless = incident === undefined
          ? (await t<{ id: number }[]>`SELECT id FROM incidents i WHERE NOT EXISTS (SELECT 1 FROM events WHERE events.incident = i.id) ORDER BY id LIMIT 1`)[0]?.id
          : heads.size === 0 ? incident : undefined;
        if (eventless !== undefined) return fail(eventless, 1, 'seq 1 missing: the incident has no events');
        return { ok: true, incidents: heads.size, events: checked, heads };
      }),
    );
  }

  private async wholeIncident(c: Sql | Tx, id: number, seq: number, hash: string): Promise<{ seq: number; why: string; part?: 'row' } | undefined> {
    const [rows, kept] = await Promise.all([
      c.unsafe<IncidentColumns[]>(`${INCIDENT_SELECT} WHERE i.id = $1`, [id]),
      c<{ events: number; hash: string }[]>`SELECT events, hash FROM heads WHERE incident = ${id} ORDER BY events DESC LIMIT 1`,
    ]);
    const row = rows[0];
    if (!row) return { seq: 1, why: 'the incident itself is missing: its row was deleted' };
    const cut = cutAt(kept[0], seq, hash);
    if (cut) return cut;
    const { problems } = projectIncident(row);
    const first = problems[0];
    if (first) return { seq: first.seq, why: `the incident row differs from its events: ${problems.map((p) => p.text).join('; ')}`, part: 'row' };
    return undefined;
  }

  async findHash(prefix: string, incident?: number): Promise<HashMatch[]> {
    if (!/^[0-9a-f]{8,64}$/.test(prefix)) throw new JournalError('bad_event', `a head is 8 to 64 hex digits (seat journal verify prints 12); got ${JSON.stringify(prefix.slice(0, 70))}`);
    const like = `${prefix}%`;
    return this.read(() => (incident === undefined
      ? this.sql<HashMatch[]>`SELECT incident, seq FROM events WHERE hash LIKE ${like} ORDER BY incident, seq LIMIT 10`
      : this.sql<HashMatch[]>`SELECT incident, seq FROM events WHERE incident = ${incident} AND hash LIKE ${like} ORDER BY seq LIMIT 10`).then((r) => [...r]));
  }

  async close(): Promise<void> {
    await this.sql.end({ timeout: 2 });
  }

  /** Leases and heartbeats, insert-only like the rest: the newest row is what holds. */
  readonly replicaSide: ReplicaSide = {
    takeLease: (l: Lease): Promise<LeaseResult> => {
      const actorJson = JSON.stringify(checkActor(l.by));
      checkWord(l.step, 'the step');
      checkWord(l.replica, 'the replica');
      checkTime(l.at, 'the time the lease was taken');
      checkTime(l.until, 'the time the lease ends');
      return this.tx([l.incident], async (c) => {
        const [row] = await c<{ token: string; actor: string; replica: string; at: string; until: string; released: boolean }[]>`SELECT token, actor, replica, taken_at AS at, until, released FROM leases WHERE incident = ${l.incident} AND step = ${l.step} ORDER BY id DESC LIMIT 1`;
        const was = row && !row.released ? { incident: l.incident, step: l.step, by: JSON.parse(row.actor) as Actor, replica: row.replica, at: row.at, until: row.until } : undefined;
        if (was && Date.parse(was.until) > Date.parse(l.at)) return { value: { ok: false, held: was } as LeaseResult };
        const token = randomUUID();
        return {
          value: (was ? { ok: true, token, expired: was } : { ok: true, token }) as LeaseResult,
          writes: (t) => [t`INSERT INTO leases (incident, step, token, actor, replica, taken_at, until) VALUES (${l.incident}, ${l.step}, ${token}, ${actorJson}, ${l.replica}, ${l.at}, ${l.until})`],
        };
      });
    },
    dropLease: (incident: number, step: string, token: string): Promise<void> =>
      this.tx([incident], async (c) => {
        const [row] = await c<{ token: string; actor: string; replica: string; at: string; until: string; released: boolean }[]>`SELECT token, actor, replica, taken_at AS at, until, released FROM leases WHERE incident = ${incident} AND step = ${step} ORDER BY id DESC LIMIT 1`;
        if (!row || row.released || row.token !== token) return { value: undefined };
        return { value: undefined, writes: (t) => [t`INSERT INTO leases (incident, step, token, actor, replica, taken_at, until, released) VALUES (${incident}, ${step}, ${token}, ${row.actor}, ${row.replica}, ${row.at}, ${row.until}, true)`] };
      }),
    heartbeat: async (r): Promise<void> => {
      checkTime(r.at, 'the heartbeat time');
      const v = [checkWord(r.replica, 'the replica'), checkWord(r.site, 'the site'), checkWord(r.host, 'the host'), checkWord(r.version, 'the version')];
      await this.read(() => this.sql`INSERT INTO heartbeats (replica, site, host, version, at) VALUES (${v[0]!}, ${v[1]!}, ${v[2]!}, ${v[3]!}, ${r.at})`);
    },
    replicas: (): Promise<ReplicaSeen[]> =>
      this.read(async () => {
        const rows = await this.sql<ReplicaSeen[]>`SELECT DISTINCT ON (h.replica) h.replica, h.site, h.host, h.version, (SELECT min(at) FROM heartbeats f WHERE f.replica = h.replica) AS started, h.at AS "lastSeen" FROM heartbeats h ORDER BY h.replica, h.id DESC`;
        return [...rows].sort((a, b) => (a.lastSeen < b.lastSeen ? 1 : a.lastSeen > b.lastSeen ? -1 : a.replica.localeCompare(b.replica)));
      }),
    status: (): Promise<StoreStatus> =>
      this.read(async () => {
        const [r] = await this.sql<{ addr: string | null; port: number | null; standby: boolean }[]>`SELECT host(inet_server_addr()) AS addr, inet_server_port() AS port, pg_is_in_recovery() AS standby`;
        return { kind: 'postgres', where: this.path, server: r?.addr ? `${r.addr}:${String(r.port)}` : 'a local socket', primary: r ? !r.standby : false };
      }),
    messages: (incident: number) =>
      this.read(async () => [...(await this.sql<KeptMessage[]>`SELECT key, channel, ts FROM messages WHERE incident = ${incident}`)].map((r) => ({ key: r.key, channel: r.channel, ts: r.ts }))),
    keepMessage: async (incident: number, key: string, channel: string, ts: string): Promise<void> => {
      const v = [checkWord(key, 'the message key'), checkWord(channel, 'the Slack channel'), checkWord(ts, 'the Slack message ts')];
      await this.read(() => this.sql`INSERT INTO messages (incident, key, channel, ts) VALUES (${incident}, ${v[0]!}, ${v[1]!}, ${v[2]!}) ON CONFLICT (incident, key) DO NOTHING`);
    },
  };
}
