// Failover on a real PostgreSQL 15 primary and synchronous streaming standby (loopback, fsync on),
// a fresh pair each round: from the primary's death to the first decision recorded on the promoted
// standby, in two parts that add up to the whole.
//   t0  the primary's postmaster is sent SIGQUIT (what `pg_ctl stop -m immediate` sends), and at once
//       `pg_ctl promote` on the standby: the promotion is immediate, as an operator or Patroni
//       would do it; the time taken to decide to promote is not on the clock.
//   t1  PostgreSQL's part ends: a bare postgres.js connection, fresh each try, on the same multi-host
//       URL, gets `pg_is_in_recovery() = false` from the promoted node (tried every 10 ms).
//   t2  seatbelt's part ends: the store (opened before t0 on that URL) records a decision, append()
//       with a step expectation, tried again every 10 ms after each rejection (each counted). Two
//       ways, 3 rounds each: the store idle until t1 (its first append after PostgreSQL is ready),
//       and the store asked from t0 on (a person clicking through the gap), racing the bare poll.
// Beside them, in the same rounds: a steady append() before t0, and the bare poll's last try (a
// fresh connection and one query), what seatbelt's part is made of when it has nothing to wait for.
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import postgres from 'postgres';
import type { Actor, EventInput } from '../src/incident/types.ts';
import { journalMigrate } from '../src/cli/journal-admin.ts';
import { openPostgresJournal } from '../src/journal/postgres.ts';
import { PG_BIN, pgMissing, startCluster, type PgNode } from '../test/helpers/pg-cluster.ts';

const ROUNDS = 3;
const BEFORE = 20;
const TRY_EVERY_MS = 10;
const BOUND_MS = 30_000;
const actor: Actor = { kind: 'slack', id: 'U0ANA', name: 'ana' };
const HAPPENED = '2025-03-01T14:02:00.000Z';
const payload = { evidence: { kind: 'value', of: 'restart-count', value: '3' }, input: { action: 'seat-up', seat: 'gen-a', host: 'fv-ml1' } };

const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? NaN;
const spread = (xs: number[], digits = 0) => {
  const s = [...xs].sort((a, b) => a - b);
  const f = (x: number | undefined) => (x ?? NaN).toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits });
  return `${f(s[0])} / ${f(median(xs))} / ${f(s.at(-1))}`;
};

/** `pg_ctl promote` without waiting (-W), as the server's account; the bare poll sees when it is done. */
function promoteNow(n: PgNode): Promise<void> {
  const line = process.getuid?.() === 0 ? readFileSync('/etc/passwd', 'utf8').split('\n').find((l) => l.startsWith('postgres:')) : undefined;
  const [, , uid, gid] = line?.split(':') ?? [];
  const who = uid && gid ? { uid: Number(uid), gid: Number(gid) } : {};
  return new Promise((resolve, reject) => {
    execFile(join(PG_BIN, 'pg_ctl'), ['-D', n.data, '-W', 'promote'], { timeout: 30_000, ...who, env: { PATH: '/usr/bin:/bin', LANG: 'C.UTF-8' } }, (err, _out, stderr) => {
      if (err) reject(new Error(`pg_ctl promote: ${err.message}\n${stderr}`));
      else resolve();
    });
  });
}

interface Round {
  pgMs: number;
  seatMs: number;
  totalMs: number;
  polls: number;
  freshMs: number;
  steadyMs: number;
  rejected: number;
  codes: Set<string>;
  /** The standby's own log: "received promote request" → "archive recovery complete", ms. */
  promoteLogMs: number;
  retryInterval: string;
}

