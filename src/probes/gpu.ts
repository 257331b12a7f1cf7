// GPU memory, measured: one task per GPU host, answering one finding per GPU with total, used and
// free (read from the tool, never total − used), each seat's declared budget beside what its
// processes hold, and the margin over the floor. Seed 000: a 1,979 MiB "margin" against the
// declared budget fell back to slow kernels; only free memory, measured, tells.
//
// The two queries (GPUs, processes) run as two invocations at once, locally or each over its own
// `ssh -o BatchMode=yes`: no remote shell and no output marker to split on, each keeps its own exit
// code, and a failed process list never hides the memory figures.
import { execa } from 'execa';
import type { Fleet, HostRef, SeatRef } from '../inventory/fleet.ts';
import {
  NVIDIA_APP_FIELDS,
  NVIDIA_GPU_FIELDS,
  XPU_GPU_FIELDS,
  parseNvidiaApps,
  parseNvidiaGpus,
  parseXpuGpus,
  parseXpuProcesses,
  type GpuRow,
  type ParseResult,
  type ProcessRow,
} from './gpu-parse.ts';
import type { Finding, FindingStatus, GpuMemory, GpuSeatUse, ProbeEnv, ProbeScope, ProbeTask } from './types.ts';

interface Vendor {
  tool: 'nvidia-smi' | 'xpu-smi';
  gpuArgs: string[];
  appsArgs: string[];
  parseGpus: (text: string) => ParseResult<GpuRow[]>;
  parseApps: (text: string) => ParseResult<ProcessRow[]>;
  /** What a non-zero exit means, in words, from the tool's documented exit codes. */
  exitMeaning: (code: number, said: string) => Verdict | null;
}

interface Verdict {
  status: FindingStatus;
  detail: string;
}

const NVIDIA: Vendor = {
  tool: 'nvidia-smi',
  gpuArgs: [`--query-gpu=${NVIDIA_GPU_FIELDS}`, '--format=csv,nounits'],
  appsArgs: [`--query-compute-apps=${NVIDIA_APP_FIELDS}`, '--format=csv,nounits'],
  parseGpus: parseNvidiaGpus,
  parseApps: parseNvidiaApps,
  exitMeaning: (code, said) => {
    const why = (fallback: string): string => `(${said || fallback})`;
    switch (code) {
      case 2: return { status: 'unknown', detail: `nvidia-smi refused the query as a bad argument ${why('exit 2')}` };
      case 4: return { status: 'unknown', detail: `no permission to query the GPUs ${why('nvidia-smi exit 4')}` };
      case 6: return { status: 'down', detail: `no GPU found ${why('nvidia-smi exit 6')}` };
      case 9: return { status: 'down', detail: `driver not loaded ${why("NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver")}` };
      case 12: return { status: 'unknown', detail: `NVML library missing ${why('nvidia-smi exit 12')}` };
      case 15: return { status: 'down', detail: `GPU has fallen off the bus ${why('nvidia-smi exit 15')}` };
      case 255: return { status: 'unknown', detail: `driver error ${why('nvidia-smi exit 255')}` };
      default: return null;
    }
  },
};

// Exit codes from intel/xpumanager cli/src/exit_code.h (1.x; 2.0 keeps the CLI's error numbers).
const XPU: Vendor = {
  tool: 'xpu-smi',
  gpuArgs: [`--query-gpu=${XPU_GPU_FIELDS}`, '--format=csv,nounits'],
  appsArgs: ['ps', '-j'],
  parseGpus: parseXpuGpus,
  parseApps: parseXpuProcesses,
  exitMeaning: (code, said) => {
    const why = (fallback: string): string => `(${said || fallback})`;
    switch (code) {
      case 2: return { status: 'unknown', detail: `xpu-smi refused the query as a bad argument — XPU Manager before 2.0 has no --query-gpu ${why('exit 2')}` };
      case 4: return { status: 'down', detail: `no XPU found ${why('xpu-smi exit 4')}` };
      case 18: return { status: 'unknown', detail: `XPU Manager not initialized ${why('xpu-smi exit 18')}` };
      case 39: return { status: 'down', detail: `Level Zero initialization failed — driver not loaded? ${why('xpu-smi exit 39')}` };
      default: return null;
    }
  },
};

