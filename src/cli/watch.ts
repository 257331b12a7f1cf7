// `seat watch gpus <host>` in a terminal: samples the host's GPUs with the GPU probe itself, one line
// per sample, then min / median / max free per GPU and, with --seat, the sizing verdict on the
// measurement. Ctrl-C stops the watch and prints what was measured so far.
import { performance } from 'node:perf_hooks';
import type { WatchGpusCommand } from '../commands/table.ts';
import { planProbe } from '../commands/probe.ts';
import type { Fleet, HostRef } from '../inventory/fleet.ts';
import { realTimer, type SetTimer } from '../probes/edge/timeout.ts';
import { gpuSampler, type Sampler } from '../watch/sample.ts';
import { fallbackLine, sampleLine, sizingLines, startLine, statsLines } from '../watch/render.ts';
import { watchGpus, type SizingRequest } from '../watch/watch.ts';
import { plannedSamples } from '../watch/window.ts';
import type { CliIo, ExitCode } from './io.ts';

export interface WatchDeps {
  now?: () => number;
  setTimer?: SetTimer;
  /** Stops the watch (tests); by default Ctrl-C does, for as long as the watch runs. */
  signal?: AbortSignal;
  /** Replaces the GPU probe (tests of the terminal's words). */
  sampler?: Sampler;
}

export async function watchToTerminal(cmd: WatchGpusCommand, fleet: Fleet, io: CliIo): Promise<ExitCode> {
  return watchGpusCli(cmd, fleet, io);
}

export async function watchGpusCli(cmd: WatchGpusCommand, fleet: Fleet, io: CliIo, deps: WatchDeps = {}): Promise<ExitCode> {
  const host = fleet.hosts.get(cmd.host);
  if (!host) return usage(io, `no host ${JSON.stringify(cmd.host)} in the inventory (hosts: ${[...fleet.hosts.keys()].join(', ')})`);
  if (host.host.gpuVendor === 'none') return usage(io, `${host.name} has no GPU in the inventory (gpuVendor: none)`);
  const sizing = sizingRequest(cmd, fleet, host);
  if (typeof sizing === 'string') return usage(io, sizing);

  const floorMiB = fleet.inventory.settings.marginFloorMiB;
  const patterns = new Map([...fleet.seats.values()].flatMap((s) => (s.seat.process ? [[s.name, s.seat.process] as const] : [])));
  const sampler = deps.sampler ?? hostSampler(fleet, host, io, patterns);
  if (typeof sampler === 'string') return usage(io, sampler);

  const stop = deps.signal ? null : ctrlC();
  const signal = deps.signal ?? stop?.signal;
  io.stdout.write(`${startLine(host.name, plannedSamples(cmd.forMs, cmd.everyMs), cmd.everyMs, cmd.forMs)}\n`);
  try {
    const result = await watchGpus(
      { forMs: cmd.forMs, everyMs: cmd.everyMs, floorMiB, sizing: sizing ?? undefined },
      {
        sample: sampler,
        now: deps.now ?? (() => performance.now()),
        setTimer: deps.setTimer ?? realTimer,
        ...(signal ? { signal } : {}),
        onSample: (s, n, planned) => void io.stdout.write(`${sampleLine(s, n, planned)}\n`),
      },
    );
    const lines = ['', ...statsLines(host.name, result.run, result.stats, floorMiB)];
    if (result.sizing) lines.push(...sizingLines(result.sizing));
    lines.push(fallbackLine(cmd.seat));
    io.stdout.write(`${lines.join('\n')}\n`);
    if (result.sizing) return result.sizing.decision === 'allow' ? 0 : 1;
    return result.stats.some((g) => g.count > 0) ? 0 : 1;
  } finally {
    stop?.release();
  }
}

/** --seat, --gpu and --util as a request, filled from the inventory where left out; or what is wrong. */
function sizingRequest(cmd: WatchGpusCommand, fleet: Fleet, host: HostRef): SizingRequest | null | string {
  if (cmd.seat === undefined) return cmd.gpu !== undefined || cmd.util !== undefined ? '--gpu and --util size a seat: name it with --seat SEAT' : null;
  const seat = fleet.seats.get(cmd.seat);
  if (!seat) return `no seat ${JSON.stringify(cmd.seat)} in the inventory`;
  const gpu = cmd.gpu ?? (seat.host.name === host.name ? seat.seat.gpus[0] : undefined);
  if (gpu === undefined) return `${seat.name} runs on ${seat.host.name}, not ${host.name}: say which GPU of ${host.name} with --gpu N`;
  const listed = host.host.gpus.map((g) => g.index);
  if (listed.length > 0 && !listed.includes(gpu)) return `${host.name} has no GPU${gpu} in the inventory (GPUs: ${listed.join(', ')})`;
  const util = cmd.util ?? seat.seat.gpuMemoryUtilization;
  if (util === undefined) return `${seat.name} declares no gpuMemoryUtilization: give the planned one with --util`;
  return { seat: seat.name, gpu, util, currentUtil: seat.seat.gpuMemoryUtilization ?? null };
}

/** The GPU probe's own task for the host, with the probe's defaults (timeout, caps, reaper). */
function hostSampler(fleet: Fleet, host: HostRef, io: CliIo, patterns: Map<string, string>): Sampler | string {
  const { tasks } = planProbe(fleet, { site: host.site, only: ['gpus'], timeoutMs: null, paid: false }, { ...(io.probeDeps ?? {}), ...(io.env ? { env: io.env } : {}) });
  const task = tasks.find((t) => t.id === `gpu:${host.name}`);
  return task ? gpuSampler(task, patterns) : `no GPU probe planned for ${host.name}`;
}

/** While the watch runs, Ctrl-C is its own: the first stops it and the report still prints; the
 * handlers it displaced come back at once, so a second Ctrl-C ends the program as usual. */
function ctrlC(): { signal: AbortSignal; release(): void } {
  const ctl = new AbortController();
  // Raw: a `once` handler goes back as the same once-wrapper it was.
  const displaced = process.rawListeners('SIGINT') as ((...args: unknown[]) => void)[];
  let released = false;
  const release = (): void => {
    if (released) return;
    released = true;
    process.off('SIGINT', onInt);
    for (const l of displaced) process.on('SIGINT', l);
  };
  const onInt = (): void => {
    ctl.abort();
    release();
  };
  process.removeAllListeners('SIGINT');
  process.on('SIGINT', onInt);
  return { signal: ctl.signal, release };
}

function usage(io: CliIo, message: string): 2 {
  io.stderr.write(`seat: ${message}\n`);
  return 2;
}