async function round(busy: boolean): Promise<Round> {
  const cluster = await startCluster({ fsync: true });
  try {
    const sink = { write: () => true };
    if ((await journalMigrate(['--journal', cluster.url('seat_owner')], { stdout: sink, stderr: sink, env: {} })) !== 0) throw new Error('migrate failed');
    const standby = await cluster.addStandby();
    const { primary } = cluster;
    // The standby's LOG lines (logging only) tell whether a promotion waited out wal_retrieve_retry_interval.
    const retryInterval = await cluster.su(async (sql) => {
      await sql`ALTER SYSTEM SET log_min_messages = 'log'`;
      await sql`SELECT pg_reload_conf()`;
      const [r] = await sql<{ wal_retrieve_retry_interval: string }[]>`SHOW wal_retrieve_retry_interval`;
      return r?.wal_retrieve_retry_interval ?? '?';
    }, standby, 'postgres');
    // The standby listed first: read-write lands on the primary before, on the promoted standby after.
    const url = cluster.url('seat_bot', { nodes: [standby, primary], params: 'target_session_attrs=read-write&connect_timeout=2' });
    const j = await openPostgresJournal(url);
    try {
      const id = (await j.openIncident({ site: 'fv', title: 'failover bench', actor, at: HAPPENED, drill: true })).incident.id;
      let step = 0;
      const decision = (): [EventInput, { step: string; version: number }] => {
        const s = `step-${++step}`;
        return [{ incident: id, kind: 'step.done', actor, happenedAt: HAPPENED, step: s, payload, dedupe: `click-${step}` }, { step: s, version: 0 }];
      };
      const steady: number[] = [];
      for (let i = 0; i < BEFORE; i++) {
        const t = performance.now();
        const r = await j.append(...decision());
        steady.push(performance.now() - t);
        if (!r.ok) throw new Error('a decision before the failover was refused');
      }
      const acknowledged = (await j.events(id)).length;
      const pid = Number(readFileSync(join(primary.data, 'postmaster.pid'), 'utf8').split('\n')[0]);
      if (!Number.isInteger(pid) || pid <= 0) throw new Error('no postmaster pid');

      // --- t0: the primary dies; the standby is promoted at once.
      const t0 = performance.now();
      process.kill(pid, 'SIGQUIT');
      const promoting = promoteNow(standby);
      // seatbelt's part: the store's first decision recorded, tried again after each rejection.
      let rejected = 0;
      const codes = new Set<string>();
      const record = async (from: number): Promise<number | undefined> => {
        while (performance.now() - from < BOUND_MS) {
          try {
            const r = await j.append(...decision());
            if (!r.ok) throw new Error('the decision after the failover was refused as a conflict');
            return performance.now();
          } catch (e) {
            if (e instanceof Error && /as a conflict/.test(e.message)) throw e;
            rejected += 1;
            codes.add((e as { code?: unknown }).code === undefined ? String(e) : String((e as { code?: unknown }).code));
            await pause(TRY_EVERY_MS);
          }
        }
        return undefined;
      };
      const clicking = busy ? record(t0) : undefined;
      // PostgreSQL's part: a fresh bare connection each try until the promoted node is out of recovery.
      let polls = 0;
      let freshMs = NaN;
      let t1: number | undefined;
      while (t1 === undefined && performance.now() - t0 < BOUND_MS) {
        polls += 1;
        const tried = performance.now();
        const bare = postgres(url, { max: 1, fetch_types: false, onnotice: () => undefined, connect_timeout: 2 });
        try {
          const [r] = await bare<{ recovery: boolean; port: number }[]>`SELECT pg_is_in_recovery() AS recovery, inet_server_port() AS port`;
          if (r && !r.recovery && r.port === standby.port) {
            t1 = performance.now();
            freshMs = t1 - tried;
          }
        } catch {
          // Refused, or the node is between states: tried again.
        } finally {
          await bare.end({ timeout: 0 }).catch(() => undefined);
        }
        if (t1 === undefined) await pause(TRY_EVERY_MS);
      }
      await promoting;
      if (t1 === undefined) throw new Error(`the promoted standby was not writable within ${BOUND_MS} ms`);
      const t2 = await (clicking ?? record(t1));
      if (t2 === undefined) throw new Error(`the store recorded no decision within ${BOUND_MS} ms of the promoted node being writable`);
      // Nothing acknowledged was lost, the chain holds.
      const after = await j.events(id);
      if (after.length !== acknowledged + 1) throw new Error(`${after.length} events after the failover, ${acknowledged + 1} expected`);
      if (!(await j.verify(id)).ok) throw new Error('verify failed after the failover');
      const log = readFileSync(join(cluster.dir, 'standby.log'), 'utf8');
      const at = (what: string) => {
        const m = new RegExp(`^(\\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d:\\d\\d\\.\\d{3}) UTC .*${what}`, 'm').exec(log)?.[1];
        return m ? Date.parse(`${m.replace(' ', 'T')}Z`) : NaN;
      };
      const promoteLogMs = at('archive recovery complete') - at('received promote request');
      return { promoteLogMs, retryInterval, pgMs: t1 - t0, seatMs: t2 - t1, totalMs: t2 - t0, polls, freshMs, steadyMs: median(steady), rejected, codes };
    } finally {
      await j.close();
    }
  } finally {
    await cluster.stop();
  }
}

