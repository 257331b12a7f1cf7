// `seat watch gpus`: sample a host's GPUs over a window, then judge a planned seat size on what was
// measured. Pure over a sampler and a clock: the terminal wires the GPU probe and real time in.
import { freeStats, type GpuFreeStats } from './stats.ts';
import { judgeSizing, type Sizing } from './sizing.ts';
import { watchWindow, type WindowOptions, type WindowRun } from './window.ts';

export interface SizingRequest {
  seat: string;
  gpu: number;
  util: number;
  /** The seat's --gpu-memory-utilization in the inventory (null when it declares none). */
  currentUtil: number | null;
}

export interface WatchRequest {
  forMs: number;
  everyMs: number;
  floorMiB: number;
  sizing?: SizingRequest | undefined;
}

export interface WatchResult {
  run: WindowRun;
  stats: GpuFreeStats[];
  sizing: Sizing | null;
}

export async function watchGpus(req: WatchRequest, o: Omit<WindowOptions, 'forMs' | 'everyMs'>): Promise<WatchResult> {
  const run = await watchWindow({ ...o, forMs: req.forMs, everyMs: req.everyMs });
  return judgeWatch(req, run);
}

/** The figures of a finished (or stopped) window, and the sizing verdict when one was asked. */
export function judgeWatch(req: WatchRequest, run: WindowRun): WatchResult {
  const stats = freeStats(run.samples);
  const z = req.sizing;
  if (!z) return { run, stats, sizing: null };
  const elsewhere = stats
    .filter((g) => g.index !== z.gpu && g.seatsMaxMiB[z.seat] !== undefined)
    .map((g) => ({ gpu: g.index, mib: g.seatsMaxMiB[z.seat]! }))
    .sort((a, b) => b.mib - a.mib)[0];
  const sizing = judgeSizing({
    seat: z.seat,
    gpu: z.gpu,
    util: z.util,
    floorMiB: req.floorMiB,
    stats: stats.find((g) => g.index === z.gpu),
    currentUtil: z.currentUtil,
    measuredElsewhere: elsewhere ?? null,
    cutShort: run.stopped,
  });
  return { run, stats, sizing };
}