export function planGpuTasks(fleet: Fleet, scope: ProbeScope, env: ProbeEnv): ProbeTask[] {
  const tasks: ProbeTask[] = [];
  for (const site of scope.sites) {
    for (const host of fleet.hostsAt(site)) {
      if (host.host.gpuVendor === 'none') continue;
      const vendor = host.host.gpuVendor === 'intel' ? XPU : NVIDIA;
      const gpuCmd = command(host, vendor.tool, vendor.gpuArgs, env.timeoutMs);
      const appsCmd = command(host, vendor.tool, vendor.appsArgs, env.timeoutMs);
      const measuredBy = `${commandLine(gpuCmd)}; ${commandLine(appsCmd)}`;
      tasks.push({
        id: `gpu:${host.name}`,
        group: 'gpus',
        probe: 'gpu',
        target: host.name,
        site: host.site,
        host: host.name,
        timeoutMs: env.timeoutMs,
        run: (signal) => probeHost(fleet, host, vendor, { gpuCmd, appsCmd, measuredBy }, env, signal),
        onTimeout: (ms) => failureFindings(host, { status: 'unknown', detail: `no answer within ${ms} ms (killed)` }, measuredBy, null),
      });
    }
  }
  return tasks;
}

/** argv for one query: the tool itself, or ssh with the remote command as separate words. */
function command(host: HostRef, tool: string, args: string[], timeoutMs: number): string[] {
  if (host.host.ssh === 'local') return [tool, ...args];
  // Under the kill timeout, so an unreachable host gets ssh's own "timed out" (down), not our kill (unknown).
  const connectTimeout = Math.max(1, Math.floor((timeoutMs - 500) / 1000));
  return ['ssh', '-o', 'BatchMode=yes', '-o', `ConnectTimeout=${connectTimeout}`, host.host.ssh, tool, ...args];
}

interface Ran {
  stdout: string;
  stderr: string;
  exitCode: number | undefined;
  code: string | undefined;
  timedOut: boolean;
  isCanceled: boolean;
  signal: string | undefined;
}

// Detached groups do not get the terminal's Ctrl-C: the ones still running die with this process.
const liveGroups = new Set<number>();
let exitHookInstalled = false;
function trackGroup(pid: number): void {
  if (!exitHookInstalled) {
    exitHookInstalled = true;
    process.on('exit', () => {
      for (const g of liveGroups) killQuietly(g);
    });
  }
  liveGroups.add(pid);
}
function killQuietly(pid: number): void {
  try {
    process.kill(-pid, 'SIGKILL');
  } catch {
    // already gone
  }
}

async function exec(argv: string[], env: ProbeEnv, signal: AbortSignal): Promise<Ran> {
  const PATH = [...(env.pathPrefix ?? []), env.env.PATH].filter((p) => p !== undefined && p !== '').join(':');
  const sub = execa(argv[0]!, argv.slice(1), {
    reject: false,
    cancelSignal: signal,
    timeout: env.timeoutMs,
    forceKillAfterDelay: 500,
    stdin: 'ignore',
    extendEnv: false,
    env: { ...env.env, PATH },
    // Its own process group: a wrapper's children (a remote shell, a stuck driver call) holding
    // stdout would otherwise keep the CLI alive long after the report.
    detached: true,
  });
  const pid = sub.pid;
  if (pid) trackGroup(pid);
  const killGroup = (): void => {
    if (pid) killQuietly(pid);
  };
  const late = setTimeout(killGroup, env.timeoutMs + 100);
  signal.addEventListener('abort', killGroup, { once: true });
  const r = await sub;
  clearTimeout(late);
  signal.removeEventListener('abort', killGroup);
  if (pid) {
    // The leader is done; anything it left behind in its group goes with it.
    killQuietly(pid);
    liveGroups.delete(pid);
  }
  return {
    stdout: typeof r.stdout === 'string' ? r.stdout : '',
    stderr: typeof r.stderr === 'string' ? r.stderr : '',
    exitCode: r.exitCode,
    code: r.code,
    timedOut: r.timedOut,
    isCanceled: r.isCanceled,
    signal: r.signal,
  };
}

