// What the request channel between replicas holds (asks.ts opens it; pg/asks.ts is PostgreSQL's):
// its rows, its limits, and the watchers that hand new rows on. Apart, so both transports share them
// without importing each other.

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
/** Rows one look reads. */
export const ASK_PAGE = 100;
export const ANSWER_PAGE = 500;
/** Ids a watcher remembers having handed on. */
const MAX_SEEN = 10_000;

export interface AskTransport {
  readonly kind: 'sqlite' | 'postgres';
  /** Puts a request and wakes the other replicas; resolves with its id. */
  ask(a: Omit<AskRow, 'id'>): Promise<number>;
  /** Puts one part of this replica's answer to request `ask`, and wakes the asker. */
  answer(a: Omit<AnswerRow, 'id'>): Promise<void>;
  /** Calls `fn` with every request put after this call, in order, as they come. */
  onAsks(fn: (a: AskRow) => void): () => void;
  /** Calls `fn` with every answer row to request `ask` from one of `replicas` (those asked: another's rows are not read), in order, as they come. */
  onAnswers(ask: number, replicas: readonly string[], fn: (rows: AnswerRow[]) => void): () => void;
  /** Removes the request's rows, and any left older than ASK_ROWS_KEPT_MS before `now`. */
  forget(ask: number, now: Date): Promise<void>;
  close(): Promise<void>;
}

export interface AskTransportOptions {
  /** How often SQLite is looked at for new rows (PostgreSQL is woken, and looked at this often too as a fallback). */
  pollMs?: number;
}

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
    /** The most rows one read returns: a full page is followed by another look at once, not at the next tick. */
    private readonly page = Infinity,
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
        if (rows.length >= this.page) w.again = true;
        const fresh = rows.filter((r) => !w.seen.has(r.id));
        if (fresh.length === 0) return;
        for (const r of fresh) {
          w.seen.add(r.id);
          if (r.id > w.after) w.after = r.id;
        }
        // A replica's watcher of requests lives as long as it runs: the oldest ids seen go (their rows are long removed).
        for (const id of w.seen) {
          if (w.seen.size <= MAX_SEEN) break;
          w.seen.delete(id);
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
