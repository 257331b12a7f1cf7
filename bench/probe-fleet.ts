// The loopback fleet the probe benchmarks run `seat probe fv` against: the LiteLLM stand-in with
// generated aliases, the ssh/nvidia-smi stand-ins for 4 GPUs, a real upsd when Debian's nut-server is
// there, a BMC and a firewall on a TCP port; and the measuring tools around the compiled CLI.
import { spawn } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startGateway, type AliasBehaviour, type GatewayServer } from '../drills/litellm.ts';
import { DRILL_BIN } from '../drills/drill.ts';
import { freePort, startUpsd, upsdUnavailableReason, type Upsd } from '../drills/upsd.ts';

export const KEY = 'sk-bench-0123456789abcdef';
export const CLI = fileURLToPath(new URL('../dist/src/cli/main.js', import.meta.url));
const PRELOAD = fileURLToPath(new URL('./rss-preload.cjs', import.meta.url));

export type Placement = 'first' | 'middle' | 'last';

export interface FleetShape {
  /** Alias names in inventory order, each with what the gateway does for it. */
  aliases: [string, AliasBehaviour][];
  timeoutMs: number;
  concurrency: number;
  deadlineMs?: number;
}

export interface BenchFleet {
  gateway: GatewayServer;
  inventoryPath: string;
  yaml: string;
  env: NodeJS.ProcessEnv;
  /** The upsd in use, or why none. */
  upsd: string;
  stop(): Promise<void>;
}

/** `n` aliases answering in 20 ms, three of them hanging, all three at `where` in inventory order. */
export function scaleShape(n: number, where: Placement, concurrency: number, timeoutMs: number): FleetShape {
  const at = where === 'first' ? 0 : where === 'middle' ? Math.floor(n / 2) - 1 : n - 3;
  const aliases: [string, AliasBehaviour][] = [];
  for (let i = 0; i < n; i++) {
    aliases.push([`a${String(i).padStart(5, '0')}`, i >= at && i < at + 3 ? { mode: 'hang' } : { mode: 'slow', delayMs: 20 }]);
  }
  return { aliases, timeoutMs, concurrency };
}

export async function startBenchFleet(shape: FleetShape): Promise<BenchFleet> {
  // Not recording requests: over a bench's runs the record would grow by tens of thousands, and its
  // collection in this process would take CPU from the client measured.
  const gateway = await startGateway({ keys: { admin: KEY }, aliases: Object.fromEntries(shape.aliases), record: false });
  const tcp = createServer((s) => s.end());
  await new Promise<void>((r) => tcp.listen(0, '127.0.0.1', () => r()));
  const tcpPort = (tcp.address() as { port: number }).port;
  const upsPort = await freePort();
  const noUpsd = upsdUnavailableReason();
  let ups: Upsd | null = null;
  if (!noUpsd) ups = await startUpsd({ upsName: 'benchups', port: upsPort, dev: { 'ups.status': 'OL', 'ups.load': '34', 'ups.realpower.nominal': '900' } });
  const dir = await mkdtemp(join(tmpdir(), 'seatbelt-bench-'));
  const inventoryPath = join(dir, 'bench.yaml');
  const yaml = `fleet: bench
settings: { probeTimeoutMs: ${shape.timeoutMs}, deadlineMs: ${shape.deadlineMs ?? 30000}, concurrency: ${shape.concurrency} }
gateway: { baseUrl: ${gateway.url}, keys: { admin: { env: SEAT_BENCH_KEY } } }
sites:
  fv:
    hosts: { fv-ml1: { address: 127.0.0.1, ssh: drill@127.0.1.10, gpus: [{ index: 0 }, { index: 1 }, { index: 2 }, { index: 3 }] } }
    ups: { host: 127.0.0.1, port: ${upsPort}, name: benchups, ratedW: 900 }
    bmc: { fv-ml1-bmc: { address: 127.0.0.1, tcpPorts: [${tcpPort}] } }
    firewall: { address: 127.0.0.1, tcpPorts: [${tcpPort}] }
aliases:
${shape.aliases.map(([a]) => `  ${a}: { kind: chat, backend: { name: bench, paid: false } }`).join('\n')}
`;
  await writeFile(inventoryPath, yaml);
  return {
    gateway,
    inventoryPath,
    yaml,
    // A state directory of its own: what one run remembers (the targets that cost their timeout, asked
    // first next time) is this fleet's, and gone with it. Cold runs turn the memory off.
    env: withMemory({ ...process.env, SEAT_BENCH_KEY: KEY, PATH: `${DRILL_BIN}:${process.env.PATH ?? ''}`, XDG_STATE_HOME: join(dir, 'state') }),
    upsd: ups ? 'real upsd' : `no upsd: ${noUpsd}`,
    stop: async () => {
      await gateway.stop();
      await ups?.stop();
      await new Promise<void>((r) => tcp.close(() => r()));
      await rm(dir, { recursive: true, force: true });
    },
  };
}

