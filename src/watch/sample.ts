// One sample of a host's GPUs, read from the GPU probe's own findings: free memory as nvidia-smi
// (or xpu-smi) reported it, never total − used, and which seat's processes hold memory on each card.
import type { Finding, ProbeTask, Reason } from '../probes/types.ts';

export interface GpuReading {
  index: number;
  totalMiB: number | null;
  /** null when the card gave no figure this time (or the query failed): not counted, not zero. */
  freeMiB: number | null;
  /** Seats with memory measured on this card: from the inventory's pairing, or by process name. */
  seatsMiB: Record<string, number>;
  reason: Reason | null;
}

export interface Sample {
  /** Milliseconds since the watch began, by its clock. */
  atMs: number;
  gpus: GpuReading[];
}

/** Takes one sample; stops its work when `signal` aborts. */
export type Sampler = (signal: AbortSignal) => Promise<GpuReading[]>;

/** Seat name → the process-name substring that identifies it (the inventory's `process`). */
export type SeatPatterns = ReadonlyMap<string, string>;

/** The readings in a host's GPU findings, one per card, in index order. */
export function readingsOf(findings: readonly Finding[], patterns: SeatPatterns = new Map()): GpuReading[] {
  const out: GpuReading[] = [];
  for (const f of findings) {
    if (f.data.kind !== 'gpu' || f.data.gpu.index < 0) continue;
    const g = f.data.gpu;
    const seatsMiB: Record<string, number> = {};
    for (const s of g.seats) if (s.measuredMiB !== null) seatsMiB[s.seat] = s.measuredMiB;
    // A seat the inventory does not place on this card yet (a move being tried) is found by its processes.
    for (const [seat, pattern] of patterns) {
      if (seat in seatsMiB || pattern === '') continue;
      const mine = g.processes.filter((p) => p.name.includes(pattern));
      if (mine.length > 0 && mine.every((p) => p.usedMiB !== null)) seatsMiB[seat] = mine.reduce((a, p) => a + (p.usedMiB ?? 0), 0);
    }
    out.push({ index: g.index, totalMiB: g.totalMiB, freeMiB: g.freeMiB, seatsMiB, reason: f.status === 'up' ? null : (f.reason ?? null) });
  }
  return out.sort((a, b) => a.index - b.index);
}

/** The GPU probe's task for one host, run once per sample. */
export function gpuSampler(task: ProbeTask, patterns: SeatPatterns = new Map()): Sampler {
  return async (signal) => readingsOf(await task.run(signal), patterns);
}
