// Free memory per GPU over the window: the least of it is what a seat must live in, so the minimum
// is the figure a decision rests on; median and maximum say how much it moves.
import type { Sample } from './sample.ts';

export interface GpuFreeStats {
  index: number;
  totalMiB: number | null;
  /** Samples with a free figure for this card. */
  count: number;
  /** Samples without one (query failed, N/A): said, never read as zero. */
  missing: number;
  minFreeMiB: number | null;
  medianFreeMiB: number | null;
  maxFreeMiB: number | null;
  /** Each seat's largest measured use on this card over the window. */
  seatsMaxMiB: Record<string, number>;
}

export function freeStats(samples: readonly Sample[]): GpuFreeStats[] {
  const indices = [...new Set(samples.flatMap((s) => s.gpus.map((g) => g.index)))].sort((a, b) => a - b);
  return indices.map((index) => {
    const free: number[] = [];
    let totalMiB: number | null = null;
    const seatsMaxMiB: Record<string, number> = {};
    for (const s of samples) {
      const g = s.gpus.find((x) => x.index === index);
      if (!g) continue;
      if (g.freeMiB !== null) free.push(g.freeMiB);
      totalMiB = g.totalMiB ?? totalMiB;
      for (const [seat, mib] of Object.entries(g.seatsMiB)) seatsMaxMiB[seat] = Math.max(seatsMaxMiB[seat] ?? 0, mib);
    }
    const sorted = [...free].sort((a, b) => a - b);
    return {
      index,
      totalMiB,
      count: free.length,
      missing: samples.length - free.length,
      minFreeMiB: sorted[0] ?? null,
      medianFreeMiB: median(sorted),
      maxFreeMiB: sorted.at(-1) ?? null,
      seatsMaxMiB,
    };
  });
}

/** The middle of sorted numbers; the mean of the two middle ones, rounded, when even. */
export function median(sorted: readonly number[]): number | null {
  if (sorted.length === 0) return null;
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[mid]! : Math.round((sorted[mid - 1]! + sorted[mid]!) / 2);
}
