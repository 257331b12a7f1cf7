// Replicas asking each other to probe on the shared PostgreSQL journal (src/journal/asks.ts): a row
// and a NOTIFY in one statement, so the other side is woken when the row is there to read; a LISTEN
// connection of its own wakes the watchers, and they look every second anyway (a notification lost
// with a failover costs a second, never the answer).
import type { Sql } from 'postgres';
import { connect } from '../postgres.ts';
import { ANSWER_PAGE, ASK_PAGE, ASK_ROWS_KEPT_MS, Watchers, type AnswerRow, type AskRow, type AskTransport, type AskTransportOptions } from '../ask-rows.ts';

const ASKS = 'seat_probe_asks';
const ANSWERS = 'seat_probe_answers';
const PG_POLL_MS = 1000;

export async function openPostgresAsks(url: string, o: AskTransportOptions = {}): Promise<AskTransport> {
  // The rows are coordination, not record: a crash may lose them (the asker then names the replica as
  // not answering), so their commits do not wait for the disk.
  const sql: Sql = connect(url, { max: 2, settings: { synchronous_commit: 'off' } });
  const pollMs = o.pollMs ?? PG_POLL_MS;
  const asks = new Watchers<AskRow>(pollMs, () => undefined, ASK_PAGE);
  const answers = new Watchers<AnswerRow>(pollMs, () => undefined, ANSWER_PAGE);
  // postgres.js keeps the LISTEN connection up by itself, following the URL's hosts.
  const listening = await Promise.all([sql.listen(ASKS, () => asks.poke()), sql.listen(ANSWERS, () => answers.poke())]).catch(() => []);
  const num = (r: { id: string | number }) => Number(r.id);
  return {
    kind: 'postgres',
    ask: async (a) => {
      const [r] = await sql<{ id: string }[]>`WITH a AS (INSERT INTO probe_asks (replica, vantage, request, asked_at, wait_ms) VALUES (${a.replica}, ${a.vantage}, ${a.request}, ${a.askedAt}, ${a.waitMs}) RETURNING id)
        SELECT id, pg_notify(${ASKS}, id::text) FROM a`;
      return num(r as { id: string });
    },
    answer: async (a) => {
      await sql`WITH a AS (INSERT INTO probe_answers (ask, replica, vantage, kind, body, at) VALUES (${a.ask}, ${a.replica}, ${a.vantage}, ${a.kind}, ${a.body}, ${a.at}) RETURNING ask)
        SELECT pg_notify(${ANSWERS}, ask::text) FROM a`;
    },
    onAsks: (fn) => {
      // Only what is asked from now on: the highest id is read before the first look (again at the next
      // look if that failed). An id is taken at insert, not at commit: the ids seen are skipped, not trusted.
      let start: number | undefined;
      return asks.add(
        0,
        async (_after, seen) => {
          if (start === undefined) {
            const [r] = await sql<{ id: string | null }[]>`SELECT max(id)::text AS id FROM probe_asks`;
            start = Number(r?.id ?? 0);
          }
          const rows = await sql<(AskRow & { id: string })[]>`SELECT id, replica, vantage, request, asked_at AS "askedAt", wait_ms AS "waitMs" FROM probe_asks
            WHERE id > ${start} AND id NOT IN (SELECT value::bigint FROM jsonb_array_elements_text(${JSON.stringify([...seen])}::text::jsonb)) ORDER BY id LIMIT ${ASK_PAGE}`;
          return rows.map((r) => ({ ...r, id: num(r) }));
        },
        (rows) => rows.forEach(fn),
      );
    },
    onAnswers: (ask, replicas, fn) =>
      answers.add(
        0,
        async (_after, seen) => {
          const rows = await sql<(AnswerRow & { id: string; ask: string })[]>`SELECT id, ask, replica, vantage, kind, body, at FROM probe_answers
            WHERE ask = ${ask} AND replica IN (SELECT jsonb_array_elements_text(${JSON.stringify(replicas)}::text::jsonb))
              AND id NOT IN (SELECT value::bigint FROM jsonb_array_elements_text(${JSON.stringify([...seen])}::text::jsonb)) ORDER BY id LIMIT ${ANSWER_PAGE}`;
          return rows.map((r) => ({ ...r, id: num(r), ask: Number(r.ask) }));
        },
        fn,
      ),
    forget: async (ask, now) => {
      const old = new Date(now.getTime() - ASK_ROWS_KEPT_MS).toISOString();
      await sql.begin(async (t) => {
        // Those of this request, any left too long, and any whose request is gone (written after its asker was done).
        await t`DELETE FROM probe_answers WHERE ask = ${ask} OR at < ${old} OR NOT EXISTS (SELECT 1 FROM probe_asks q WHERE q.id = probe_answers.ask)`;
        await t`DELETE FROM probe_asks WHERE id = ${ask} OR asked_at < ${old}`;
      });
    },
    close: async () => {
      asks.stop();
      answers.stop();
      for (const l of listening) await l.unlisten().catch(() => undefined);
      await sql.end({ timeout: 1 }).catch(() => undefined);
    },
  };
}
