// Journal benchmark, on real files in one temp folder, every figure beside a plain better-sqlite3
// baseline measured in the same run (same disk, same pragmas): decisions one per transaction, a
// probe report's events in one, and a full verify of 100,000 events.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import type { EventInput } from '../src/incident/types.ts';
import { openSqliteCore } from '../src/journal/sqlite.ts';
import type { SyncJournalStore } from '../src/journal/store.ts';

const RUNS = 5;
const DECISIONS = 1000; // per run: each one is a commit and an fsync
const BATCH = 20_000; // events in one probe report
const VERIFY_EVENTS = 100_000;

const actor = { kind: 'slack', id: 'U0ANA', name: 'ana' } as const;
const HAPPENED = '2025-03-01T14:02:00.000Z';
const decisionPayload = { evidence: { kind: 'value', of: 'restart-count', value: '3' }, input: { action: 'seat-up', seat: 'gen-a', host: 'fv-ml1' } };
const findingPayload = { finding: { subject: 'alias:gen', reason: 'ok', provenance: 'measured', observedAt: HAPPENED, data: { latencyMs: 21.5, status: 200 } } };

export async function benchJournal(): Promise<{ lines: string[] }> {
  const dir = mkdtempSync(join(tmpdir(), 'seatbelt-bench-journal-'));
  let files = 0;
  const file = () => join(dir, `j${++files}.sqlite`);
  try {
    // Warm-up: module code, prepared statements, the first file's creation.
    decisionsOurs(file(), 200);
    decisionsPlain(file(), 200);
    // The batch path too: a bot is a long-running process, its appendMany code compiled by then.
    batchOursRun(file(), 2_000);
    batchPlainRun(file(), 2_000);

    // (a) and (b) alternate, so a slow spell of the disk falls on both.
    const plain: number[] = [];
    const ours: number[] = [];
    for (let r = 0; r < RUNS; r++) {
      plain.push(decisionsPlain(file(), DECISIONS));
      ours.push(decisionsOurs(file(), DECISIONS));
    }
    const batchPlain: number[] = [];
    const batchOurs: number[] = [];
    const cpuOurs: number[] = [];
    for (let r = 0; r < RUNS; r++) {
      batchPlain.push(batchPlainRun(file(), BATCH));
      const ours = batchOursRun(file(), BATCH);
      batchOurs.push(ours.ms);
      cpuOurs.push(ours.cpuUs / BATCH);
    }
    const { verifyMs, built } = verifyRuns(file());

    const rate = (n: number, ms: number) => (n / ms) * 1000;
    const dPlain = median(plain.map((ms) => rate(DECISIONS, ms)));
    const dOurs = median(ours.map((ms) => rate(DECISIONS, ms)));
    const bPlain = median(batchPlain.map((ms) => rate(BATCH, ms)));
    const bOurs = median(batchOurs.map((ms) => rate(BATCH, ms)));
    return {
      lines: [
        `journal: files in ${tmpdir()}; WAL, synchronous=FULL; min/median/max over ${RUNS} runs`,
        `journal: (a) plain INSERT, autocommit  ${spread(plain.map((ms) => rate(DECISIONS, ms)))} events/s  (${DECISIONS} prepared INSERT.run(), each its own commit and fsync; no chain, no checks)`,
        `journal: (b) append(), 1 per commit    ${spread(ours.map((ms) => rate(DECISIONS, ms)))} events/s  → ${(dOurs / dPlain).toFixed(2)}x the plain rate (target ≥ 0.75x)`,
        `journal:     on the clock for (b): ${DECISIONS} step.done decisions with a CAS expectation: checks, canonical JSON, BEGIN IMMEDIATE, dedupe/CAS/head reads, sha256, INSERT, COMMIT + fsync, the event read back`,
        `journal: (c) plain INSERT, 1 commit    ${spread(batchPlain.map((ms) => rate(BATCH, ms)))} events/s  (${BATCH.toLocaleString('en-US')} prepared INSERT.run() in one transaction)`,
        `journal: (c) appendMany(), 1 commit    ${spread(batchOurs.map((ms) => rate(BATCH, ms)))} events/s  → ${(bOurs / bPlain).toFixed(2)}x the plain rate; target ≥ 100,000 events/s: ${bOurs >= 100_000 ? 'met' : 'NOT met'}`,
        `journal:     on the clock for (c): one appendMany() of ${BATCH.toLocaleString('en-US')} evidence events (checks, canonical JSON, sha256 chain, INSERT 16 rows a statement, COMMIT + fsync, the events handed back); CPU ${median(cpuOurs).toFixed(1)} µs/event (user+sys, median)`,
        `journal: (d) verify() of ${built.toLocaleString('en-US')} events  ${spread(verifyMs, ' ms')}  (every hash recomputed and every link checked, rows streamed; target < 2,000 ms: ${median(verifyMs) < 2000 ? 'met' : 'NOT met'})`,
      ],
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

// --- the baseline: the same columns, no constraints, no chain -------------------------------

function plainDb(path: string): Database.Database {
  const db = new Database(path);
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = FULL');
  db.exec(`CREATE TABLE events (id INTEGER PRIMARY KEY, incident INTEGER, seq INTEGER, kind TEXT, actor TEXT, happened_at TEXT,
    recorded_at TEXT, step TEXT, payload TEXT, amends INTEGER, dedupe TEXT, prev_hash TEXT, hash TEXT)`);
  return db;
}

function plainInsert(db: Database.Database, payload: string): (seq: number) => void {
  const insert = db.prepare('INSERT INTO events (incident, seq, kind, actor, happened_at, recorded_at, step, payload, prev_hash, hash) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)');
  const actorJson = JSON.stringify(actor);
  const hash = 'ab'.repeat(32);
  return (seq) => insert.run(1, seq, 'step.done', actorJson, HAPPENED, new Date().toISOString(), `s${seq}`, payload, hash, hash);
}

function decisionsPlain(path: string, n: number): number {
  const db = plainDb(path);
  const insert = plainInsert(db, JSON.stringify(decisionPayload));
  const t0 = performance.now();
  for (let i = 0; i < n; i++) insert(i + 1);
  const ms = performance.now() - t0;
  db.close();
  return ms;
}

function batchPlainRun(path: string, n: number): number {
  const db = plainDb(path);
  const insert = plainInsert(db, JSON.stringify(findingPayload));
  const t0 = performance.now();
  db.transaction(() => {
    for (let i = 0; i < n; i++) insert(i + 1);
  })();
  const ms = performance.now() - t0;
  db.close();
  return ms;
}

// --- ours ---------------------------------------------------------------------------------------

function withIncident(path: string): { j: SyncJournalStore; id: number } {
  const j = openSqliteCore(path);
  const id = j.openIncident({ site: 'fv', title: 'bench', actor, at: HAPPENED, drill: true }).incident.id;
  return { j, id };
}

function decisionsOurs(path: string, n: number): number {
  const { j, id } = withIncident(path);
  const t0 = performance.now();
  for (let i = 0; i < n; i++) {
    const step = `s${i}`;
    const r = j.append({ incident: id, kind: 'step.done', actor, happenedAt: HAPPENED, step, payload: decisionPayload, dedupe: `bench-${i}` }, { step, version: 0 });
    if (!r.ok) throw new Error(`bench: conflict on ${step}`);
  }
  const ms = performance.now() - t0;
  j.close();
  return ms;
}

function findings(id: number, n: number): EventInput[] {
  return Array.from({ length: n }, () => ({ incident: id, kind: 'evidence' as const, actor: { kind: 'probe' as const }, happenedAt: HAPPENED, step: 'probe-site', payload: findingPayload }));
}

function batchOursRun(path: string, n: number): { ms: number; cpuUs: number } {
  const { j, id } = withIncident(path);
  const events = findings(id, n);
  const c0 = process.cpuUsage();
  const t0 = performance.now();
  j.appendMany(events);
  const ms = performance.now() - t0;
  const c = process.cpuUsage(c0);
  j.close();
  return { ms, cpuUs: c.user + c.system };
}

function verifyRuns(path: string): { verifyMs: number[]; built: number } {
  const { j, id } = withIncident(path);
  // Ten incidents' worth of chain, so verify also crosses incident boundaries.
  const per = VERIFY_EVENTS / 10;
  for (let k = 0; k < 10; k++) {
    const inc = k === 0 ? id : j.openIncident({ site: 'fv', title: `bench ${k}`, actor, at: HAPPENED, drill: true }).incident.id;
    j.appendMany(findings(inc, per - 1));
  }
  const verifyMs: number[] = [];
  let built = 0;
  for (let r = 0; r < RUNS; r++) {
    const t0 = performance.now();
    const v = j.verify();
    verifyMs.push(performance.now() - t0);
    if (!v.ok) throw new Error(`bench: verify failed at #${v.incident} seq ${v.seq}: ${v.why}`);
    built = v.events;
  }
  j.close();
  return { verifyMs, built };
}

// --- figures ------------------------------------------------------------------------------------

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)] ?? NaN;
}

function spread(xs: number[], unit = ''): string {
  const s = [...xs].sort((a, b) => a - b);
  const f = (x: number | undefined) => Math.round(x ?? NaN).toLocaleString('en-US');
  return `${f(s[0])} / ${f(median(xs))} / ${f(s[s.length - 1])}${unit}`.padStart(26);
}