export interface ProcessRun {
  /** Spawn to exit, measured here. */
  wallMs: number;
  code: number | null;
  stdout: string;
  /** From the preload, at the child's exit: peak RSS in bytes and CPU (user + system) in ms. */
  maxRssBytes: number | null;
  cpuMs: number | null;
  /** When the first HTTP request left, in ms since the child started (its node start-up included). */
  firstRequestMs: number | null;
  /** When the last HTTP request left, and when the process began its exit (ms since it started). */
  lastRequestMs: number | null;
  exitMs: number | null;
}

/** The environment with the probe memory at its default (on), whatever the bench was started with. */
function withMemory(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  delete env.SEAT_PROBE_MEMORY;
  return env;
}

/** `seat <args>` as a fresh process of the compiled CLI (cold: a new node, nothing cached in-process).
 * `memory: false`: nothing remembered from the run before (SEAT_PROBE_MEMORY=off), a first run's order. */
export function runCli(fleet: BenchFleet, args: string[], o: { memory?: boolean } = {}): Promise<ProcessRun> {
  const env = o.memory === false ? { ...fleet.env, SEAT_PROBE_MEMORY: 'off' } : fleet.env;
  return runProcess(process.execPath, ['--require', PRELOAD, CLI, '--inventory', fleet.inventoryPath, ...args], env);
}

/** What the run's JSON report says of itself: the start-up spent of the timeout, the targets asked first. */
export function reportFacts(run: ProcessRun): { startupMs: number; askedFirst: number } | null {
  try {
    const r = JSON.parse(run.stdout) as { startupMs?: number; askedFirst?: number };
    return { startupMs: r.startupMs ?? 0, askedFirst: r.askedFirst ?? 0 };
  } catch {
    return null;
  }
}

export async function runProcess(cmd: string, args: string[], env: NodeJS.ProcessEnv, stdin?: string): Promise<ProcessRun> {
  const t0 = performance.now();
  const child = spawn(cmd, args, { env, stdio: [stdin === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'] });
  if (stdin !== undefined) child.stdin?.end(stdin);
  const out: Buffer[] = [];
  let err = '';
  child.stdout!.on('data', (d: Buffer) => out.push(d));
  child.stderr!.on('data', (d: Buffer) => (err += d.toString()));
  const code = await new Promise<number | null>((r) => child.on('close', (c) => r(c)));
  const wallMs = performance.now() - t0;
  const rss = /SEAT_MAX_RSS_KB=(\d+)/.exec(err);
  const cpu = /SEAT_CPU_US=(\d+)/.exec(err);
  const first = /SEAT_FIRST_REQUEST_MS=([\d.]+)/.exec(err);
  const last = /SEAT_LAST_REQUEST_MS=([\d.]+)/.exec(err);
  const exit = /SEAT_EXIT_MS=([\d.]+)/.exec(err);
  return {
    wallMs,
    code,
    stdout: Buffer.concat(out).toString('utf8'),
    maxRssBytes: rss ? Number(rss[1]) * 1024 : null,
    cpuMs: cpu ? Number(cpu[1]) / 1000 : null,
    firstRequestMs: first ? Number(first[1]) : null,
    lastRequestMs: last ? Number(last[1]) : null,
    exitMs: exit ? Number(exit[1]) : null,
  };
}

// --- figures ------------------------------------------------------------------------------------

export function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)] ?? NaN;
}

/** "min / median / max" with `digits` decimals. */
export function spread(xs: number[], digits = 0, unit = ''): string {
  const s = [...xs].sort((a, b) => a - b);
  const f = (x: number | undefined): string => (x ?? NaN).toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits });
  return `${f(s[0])} / ${f(median(xs))} / ${f(s[s.length - 1])}${unit}`;
}

export function mib(bytes: number): number {
  return bytes / 1048576;
}
