// Replicas asking each other to probe, through the journal's own database (no port between
// replicas): a request row, and each replica's answers streamed back as rows. PostgreSQL wakes the
// other side with LISTEN/NOTIFY (pg/asks.ts); SQLite, shared by replicas on one machine, is polled.
// Coordination, not record: outside the hash chain, and the asker removes its rows once it is done.
// What a row holds came from another replica: src/vantage/wire.ts checks it before anything reads it.
import Database from 'better-sqlite3';
import { resolve } from 'node:path';
import { isPostgresUrl } from './spec.ts';

/** One request: probe these targets from where you stand. */
export interface AskRow {
  id: number;
  /** The asking replica and its vantage. */
  replica: string;
  vantage: string;
  /** The probe request as JSON text (wire.ts parses it). */
  request: string;
  askedAt: string;
  /** How long the asker waits for a first answer, in ms. */
  waitMs: number;
}

/** `findings`: streamed as they come, for the asker's progress; `result`: the report's findings, merged. */
export type AnswerKind = 'taken' | 'findings' | 'result' | 'done' | 'failed';

/** One part of one replica's answer. */
export interface AnswerRow {
  id: number;
  ask: number;
  replica: string;
  vantage: string;
  kind: string;
  /** JSON text, at most MAX_ANSWER_BYTES. */
  body: string;
  at: string;
}

/** What one answer row may carry; a replica splits its findings into rows under it. */
export const MAX_ANSWER_BYTES = 512 * 1024;
/** Rows older than this are removed by the next asker that finishes (an asker that died left them). */
export const ASK_ROWS_KEPT_MS = 10 * 60_000;

export interface AskTransport {
  readonly kind: 'sqlite' | 'postgres';
  /** Puts a request and wakes the other replicas; resolves with its id. */
  ask(a: Omit<AskRow, 'id'>): Promise<number>;
  /** Puts one part of this replica's answer to request `ask`, and wakes the asker. */
  answer(a: Omit<AnswerRow, 'id'>): Promise<void>;
  /** Calls `fn` with every request put after this call, in order, as they come. */
  onAsks(fn: (a: AskRow) => void): () => void;
  /** Calls `fn` with every answer row to request `ask`, in order, as they come. */
  onAnswers(ask: number, fn: (rows: AnswerRow[]) => void): () => void;
  /** Removes the request's rows, and any left older than ASK_ROWS_KEPT_MS before `now`. */
  forget(ask: number, now: Date): Promise<void>;
  close(): Promise<void>;
}

export interface AskTransportOptions {
  /** How often SQLite is looked at for new rows (PostgreSQL is woken, and looked at this often too as a fallback). */
  pollMs?: number;
}

/** The transport of the journal at `spec`, which must already be opened (migrated) by openJournal. */
export async function openAsks(spec: string, o: AskTransportOptions = {}): Promise<AskTransport> {
  if (isPostgresUrl(spec)) {
    const { openPostgresAsks } = await import('./pg/asks.ts');
    return openPostgresAsks(spec, o);
  }
  return sqliteAsks(spec, o);
}

const SQLITE_POLL_MS = 50;

/**
 * Polling watchers of one table, sharing one timer. Each watcher hands its read the highest id it has
 * seen and every id it has seen: on PostgreSQL an id is taken when a row is inserted, not when it
 * commits, so a lower id can appear after a higher one was read (two replicas answering at once);
 * its reads skip the ids seen instead of trusting the highest. Rows seen are never handed on twice.
 */