async function probeHost(
  fleet: Fleet,
  host: HostRef,
  vendor: Vendor,
  cmds: { gpuCmd: string[]; appsCmd: string[]; measuredBy: string },
  env: ProbeEnv,
  signal: AbortSignal,
): Promise<Finding[]> {
  const t0 = env.now();
  const [gpus, apps] = await Promise.all([exec(cmds.gpuCmd, env, signal), exec(cmds.appsCmd, env, signal)]);
  const latencyMs = Math.round(env.now() - t0);
  const failed = failure(gpus, host, vendor, env.timeoutMs);
  if (failed) return failureFindings(host, failed, cmds.measuredBy, latencyMs);
  const parsed = vendor.parseGpus(gpus.stdout);
  if (!parsed.ok) {
    return failureFindings(host, { status: 'unknown', detail: `unparseable ${vendor.tool} output: ${first60(gpus.stdout)}` }, cmds.measuredBy, latencyMs);
  }
  let processes: ProcessRow[] | null = null;
  let appsNote: string | null = null;
  const appsFailed = failure(apps, host, vendor, env.timeoutMs);
  if (appsFailed) {
    appsNote = `process list unavailable: ${appsFailed.detail}`;
  } else {
    const p = vendor.parseApps(apps.stdout);
    if (p.ok) processes = p.value;
    else appsNote = `process list unparseable: ${first60(apps.stdout)}`;
  }
  const ctx: GpuContext = { fleet, host, vendor, processes, appsNote, env, measuredBy: cmds.measuredBy, latencyMs };
  return pairWithInventory(host, parsed.value).map((p) => (p.row ? gpuFinding(ctx, p, p.row) : missingFinding(ctx, p.index)));
}

/** Why a query gave no usable output, or null when it exited 0. */
function failure(r: Ran, host: HostRef, vendor: Vendor, timeoutMs: number): Verdict | null {
  const remote = host.host.ssh !== 'local';
  if (r.timedOut) return { status: 'unknown', detail: `no answer within ${timeoutMs} ms (killed)` };
  if (r.isCanceled) return { status: 'unknown', detail: 'stopped before an answer (cancelled)' };
  if (r.code === 'ENOENT') return { status: 'unknown', detail: `${remote ? 'ssh' : vendor.tool} not found on PATH` };
  if (r.exitCode === 0) return null;
  const errLine = firstLine(r.stderr);
  if (remote && r.exitCode === 255 && isSshFailure(r)) {
    // Reached but refused (keys, host key) is not the same as a host that does not answer.
    const status = /permission denied|host key verification failed|too many authentication/i.test(errLine) ? 'unknown' : 'down';
    return { status, detail: `ssh to ${host.host.ssh} failed: ${errLine || 'exit 255'}` };
  }
  if (r.exitCode === undefined) return { status: 'unknown', detail: `${vendor.tool} was killed by ${r.signal ?? 'a signal'}` };
  // nvidia-smi prints its own failures on stdout; ssh and shells use stderr.
  const said = firstSentence(firstLine(r.stdout) || errLine);
  if (remote && r.exitCode === 127) return { status: 'unknown', detail: `${vendor.tool} not found on PATH on ${host.name}${said ? ` (${said})` : ''}` };
  return vendor.exitMeaning(r.exitCode, said) ?? { status: 'unknown', detail: `${vendor.tool} exited ${r.exitCode}${said ? `: ${said}` : ''}` };
}

/** ssh itself exits 255; so can the remote tool. Only ssh's own words, or silence, mean ssh. */
function isSshFailure(r: Ran): boolean {
  const err = r.stderr;
  if (/^ssh:|connection (timed out|refused|closed|reset)|could not resolve|no route to host|permission denied|host key verification failed/im.test(err)) return true;
  return r.stdout.trim() === '' && !/nvidia|nvml|gpu|xpu|level zero/i.test(err);
}

/** One finding per GPU the inventory lists for this host, or one for the host when it lists none. */
function failureFindings(host: HostRef, v: Verdict, measuredBy: string, latencyMs: number | null): Finding[] {
  const targets = host.host.gpus.length > 0 ? host.host.gpus.map((g) => `${host.name} GPU${g.index}`) : [host.name];
  return targets.map((target) => ({ probe: 'gpu', target, status: v.status, detail: v.detail, measuredBy, latencyMs, site: host.site, host: host.name }));
}

