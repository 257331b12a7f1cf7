// Replicas asking each other to probe, through the journal's own database (no port between
// replicas): a request row, and each replica's answers streamed back as rows. PostgreSQL wakes the
// other side with LISTEN/NOTIFY (pg/asks.ts); SQLite, shared by replicas on one machine, is polled.
// Coordination, not record: outside the hash chain, and the asker removes its rows once it is done.
// What a row holds came from another replica: src/vantage/wire.ts checks it before anything reads it.
import Database from 'better-sqlite3';
import { resolve } from 'node:path';
import { isPostgresUrl } from './spec.ts';
import { ANSWER_PAGE, ASK_PAGE, ASK_ROWS_KEPT_MS, Watchers, type AnswerRow, type AskRow, type AskTransport, type AskTransportOptions } from './ask-rows.ts';

export { ASK_ROWS_KEPT_MS, MAX_ANSWER_BYTES, type AnswerKind, type AnswerRow, type AskRow, type AskTransport, type AskTransportOptions } from './ask-rows.ts';

/** The transport of the journal at `spec`, which must already be opened (migrated) by openJournal. */
export async function openAsks(spec: string, o: AskTransportOptions = {}): Promise<AskTransport> {
  if (isPostgresUrl(spec)) {
    const { openPostgresAsks } = await import('./pg/asks.ts');
    return openPostgresAsks(spec, o);
  }
  return sqliteAsks(spec, o);
}

const SQLITE_POLL_MS = 50;

/** Replicas on one machine sharing the journal file: a connection of its own, polled. */
export function sqliteAsks(path: string, o: AskTransportOptions = {}): AskTransport {
  // A short wait on the file lock: the driver is synchronous, and these rows are not worth holding the bot's loop.
  const db = new Database(resolve(path), { timeout: 500 });
  db.pragma('busy_timeout = 500');
  const pollMs = o.pollMs ?? SQLITE_POLL_MS;
  const insertAsk = db.prepare<[string, string, string, string, number]>('INSERT INTO probe_asks (replica, vantage, request, asked_at, wait_ms) VALUES (?, ?, ?, ?, ?)');
  const insertAnswer = db.prepare<[number, string, string, string, string, string]>('INSERT INTO probe_answers (ask, replica, vantage, kind, body, at) VALUES (?, ?, ?, ?, ?, ?)');
  const asksAfter = db.prepare<[number], AskRow>(`SELECT id, replica, vantage, request, asked_at AS askedAt, wait_ms AS waitMs FROM probe_asks WHERE id > ? ORDER BY id LIMIT ${ASK_PAGE}`);
  const answersAfter = db.prepare<[number, string, number], AnswerRow>(`SELECT id, ask, replica, vantage, kind, body, at FROM probe_answers WHERE ask = ? AND replica IN (SELECT value FROM json_each(?)) AND id > ? ORDER BY id LIMIT ${ANSWER_PAGE}`);
  const lastAsk = db.prepare<[], { id: number | null }>('SELECT max(id) AS id FROM probe_asks');
  const asks = new Watchers<AskRow>(pollMs, () => undefined, ASK_PAGE);
  const answers = new Watchers<AnswerRow>(pollMs, () => undefined, ANSWER_PAGE);
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
    onAnswers: (ask, replicas, fn) => {
      const who = JSON.stringify(replicas);
      return answers.add(0, (after) => wrap(() => answersAfter.all(ask, who, after)), fn);
    },
    forget: (ask, now) =>
      wrap(() => {
        const old = new Date(now.getTime() - ASK_ROWS_KEPT_MS).toISOString();
        db.transaction(() => {
          // Those of this request, any left too long, and any whose request is gone (written after its asker was done).
          db.prepare('DELETE FROM probe_answers WHERE ask = ? OR at < ? OR ask NOT IN (SELECT id FROM probe_asks)').run(ask, old);
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
