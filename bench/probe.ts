// Probe benchmark: a loopback fleet of 30 aliases (24 answering in ~20 ms, 3 in 2 s, 3 hanging),
// 4 GPUs over the ssh stand-in, a real upsd, BMC and firewall — the whole mixed probe run
// concurrently, beside its lower bound and a serial run of the same tasks.
import { spawn } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Fleet } from '../src/inventory/fleet.ts';
import { parseInventory } from '../src/inventory/load.ts';
import { planProbe, runProbe, type ProbeRequest } from '../src/commands/probe.ts';
import { runTasks } from '../src/probes/runner.ts';
import { startGateway, type AliasBehaviour } from '../drills/litellm.ts';
import { DRILL_BIN } from '../drills/drill.ts';
import { freePort, startUpsd, upsdUnavailableReason, type Upsd } from '../drills/upsd.ts';

const TIMEOUT_MS = 3000;
const KEY = 'sk-bench-0123456789abcdef';

export interface ProbeBench {
  lines: string[];
  ratio: number;
}

export async function benchProbe(): Promise<ProbeBench> {
  const aliases: Record<string, AliasBehaviour> = {};
  for (let i = 0; i < 30; i++) {
    aliases[`a${String(i).padStart(2, '0')}`] = i < 24 ? { mode: 'slow', delayMs: 20 } : i < 27 ? { mode: 'slow', delayMs: 2000 } : { mode: 'hang' };
  }
  const gateway = await startGateway({ keys: { admin: KEY }, aliases });
  const tcp = createServer((s) => s.end());
  await new Promise<void>((r) => tcp.listen(0, '127.0.0.1', () => r()));
  const tcpPort = (tcp.address() as { port: number }).port;
  let ups: Upsd | null = null;
  const upsPort = await freePort();
  const noUpsd = upsdUnavailableReason();
  if (!noUpsd) ups = await startUpsd({ upsName: 'benchups', port: upsPort, dev: { 'ups.status': 'OL', 'ups.load': '34', 'ups.realpower.nominal': '900' } });
  const dir = await mkdtemp(join(tmpdir(), 'seatbelt-bench-'));
  const inventoryPath = join(dir, 'bench.yaml');
  const yaml = `fleet: bench
settings: { probeTimeoutMs: ${TIMEOUT_MS}, deadlineMs: 30000, concurrency: 64 }
gateway: { baseUrl: ${gateway.url}, keys: { admin: { env: SEAT_BENCH_KEY } } }
sites:
  fv:
    hosts: { fv-ml1: { address: 127.0.0.1, ssh: drill@127.0.1.10, gpus: [{ index: 0 }, { index: 1 }, { index: 2 }, { index: 3 }] } }
    ups: { host: 127.0.0.1, port: ${upsPort}, name: benchups, ratedW: 900 }
    bmc: { fv-ml1-bmc: { address: 127.0.0.1, tcpPorts: [${tcpPort}] } }
    firewall: { address: 127.0.0.1, tcpPorts: [${tcpPort}] }
aliases:
${Object.keys(aliases).map((a) => `  ${a}: { kind: chat, backend: { name: bench, paid: false } }`).join('\n')}
`;
  await writeFile(inventoryPath, yaml);
  const parsed = parseInventory(yaml);
  if (!parsed.ok) throw new Error(parsed.errors.join('\n'));
  const fleet = new Fleet(parsed.value);
  const env = { ...process.env, SEAT_BENCH_KEY: KEY };
  const req: ProbeRequest = { site: 'fv', only: ['aliases', 'gpus', 'power'], timeoutMs: null, paid: false };
  const deps = { env, pathPrefix: [DRILL_BIN] };

  try {
    // Warm-up (module loading, first connections), then the measured runs.
    await runProbe(fleet, { ...req, timeoutMs: 500 }, deps);
    const t0 = performance.now();
    const slowest: string[] = [];
    const report = await runProbe(fleet, req, {
      ...deps,
      onEvent: (e) => {
        if (e.type === 'task' && e.done > e.total - 3) slowest.push(`${e.task.id} at ${Math.round(performance.now() - t0)} ms`);
      },
    });
    const concurrent = performance.now() - t0;
    const tasks = planProbe(fleet, req, deps).tasks;
    const s0 = performance.now();
    await runTasks(tasks, { concurrency: 1, deadlineMs: 120_000 });
    const serial = performance.now() - s0;
    const bound = TIMEOUT_MS; // the hanging aliases cost exactly their timeout; every other target is faster
    const rss = await cliPeakRss(inventoryPath, env);
    const ratio = concurrent / bound;
    return {
      ratio,
      lines: [
        `probe: ${report.findings.length} findings from ${tasks.length} tasks (30 aliases: 24 × 20 ms, 3 × 2 s, 3 hanging; 4 GPUs; ${ups ? 'real upsd' : `no upsd: ${noUpsd}`}; BMC; firewall)`,
        `probe: concurrent ${ms(concurrent)}  lower bound ${ms(bound)} (the ${TIMEOUT_MS} ms timeout of the hanging aliases)  → ${ratio.toFixed(3)}x the bound (target ≤ 1.05x)`,
        `probe: last to finish: ${slowest.join(', ')}`,
        `probe: serial     ${ms(serial)}  → ${(serial / bound).toFixed(2)}x the bound; concurrent is ${(serial / concurrent).toFixed(1)}x faster`,
        `probe: CLI peak RSS ${(rss / 1024).toFixed(1)} MiB for \`seat probe fv\` on this fleet (getrusage maxRSS, KiB / 1,024; target < 100 MiB; min/median/max in probe-cli below)`,
      ],
    };
  } finally {
    await gateway.stop();
    await ups?.stop();
    await new Promise<void>((r) => tcp.close(() => r()));
    await rm(dir, { recursive: true, force: true });
  }
}

/** Runs the real CLI as a child and reads its peak RSS (KiB) from getrusage at exit. */
async function cliPeakRss(inventory: string, env: NodeJS.ProcessEnv): Promise<number> {
  const main = fileURLToPath(new URL('../dist/src/cli/main.js', import.meta.url));
  const preload = fileURLToPath(new URL('./rss-preload.cjs', import.meta.url));
  const child = spawn(process.execPath, ['--require', preload, main, '--inventory', inventory, 'probe', 'fv', '--timeout', '1000'], {
    // A first run, and nothing left in the state directory of whoever runs the bench.
    env: { ...env, PATH: `${DRILL_BIN}:${env.PATH ?? ''}`, SEAT_PROBE_MEMORY: 'off' },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let err = '';
  child.stderr.on('data', (d: Buffer) => (err += d.toString()));
  await new Promise((r) => child.on('close', r));
  const m = /SEAT_MAX_RSS_KB=(\d+)/.exec(err);
  if (!m) throw new Error(`no RSS from the CLI: ${err.slice(0, 300)}`);
  return Number(m[1]);
}

function ms(x: number): string {
  return `${Math.round(x).toLocaleString('en-US')} ms`.padStart(9);
}