interface Paired {
  index: number;
  row: GpuRow | undefined;
  /** A card the inventory does not list: no seat is attributed to it. */
  extra: boolean;
  target: string;
  note?: string;
}

/** Inventory GPUs first (by UUID where the inventory gives one, else by index), then any extra card. */
function pairWithInventory(host: HostRef, rows: GpuRow[]): Paired[] {
  const claimed = new Set<GpuRow>();
  const out: Paired[] = [];
  for (const g of host.host.gpus) {
    const byUuid = g.uuid ? rows.find((r) => !claimed.has(r) && r.uuid === g.uuid) : undefined;
    const row = byUuid ?? rows.find((r) => !claimed.has(r) && r.index === g.index);
    if (row) claimed.add(row);
    let note: string | undefined;
    if (byUuid && byUuid.index !== g.index) note = `the tool reports this card as index ${byUuid.index}`;
    else if (!byUuid && row && g.uuid && row.uuid) note = `the inventory expects ${g.uuid}, the card at this index is ${row.uuid}`;
    out.push({ index: g.index, row, extra: false, target: `${host.name} GPU${g.index}`, ...(note ? { note } : {}) });
  }
  const taken = new Set(out.map((p) => p.target));
  for (const r of rows) {
    if (claimed.has(r)) continue;
    const plain = `${host.name} GPU${r.index}`;
    out.push({ index: r.index, row: r, extra: true, target: taken.has(plain) ? `${plain} (${r.uuid ?? 'no UUID'})` : plain, note: 'not in the inventory' });
  }
  return out.sort((a, b) => a.index - b.index || Number(a.extra) - Number(b.extra));
}

interface GpuContext {
  fleet: Fleet;
  host: HostRef;
  vendor: Vendor;
  processes: ProcessRow[] | null;
  appsNote: string | null;
  env: ProbeEnv;
  measuredBy: string;
  latencyMs: number;
}

function gpuFinding(ctx: GpuContext, p: Paired, row: GpuRow): Finding {
  const { index, note } = p;
  const floor = ctx.env.marginFloorMiB;
  const onGpu = ctx.processes?.filter((p) => (p.gpuUuid !== null ? p.gpuUuid === row.uuid : p.gpuIndex === row.index)) ?? null;
  const seatRefs = p.extra ? [] : ctx.fleet.seatsOnGpu(ctx.host.name, index);
  const seats = seatRefs.map((s) => seatUse(s, row.totalMiB, onGpu, seatRefs.length === 1));
  const margin = row.freeMiB === null ? null : row.freeMiB - floor;
  const gpu: GpuMemory = {
    host: ctx.host.name,
    index,
    uuid: row.uuid,
    name: row.name,
    totalMiB: row.totalMiB,
    usedMiB: row.usedMiB,
    freeMiB: row.freeMiB,
    seats,
    processes: (onGpu ?? []).map((p) => ({ pid: p.pid, name: p.name, usedMiB: p.usedMiB })),
    marginMiB: margin,
    floorMiB: floor,
  };
  const status: FindingStatus = row.freeMiB === null ? 'unknown' : row.freeMiB < floor ? 'degraded' : 'up';
  const of = row.totalMiB === null ? 'an unreported total' : n(row.totalMiB);
  const head =
    row.freeMiB === null
      ? `free memory not reported by ${ctx.vendor.tool} (total ${row.totalMiB === null ? 'not reported either' : `${n(row.totalMiB)} MiB`})`
      : `${n(row.freeMiB)} MiB free of ${of} (floor ${n(floor)}): ${margin !== null && margin < 0 ? 'under the margin floor' : `margin ${n(margin ?? 0)} MiB`}`;
  const seatText = seats.length > 0 ? `seats on it: ${seats.map(seatLine).join(', ')}` : 'no seat on it in the inventory';
  const notes = [note, ctx.appsNote].filter((x): x is string => !!x);
  return {
    probe: 'gpu',
    target: p.target,
    status,
    detail: `${head} — ${seatText}${notes.length > 0 ? ` (${notes.join('; ')})` : ''}`,
    measuredBy: ctx.measuredBy,
    latencyMs: ctx.latencyMs,
    site: ctx.host.site,
    host: ctx.host.name,
    data: { kind: 'gpu', gpu },
  };
}

