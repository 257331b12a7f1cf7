// GPU memory, measured: one task per GPU host, answering one finding per GPU with total, used and
// free (read from the tool, never total − used), each seat's declared budget beside what its
// processes hold, and the margin over the floor. Only free memory, measured, tells: the first seed's
// 1,979 MiB "margin" against the declared budget fell back to slow kernels.
//
// The two queries (GPUs, processes) run as two invocations at once, locally or each over its own
// `ssh -o BatchMode=yes`: no remote shell and no output marker to split on, each keeps its own exit
// code, and a failed process list never hides the memory figures.
import type { Fleet, HostRef } from '../../inventory/fleet.ts';
import { measured } from '../finding.ts';
import { probeCommandOptions, runCommand, type CommandResult } from '../edge/exec.ts';
import { clean, cut, firstLine, firstSentence } from '../edge/text.ts';
import { failedInSsh, first60, runFailure, sshFailure, type Failure } from '../edge/remote.ts';
import { graceFor } from '../edge/timeout.ts';
import type { Finding, ProbeEnv, ProbeScope, ProbeTask, Provenance } from '../types.ts';
import { cardFindings, failureFindings, missingFinding, type GpuContext } from './findings.ts';
import type { GpuRow, ProcessRow } from './parse.ts';
import { pairWithInventory } from './pairing.ts';
import { NVIDIA, XPU, type Vendor } from './vendors.ts';