export class Watchers<R extends { id: number }> {
  private readonly all = new Map<number, { after: number; seen: Set<number>; read: (after: number, seen: ReadonlySet<number>) => Promise<R[]>; fn: (rows: R[]) => void; busy: boolean; again: boolean }>();
  private next = 0;
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly pollMs: number,
    private readonly failed: (err: unknown) => void,
  ) {}

  add(after: number, read: (after: number, seen: ReadonlySet<number>) => Promise<R[]>, fn: (rows: R[]) => void): () => void {
    const id = this.next++;
    this.all.set(id, { after, seen: new Set(), read, fn, busy: false, again: false });
    if (!this.timer) {
      this.timer = setInterval(() => this.poke(), this.pollMs);
      this.timer.unref();
    }
    queueMicrotask(() => this.poke());
    return () => {
      this.all.delete(id);
      if (this.all.size === 0 && this.timer) {
        clearInterval(this.timer);
        this.timer = undefined;
      }
    };
  }

  /** Looks for new rows now (a NOTIFY came, or the timer); a look already under way looks again after. */
  poke(): void {
    for (const w of this.all.values()) this.look(w);
  }

  private look(w: { after: number; seen: Set<number>; read: (after: number, seen: ReadonlySet<number>) => Promise<R[]>; fn: (rows: R[]) => void; busy: boolean; again: boolean }): void {
    if (w.busy) {
      w.again = true;
      return;
    }
    w.busy = true;
    w.again = false;
    w.read(w.after, w.seen)
      .then((rows) => {
        const fresh = rows.filter((r) => !w.seen.has(r.id));
        if (fresh.length === 0) return;
        for (const r of fresh) {
          w.seen.add(r.id);
          if (r.id > w.after) w.after = r.id;
        }
        w.fn(fresh);
      })
      .catch(this.failed)
      .finally(() => {
        w.busy = false;
        if (w.again) this.look(w);
      });
  }

  stop(): void {
    this.all.clear();
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
  }
}

/** Replicas on one machine sharing the journal file: a connection of its own, polled. */
export function sqliteAsks(path: string, o: AskTransportOptions = {}): AskTransport {
  const db = new Database(resolve(path), { timeout: 5000 });
  db.pragma('busy_timeout = 5000');
  const pollMs = o.pollMs ?? SQLITE_POLL_MS;
  const insertAsk = db.prepare<[string, string, string, string, number]>('INSERT INTO probe_asks (replica, vantage, request, asked_at, wait_ms) VALUES (?, ?, ?, ?, ?)');
  const insertAnswer = db.prepare<[number, string, string, string, string, string]>('INSERT INTO probe_answers (ask, replica, vantage, kind, body, at) VALUES (?, ?, ?, ?, ?, ?)');
  const asksAfter = db.prepare<[number], AskRow>('SELECT id, replica, vantage, request, asked_at AS askedAt, wait_ms AS waitMs FROM probe_asks WHERE id > ? ORDER BY id LIMIT 100');
  const answersAfter = db.prepare<[number, number], AnswerRow>('SELECT id, ask, replica, vantage, kind, body, at FROM probe_answers WHERE ask = ? AND id > ? ORDER BY id LIMIT 500');
  const lastAsk = db.prepare<[], { id: number | null }>('SELECT max(id) AS id FROM probe_asks');
  const asks = new Watchers<AskRow>(pollMs, () => undefined);
  const answers = new Watchers<AnswerRow>(pollMs, () => undefined);
  const wrap = <T>(f: () => T): Promise<T> => {
    try {
      return Promise.resolve(f());
    } catch (err) {
      return Promise.reject(err instanceof Error ? err : new Error(String(err)));
    }
  };
  return {
    kind: 'sqlite',
    ask: (a) => wrap(() => Number(insertAsk.run(a.replica, a.vantage, a.request, a.askedAt, a.waitMs).lastInsertRowid)),
    answer: (a) => wrap(() => void insertAnswer.run(a.ask, a.replica, a.vantage, a.kind, a.body, a.at)),
    onAsks: (fn) => {
      const from = lastAsk.get()?.id ?? 0;
      return asks.add(from, (after) => wrap(() => asksAfter.all(after)), (rows) => rows.forEach(fn));
    },
    onAnswers: (ask, fn) => answers.add(0, (after) => wrap(() => answersAfter.all(ask, after)), fn),
    forget: (ask, now) =>
      wrap(() => {
        const old = new Date(now.getTime() - ASK_ROWS_KEPT_MS).toISOString();
        db.transaction(() => {
          db.prepare('DELETE FROM probe_answers WHERE ask = ? OR at < ?').run(ask, old);
          db.prepare('DELETE FROM probe_asks WHERE id = ? OR asked_at < ?').run(ask, old);
        }).immediate();
      }),
    close: async () => {
      asks.stop();
      answers.stop();
      db.close();
    },
  };
}
