// One probe across 3 replicas (issue 33): the asker here, two `seat vantage` processes at other
// vantages, on one journal — PostgreSQL 15 on loopback when it is installed (LISTEN/NOTIFY), else the
// drill's SQLite file (polled every 50 ms). Paired in each round: the whole asked probe, from the
// request to the merged report, against the slowest replica's own probe in that same round (each
// replica's own figure: this one's from its report, the others' as their answers say). On the clock:
// the request's way through the journal, the answers' rows, their checks and the merge.
import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { ANA_GPU_OOM } from '../drills/scenarios/ana-gpu-oom.ts';
import { startScenario } from '../drills/scenarios/index.ts';
import { journalMigrate } from '../src/cli/journal-admin.ts';
import { runProbe, type ProbeReport } from '../src/commands/probe.ts';
import { openAsks } from '../src/journal/asks.ts';
import { openJournal } from '../src/journal/open.ts';
import { PROBE_GROUPS } from '../src/probes/types.ts';
import { askingOthers } from '../src/vantage/ask.ts';
import { pgMissing, startCluster, type PgCluster } from '../test/helpers/pg-cluster.ts';

const ROUNDS = 9;
const MAIN = fileURLToPath(new URL('../src/cli/main.ts', import.meta.url));
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? NaN;

export async function benchVantage(): Promise<{ lines: string[] }> {
  const drill = await startScenario(ANA_GPU_OOM);
  let cluster: PgCluster | undefined;
  const children: ChildProcess[] = [];
  try {
    let journal = drill.journalPath;
    let on = 'the drill’s SQLite file (polled every 50 ms)';
    if (!pgMissing() && process.env.SEAT_BENCH_SQLITE !== '1') {
      cluster = await startCluster();
      const sink = { write: () => true };
      await journalMigrate(['--journal', cluster.url('seat_owner')], { stdout: sink, stderr: sink, env: {} });
      journal = cluster.url('seat_bot');
      on = 'PostgreSQL 15 on loopback (LISTEN/NOTIFY)';
    }
    const store = await openJournal(journal);
    const asks = await openAsks(journal);
    for (const v of ['v2', 'v3']) {
      const env = { PATH: `${drill.probe.pathPrefix.join(':')}:${process.env.PATH ?? '/usr/bin:/bin'}`, HOME: process.env.HOME ?? '/tmp', SEAT_PROBE_MEMORY: 'off', SEAT_VANTAGE: v, SEAT_REPLICA: `bench-${v}`, SEAT_JOURNAL: journal, ...drill.env };
      const child = spawn(process.execPath, ['--import', 'tsx', MAIN, '--inventory', drill.inventoryPath, 'vantage'], { env, stdio: ['ignore', 'ignore', 'pipe'] });
      children.push(child);
      let err = '';
      child.stderr?.on('data', (b: Buffer) => void (err += b.toString()));
      const end = Date.now() + 60_000;
      while (!/answering the bot replicas/.test(err)) {
        if (child.exitCode !== null || Date.now() > end) throw new Error(`seat vantage ${v} did not start: ${err}`);
        await new Promise((r) => setTimeout(r, 50));
      }
    }
    let localMs = 0;
    const local = async (...a: Parameters<typeof runProbe>): Promise<ProbeReport> => {
      const r = await runProbe(...a);
      localMs = r.durationMs;
      return r;
    };
    const ask = askingOthers(local, { asks, self: { replica: 'bench-v1', vantage: 'v1' }, replicas: () => store.replicaSide.replicas(), now: () => new Date() });
    const deps = { env: { ...drill.env, PATH: process.env.PATH ?? '' }, ...drill.probe, vantage: 'v1' };
    const req = { site: 'all', only: [...PROBE_GROUPS], timeoutMs: null, paid: false };
    const ratios: number[] = [];
    const walls: number[] = [];
    const slowest: number[] = [];
    const lastRow: number[] = [];
    const transit: number[] = [];
    let findings = 0;
    for (let r = 0; r < ROUNDS + 2; r++) {
      const t0 = performance.now();
      const report = await ask(drill.fleet, req, deps);
      const wall = performance.now() - t0;
      const asked = report.asked ?? [];
      if (asked.length !== 2 || asked.some((a) => a.outcome !== 'answered')) throw new Error(`not every replica answered: ${JSON.stringify(asked)}`);
      const slow = Math.max(localMs, ...asked.map((a) => a.probeMs ?? 0));
      if (r < 2) continue; // warm-up: modules, connections
      walls.push(wall);
      slowest.push(slow);
      // When the last answer's `done` was read, from the request; and what each answer spent beyond its own probe.
      lastRow.push(Math.max(...asked.map((a) => a.ms ?? 0)));
      transit.push(...asked.map((a) => (a.ms ?? 0) - (a.probeMs ?? 0)));
      ratios.push(wall / slow);
      findings = report.findings.length;
    }
    await asks.close();
    await store.close();
    const ratio = median(ratios);
    return {
      lines: [
        `vantage: 3 replicas (this one and two \`seat vantage\` processes) on ${on}; the drill fleet ana-gpu-oom, probe all, ${findings} findings merged; median of ${ROUNDS} rounds`,
        `vantage: (a) the slowest replica's own probe  ${Math.round(median(slowest))} ms   (b) the asked probe, request to merged report  ${Math.round(median(walls))} ms`,
        `vantage: of (b): the last answer read ${Math.round(median(lastRow))} ms after the request; an answer beyond its own probe (start, rows, reading) ${Math.round(median(transit))} ms median; the merge and the rest ${Math.round(median(walls) - median(lastRow))} ms`,
        `vantage: (b)/(a) paired per round ${ratio.toFixed(3)}x (min ${Math.min(...ratios).toFixed(3)}, max ${Math.max(...ratios).toFixed(3)}; target ≤ 1.05x: ${ratio <= 1.05 ? 'met' : 'NOT met'})`,
      ],
    };
  } finally {
    for (const c of children) if (c.exitCode === null) c.kill('SIGTERM');
    await Promise.all(children.filter((c) => c.exitCode === null).map((c) => new Promise((r) => c.once('exit', r))));
    await cluster?.stop();
    await drill.stop();
  }
}