export function planGpuTasks(fleet: Fleet, scope: ProbeScope, env: ProbeEnv): ProbeTask[] {
  const tasks: ProbeTask[] = [];
  for (const site of scope.sites) {
    for (const host of fleet.hostsAt(site)) {
      if (host.host.gpuVendor === 'none') continue;
      const vendor = host.host.gpuVendor === 'intel' ? XPU : NVIDIA;
      const gpuCmd = command(host, vendor.tool, vendor.gpuArgs, env.timeoutMs);
      const appsCmd = command(host, vendor.tool, vendor.appsArgs, env.timeoutMs);
      const provenance = measured({ how: 'exec', argv: gpuCmd }, { how: 'exec', argv: appsCmd });
      const base = { clock: env.clock, host, provenance, floorMiB: env.marginFloorMiB };
      tasks.push({
        id: `gpu:${host.name}`,
        group: 'gpus',
        probe: 'gpu',
        target: host.name,
        subject: { kind: 'gpu-host', host: host.name },
        site: host.site,
        host: host.name,
        // The one grace policy: the runner's hard stop comes after the tool's own kill, so its finding wins.
        timeoutMs: env.timeoutMs + graceFor(env.timeoutMs),
        run: (signal) => probeHost(fleet, host, vendor, { gpuCmd, appsCmd, provenance }, env, signal),
        onTimeout: (ms) => failureFindings({ ...base, latencyMs: null }, { status: 'unknown', reason: 'timeout', detail: `no answer within ${ms} ms (killed)` }),
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

async function probeHost(
  fleet: Fleet,
  host: HostRef,
  vendor: Vendor,
  cmds: { gpuCmd: string[]; appsCmd: string[]; provenance: Provenance },
  env: ProbeEnv,
  signal: AbortSignal,
): Promise<Finding[]> {
  const t0 = env.now();
  const opts = probeCommandOptions(env, signal);
  const [gpus, apps] = await Promise.all([runCommand(cmds.gpuCmd, opts), runCommand(cmds.appsCmd, opts)]);
  const latencyMs = Math.round(env.now() - t0);
  const ctxBase = { clock: env.clock, host, provenance: cmds.provenance, latencyMs, floorMiB: env.marginFloorMiB };
  const failed = failure(gpus, host, vendor, env);
  if (failed) return failureFindings(ctxBase, failed);
  const parsed = vendor.parseGpus(gpus.stdout);
  if (!parsed.ok) return failureFindings(ctxBase, { status: 'unknown', reason: 'unparseable', detail: `unparseable ${vendor.tool} output: ${first60(gpus.stdout)}` });
  let processes: ProcessRow[] | null = null;
  let appsNote: string | null = null;
  const appsFailed = failure(apps, host, vendor, env);
  if (appsFailed) {
    appsNote = `process list unavailable: ${appsFailed.detail}`;
  } else {
    // A parser that throws must not take the memory figures with it: the process list is only a note then.
    let p: ReturnType<Vendor['parseApps']>;
    try {
      p = vendor.parseApps(apps.stdout);
    } catch {
      p = { ok: false, error: 'the parser failed' };
    }
    if (p.ok) {
      processes = unambiguous(p.value, parsed.value);
      if (processes.length < p.value.length) appsNote = 'processes on a GPU that two rows name alike (UUID or index) are not attributed';
    } else appsNote = `process list unparseable: ${first60(apps.stdout)}`;
  }
  const ctx: GpuContext = { fleet, vendor, processes, appsNote, ...ctxBase };
  const out: Finding[] = [];
  for (const p of pairWithInventory(host, parsed.value)) {
    if (p.row) for (const f of cardFindings(ctx, p, p.row)) out.push(f);
    else out.push(missingFinding(ctx, p.index));
  }
  return out;
}

/** The processes that can be put on one GPU: none on a UUID (or index) two rows report, which would
 * count one seat's process on both cards. */
function unambiguous(processes: ProcessRow[], rows: GpuRow[]): ProcessRow[] {
  const twice = (keys: (string | number | null)[]): Set<string | number> => {
    const seen = new Set<string | number>();
    const again = new Set<string | number>();
    for (const k of keys) if (k !== null) (seen.has(k) ? again : seen).add(k);
    return again;
  };
  const uuids = twice(rows.map((r) => r.uuid));
  const indexes = twice(rows.map((r) => r.index));
  if (uuids.size === 0 && indexes.size === 0) return processes;
  return processes.filter((x) => (x.gpuUuid !== null ? !uuids.has(x.gpuUuid) : x.gpuIndex === null || !indexes.has(x.gpuIndex)));
}

/** Why a query gave no usable output, or null when it exited 0. */
function failure(r: CommandResult, host: HostRef, vendor: Vendor, env: ProbeEnv): Failure | null {
  const remote = host.host.ssh !== 'local';
  const ran = runFailure(r, { launcher: remote ? 'ssh' : vendor.tool, tool: vendor.tool, timeoutMs: env.timeoutMs, maxBytes: env.maxOutputBytes });
  if (ran !== undefined) return ran;
  const errLine = cut(clean(firstLine(r.stderr)), 160);
  if (remote && r.exitCode === 255 && failedInSsh(r, SSH_WORDS, GPU_WORDS)) return sshFailure(host.host.ssh, errLine);
  if (r.exitCode === null || r.exitCode === undefined) return { status: 'unknown', reason: 'tool_failed', detail: `${vendor.tool} failed: ${errLine || r.code}` };
  // nvidia-smi prints its own failures on stdout; ssh and shells use stderr.
  const said = cut(clean(firstSentence(firstLine(r.stdout) || errLine)), 160);
  if (remote && r.exitCode === 127) return { status: 'unknown', reason: 'tool_missing', detail: `${vendor.tool} not found on PATH on ${host.name}${said ? ` (${said})` : ''}` };
  return vendor.exitMeaning(r.exitCode, said) ?? { status: 'unknown', reason: 'tool_failed', detail: `${vendor.tool} exited ${r.exitCode}${said ? `: ${said}` : ''}` };
}

/** What ssh says when it cannot get there, and what a GPU tool says of its own (then the 255 is the tool's). */
const SSH_WORDS = /^ssh:|connection (timed out|refused|closed|reset)|could not resolve|no route to host|permission denied|host key verification failed/im;
const GPU_WORDS = /nvidia|nvml|gpu|xpu|level zero/i;