export async function benchFailoverPg(): Promise<{ lines: string[] }> {
  const missing = pgMissing();
  if (missing) return { lines: [`failover-pg: not measured: ${missing}`] };
  const idle: Round[] = [];
  const busy: Round[] = [];
  for (let r = 0; r < ROUNDS; r++) idle.push(await round(false));
  for (let r = 0; r < ROUNDS; r++) busy.push(await round(true));
  const all = [...idle, ...busy];
  const waited = all.filter((r) => r.promoteLogMs >= 1000);
  const quick = all.filter((r) => !(r.promoteLogMs >= 1000));
  const rejected = (rs: Round[]) => {
    const codes = [...new Set(rs.flatMap((r) => [...r.codes]))];
    return `rejected appends ${spread(rs.map((r) => r.rejected))}${codes.length > 0 ? ` (${codes.join(', ')})` : ''}`;
  };
  const three = (name: string, rs: Round[], how: string): string[] => [
    `failover-pg: ${name}: ${how}`,
    `failover-pg:   (a) PostgreSQL's part  ${spread(rs.map((r) => r.pgMs))} ms  (t0 → a fresh bare postgres.js connection on the same URL gets pg_is_in_recovery() = false from the promoted node; ${spread(rs.map((r) => r.polls))} tries, every ${TRY_EVERY_MS} ms)`,
    `failover-pg:   (b) seatbelt's part    ${spread(rs.map((r) => r.seatMs), 1)} ms  (→ the store's first append() with a step expectation recorded on the promoted node; ${rejected(rs)})`,
    `failover-pg:   (c) total              ${spread(rs.map((r) => r.totalMs))} ms  (t0 → first decision recorded; the ${BEFORE} decisions acknowledged before t0 all there, verify ok)`,
  ];
  return {
    lines: [
      `failover-pg: PostgreSQL 15 primary + synchronous streaming standby on loopback (fsync on), a fresh pair each round, the store on the multi-host URL (standby first, target_session_attrs=read-write, connect_timeout=2); min/median/max over ${ROUNDS} rounds`,
      `failover-pg: on the clock: t0 = SIGQUIT to the primary's postmaster (what pg_ctl stop -m immediate sends), then at once pg_ctl promote on the standby: the promotion is immediate, as an operator or Patroni would do; the time to decide to promote is not on the clock`,
      ...three('store idle through the gap', idle, `its first append is made once PostgreSQL's part is over, then every ${TRY_EVERY_MS} ms after a rejection`),
      ...three('store asked through the gap', busy, `appends from t0 on, every ${TRY_EVERY_MS} ms after a rejection, beside the bare poll (a negative part: recorded before the bare poll saw the node)`),
      ...all.map((r, k) => `failover-pg:   round ${k + 1} (${k < ROUNDS ? 'idle' : 'asked'}): PostgreSQL ${r.pgMs.toFixed(0)} ms, seatbelt ${r.seatMs.toFixed(1)} ms, total ${r.totalMs.toFixed(0)} ms, ${r.rejected} rejected; the standby's log: promote request → archive recovery complete ${r.promoteLogMs} ms`),
      `failover-pg: PostgreSQL's part: ${quick.length} of ${all.length} rounds ${quick.length > 0 ? spread(quick.map((r) => r.pgMs)) : '-'} ms; ${waited.length} round${waited.length === 1 ? '' : 's'} ${waited.length > 0 ? `${spread(waited.map((r) => r.pgMs))} ms, where the standby's own log puts ${spread(waited.map((r) => r.promoteLogMs))} ms between "received promote request" and "archive recovery complete" (wal_retrieve_retry_interval here: ${[...new Set(all.map((r) => r.retryInterval))].join(', ')}): PostgreSQL's, not seatbelt's` : '-'}`,
      `failover-pg: beside them (all ${all.length} rounds): a steady append() before t0 ${spread(all.map((r) => r.steadyMs), 1)} ms; the bare poll's last try (fresh connection + one query) ${spread(all.map((r) => r.freshMs), 1)} ms`,
    ],
  };
}