function missingFinding(ctx: GpuContext, index: number): Finding {
  return {
    probe: 'gpu',
    target: `${ctx.host.name} GPU${index}`,
    status: 'down',
    detail: `GPU${index} listed in the inventory but not reported by ${ctx.vendor.tool}`,
    measuredBy: ctx.measuredBy,
    latencyMs: ctx.latencyMs,
    site: ctx.host.site,
    host: ctx.host.name,
  };
}

/**
 * Declared: kv-cache-memory-bytes when set (vLLM then ignores the utilization), else util × total.
 * Measured: the GPU's processes whose name holds the seat's `process` string; a seat alone on its
 * card owns every process there. Null when nothing can be attributed.
 */
function seatUse(ref: SeatRef, totalMiB: number | null, onGpu: ProcessRow[] | null, alone: boolean): GpuSeatUse {
  const s = ref.seat;
  let declaredMiB: number | null = null;
  let declaredBy: string;
  const kvBytes = s.kvCacheMemoryBytes;
  if (kvBytes !== undefined) {
    declaredMiB = Math.round(kvBytes / 2 ** 20);
    declaredBy = `kv-cache-memory-bytes ${n(kvBytes)} (weights not included)`;
  } else if (s.gpuMemoryUtilization !== undefined) {
    declaredMiB = totalMiB === null ? null : Math.round(s.gpuMemoryUtilization * totalMiB);
    declaredBy = `gpu-memory-utilization ${s.gpuMemoryUtilization} × ${totalMiB === null ? '? (total not reported)' : `${n(totalMiB)} MiB`}`;
  } else {
    declaredBy = `no budget declared (engine ${s.engine})`;
  }
  let measuredMiB: number | null = null;
  if (onGpu !== null && onGpu.length > 0) {
    if (alone) measuredMiB = sum(onGpu);
    else if (s.process) measuredMiB = sum(onGpu.filter((p) => p.name.includes(s.process!)));
  }
  return { seat: ref.name, declaredMiB, declaredBy, ...(kvBytes !== undefined ? { kvCacheOnly: true as const } : {}), measuredMiB };
}

function sum(ps: ProcessRow[]): number | null {
  let total = 0;
  for (const p of ps) {
    if (p.usedMiB === null) return null;
    total += p.usedMiB;
  }
  return total;
}

function seatLine(s: GpuSeatUse): string {
  const m = s.measuredMiB === null ? '?' : n(s.measuredMiB);
  return `${s.seat} declared ${declaredText(s)} / measured ${m} MiB`;
}

/** One seat's declared budget as shown: ? when undeclared; a KV-cache budget says the weights come on top. */
export function declaredText(s: GpuSeatUse): string {
  return s.declaredMiB === null ? '?' : `${n(s.declaredMiB)}${s.kvCacheOnly ? ' KV cache + weights' : ''}`;
}

/** The seats' budgets added up: unknown (?) when one is undeclared, never smaller; "+ weights" when one is KV cache only. */
export function declaredTotalText(seats: GpuSeatUse[]): string {
  if (seats.some((s) => s.declaredMiB === null)) return '?';
  const total = n(seats.reduce((a, s) => a + (s.declaredMiB ?? 0), 0));
  return seats.some((s) => s.kvCacheOnly) ? `${total} + weights` : total;
}

/** The argv as a person would retype it: plain words bare, anything else single-quoted. */
export function commandLine(argv: string[]): string {
  return argv.map((w) => (/^[A-Za-z0-9_@%+=:,./-]+$/.test(w) ? w : `'${w.replace(/'/g, `'\\''`)}'`)).join(' ');
}

function firstLine(s: string): string {
  return s.split(/\r?\n/).map((l) => l.trim()).find((l) => l !== '') ?? '';
}

/** `NVIDIA-SMI has failed because ... driver. Make sure that ...` → its first sentence. */
function firstSentence(line: string): string {
  return line.split(/\.\s+/)[0]!.replace(/\.$/, '');
}

function first60(s: string): string {
  const one = s.replace(/\s+/g, ' ').trim();
  return one === '' ? '(nothing)' : JSON.stringify(one.length > 60 ? one.slice(0, 60) : one);
}

function n(x: number): string {
  return Math.round(x).toLocaleString('en-US');
}
