// The PostgreSQL journal's benchmark on a real PostgreSQL 15 cluster the bench starts (loopback,
// fsync on, synchronous_commit on), every figure beside a baseline through the same client on the
// same server in the same run: decisions (append with a CAS expectation: one seat_append statement
// each, its own commit) against a plain autocommit INSERT of the same row size, taken by turns;
// appendMany() events/s; verify() of 100,000 events.
import postgres from 'postgres';
import type { EventInput } from '../src/incident/types.ts';
import { journalMigrate } from '../src/cli/journal-admin.ts';
import { openPostgresJournal } from '../src/journal/postgres.ts';
import { pgMissing, startCluster } from '../test/helpers/pg-cluster.ts';

const RUNS = 3;
/** Runs of the decisions and their baseline: more, as each is short and this machine's load comes in bursts. */
const DECISION_RUNS = 5;
const DECISIONS = 300;
const BLOCK = 10;
const BATCH = 5000;
const BATCHES = 4;
const VERIFY_EVENTS = 100_000;
const actor = { kind: 'slack', id: 'U0ANA', name: 'ana' } as const;
const HAPPENED = '2025-03-01T14:02:00.000Z';
const decisionPayload = { evidence: { kind: 'value', of: 'restart-count', value: '3' }, input: { action: 'seat-up', seat: 'gen-a', host: 'fv-ml1' } };
const findingPayload = { finding: { subject: 'alias:gen', reason: 'ok', provenance: 'measured', observedAt: HAPPENED, data: { latencyMs: 21.5, status: 200 } } };

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? NaN;
const spread = (xs: number[], unit = '') => { const s = [...xs].sort((a, b) => a - b); return `${Math.round(s[0] ?? 0).toLocaleString('en-US')} / ${Math.round(median(xs)).toLocaleString('en-US')} / ${Math.round(s.at(-1) ?? 0).toLocaleString('en-US')}${unit}`; };

export async function benchJournalPg(): Promise<{ lines: string[] }> {
  const missing = pgMissing();
  if (missing) return { lines: [`journal-pg: not measured: ${missing}`] };
  const cluster = await startCluster({ fsync: true });
  try {
    const sink = { write: () => true };
    await journalMigrate(['--journal', cluster.url('seat_owner')], { stdout: sink, stderr: sink, env: {} });
    const owner = postgres(cluster.url('seat_owner'), { max: 1, fetch_types: false, onnotice: () => undefined });
    // The baseline's table: the same columns and the same text an event row holds.
    await owner`CREATE TABLE plain (id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY, incident integer, seq integer, kind text, actor text, happened_at text, recorded_at text, step text, payload text, amends integer, dedupe text, prev_hash text, hash text)`;
    await owner`GRANT INSERT, SELECT ON plain TO seat_bot`;
    await owner.end();
    const plainSql = postgres(cluster.url('seat_bot'), { max: 1, fetch_types: false, onnotice: () => undefined });
    const j = await openPostgresJournal(cluster.url('seat_bot'), { max: 1 });
    try {
      const id = (await j.openIncident({ site: 'fv', title: 'bench', actor, at: HAPPENED, drill: true })).incident.id;
      const h = 'a'.repeat(64);
      const actorJson = JSON.stringify(actor);
      const payloadJson = JSON.stringify(decisionPayload);
      let step = 0;
      const ours = async (n: number) => {
        const t = performance.now();
        for (let i = 0; i < n; i++) {
          const s = `step-${++step}`;
          const r = await j.append({ incident: id, kind: 'step.done', actor, happenedAt: HAPPENED, step: s, payload: decisionPayload, dedupe: `click-${step}` }, { step: s, version: 0 });
          if (!r.ok) throw new Error('conflict');
        }
        return performance.now() - t;
      };
      const plain = async (n: number) => {
        const t = performance.now();
        for (let i = 0; i < n; i++) {
          await plainSql`INSERT INTO plain (incident, seq, kind, actor, happened_at, recorded_at, step, payload, amends, dedupe, prev_hash, hash) VALUES (${id}, ${i}, 'step.done', ${actorJson}, ${HAPPENED}, ${HAPPENED}, ${`step-${i}`}, ${payloadJson}, ${null}, ${`click-${i}`}, ${h}, ${h})`;
        }
        return performance.now() - t;
      };
      await ours(50);
      await plain(50);
      // Each run takes its turns in blocks of BLOCK, the baseline's and ours alternating, so a burst
      // of load on this machine (other work on its two cores) falls on both alike.
      const a: number[] = [];
      const b: number[] = [];
      for (let r = 0; r < DECISION_RUNS; r++) {
        let pa = 0;
        let pb = 0;
        for (let done = 0; done < DECISIONS; done += BLOCK) {
          pa += await plain(BLOCK);
          pb += await ours(BLOCK);
        }
        a.push(pa);
        b.push(pb);
      }
      const rate = (n: number, ms: number) => (n / ms) * 1000;
      const ratio = median(b.map((ms) => rate(DECISIONS, ms))) / median(a.map((ms) => rate(DECISIONS, ms)));
      const batch = (n: number): EventInput[] => Array.from({ length: n }, () => ({ incident: id, kind: 'evidence', actor: { kind: 'probe' }, happenedAt: HAPPENED, payload: findingPayload }));
      const many: number[] = [];
      for (let r = 0; r < BATCHES; r++) {
        const events = batch(BATCH);
        const t = performance.now();
        await j.appendMany(events);
        many.push(rate(BATCH, performance.now() - t));
      }
      // Up to 100,000 events in all, then verify them.
      const have = (await j.verify(id)).events;
      for (let left = VERIFY_EVENTS - have; left > 0; left -= 10_000) await j.appendMany(batch(Math.min(10_000, left)));
      const verifyMs: number[] = [];
      let checked = 0;
      for (let r = 0; r < RUNS; r++) {
        const t = performance.now();
        const v = await j.verify();
        verifyMs.push(performance.now() - t);
        if (!v.ok) throw new Error('verify failed');
        checked = v.events;
      }
      return {
        lines: [
          `journal-pg: PostgreSQL 15 on loopback, fsync on, synchronous_commit on; min/median/max over ${DECISION_RUNS} runs of the decisions, ${RUNS} of the rest`,
          `journal-pg: (a) plain INSERT, autocommit  ${spread(a.map((ms) => rate(DECISIONS, ms)))} events/s  (${DECISIONS} INSERTs of an event-sized row through postgres.js, each its own commit; by turns with (b), ${BLOCK} at a time)`,
          `journal-pg: (b) append() with expect      ${spread(b.map((ms) => rate(DECISIONS, ms)))} events/s  → ${ratio.toFixed(2)}x the plain rate (target ≥ 0.75x: ${ratio >= 0.75 ? 'met' : 'NOT met'}; each: checks, hash, one seat_append statement, its own commit)`,
          `journal-pg: (c) appendMany(), 1 commit    ${spread(many)} events/s  (${BATCH.toLocaleString('en-US')} evidence events a batch; target ≥ 20,000 events/s: ${median(many) >= 20_000 ? 'met' : 'NOT met'})`,
          `journal-pg: (d) verify() of ${checked.toLocaleString('en-US')} events  ${spread(verifyMs, ' ms')}  (target < 3,000 ms: ${median(verifyMs) < 3000 ? 'met' : 'NOT met'})`,
        ],
      };
    } finally {
      await j.close();
      await plainSql.end();
    }
  } finally {
    await cluster.stop();
  }
}
