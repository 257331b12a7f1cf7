// Does a seat fit a GPU at a planned --gpu-memory-utilization? The declared budget (util × total) is
// shown, but the verdict rests on measured free memory, the least seen over the window: seed 000 called
// a 1,979 MiB margin against the declared budget "safe", and the seat came up at 1,548 MiB free and fell
// back to slow kernels, because the runtime (FlashInfer workspace, CUDA graphs) allocates on top of it.
import type { GpuFreeStats } from './stats.ts';

export type Decision = 'allow' | 'refuse' | 'inconclusive';

export interface SizingInput {
  seat: string;
  gpu: number;
  util: number;
  floorMiB: number;
  /** The target card's figures over the window; undefined when the host reported no such card. */
  stats: GpuFreeStats | undefined;
  /** The seat's utilization as the inventory has it now (null: not declared as a fraction). */
  currentUtil: number | null;
  /** The seat's largest measured use on another card of this host, when it runs there now. */
  measuredElsewhere: { gpu: number; mib: number } | null;
  /** The window was cut short (Ctrl-C): a longer one could only have seen less free memory. */
  cutShort: boolean;
}

export interface Sizing {
  decision: Decision;
  seat: string;
  gpu: number;
  util: number;
  floorMiB: number;
  totalMiB: number | null;
  /** util × total: what the engine will be told it may take. */
  declaredMiB: number | null;
  minFreeMiB: number | null;
  /** What the declared arithmetic says: free (without the seat, when it already runs there) − budget. */
  declaredMarginMiB: number | null;
  /** The seat's own processes on the target card: it already runs there, its real use inside the free figure. */
  seatMeasuredMiB: number | null;
  /** What is left for everything else once the seat is in, by measurement: the number the decision rests on. */
  measuredMarginMiB: number | null;
  restsOn: 'free with the seat running' | 'free with the seat running, adjusted by the budget change' | 'free minus the declared budget' | 'free minus its measured use elsewhere' | 'nothing measured';
  /** Why, in a few words. */
  why: string;
}

export function judgeSizing(i: SizingInput): Sizing {
  const s = i.stats;
  const total = s?.totalMiB ?? null;
  const declared = total === null ? null : Math.round(i.util * total);
  const minFree = s?.minFreeMiB ?? null;
  const seatHere = s?.seatsMaxMiB[i.seat] ?? null;
  const base = { seat: i.seat, gpu: i.gpu, util: i.util, floorMiB: i.floorMiB, totalMiB: total, declaredMiB: declared, minFreeMiB: minFree, seatMeasuredMiB: seatHere };
  // The seat's own use is inside the free figure when it runs there: the arithmetic takes it out first.
  const declaredMargin = minFree !== null && declared !== null ? minFree + (seatHere ?? 0) - declared : null;
  if (minFree === null || declared === null || total === null) {
    const why = s === undefined ? `the host reported no GPU${i.gpu}` : minFree === null ? `no free-memory figure for GPU${i.gpu} in any sample` : `GPU${i.gpu} reported no total memory`;
    return { ...base, decision: 'inconclusive', declaredMarginMiB: declaredMargin, measuredMarginMiB: null, restsOn: 'nothing measured', why };
  }
  let margin: number;
  let restsOn: Sizing['restsOn'];
  if (seatHere !== null) {
    // Already on the card: the free figure holds what it really takes. A changed budget moves it by the difference.
    const change = i.currentUtil !== null && i.currentUtil !== i.util ? Math.round(i.currentUtil * total) - declared : 0;
    margin = minFree + change;
    restsOn = change === 0 ? 'free with the seat running' : 'free with the seat running, adjusted by the budget change';
  } else if (i.measuredElsewhere !== null && i.measuredElsewhere.mib > declared) {
    margin = minFree - i.measuredElsewhere.mib;
    restsOn = 'free minus its measured use elsewhere';
  } else {
    margin = minFree - declared;
    restsOn = 'free minus the declared budget';
  }
  const out = { ...base, declaredMarginMiB: declaredMargin, measuredMarginMiB: margin, restsOn };
  if (margin < 0) return { ...out, decision: 'refuse', why: seatHere === null ? 'it does not fit: vLLM refuses to start when free memory is under util × total' : 'it does not fit' };
  if (margin < i.floorMiB) {
    const why = restsOn === 'free minus the declared budget' ? 'under the floor: not safe, by the declared margin alone, and the runtime takes more than the budget' : 'under the floor: not safe, whatever the declared margin says';
    return { ...out, decision: 'refuse', why };
  }
  if (i.cutShort) return { ...out, decision: 'inconclusive', why: 'the window was cut short: a longer one can only see less free memory' };
  return { ...out, decision: 'allow', why: seatHere === null ? 'allowed for now: the runtime takes more than the budget; watch again once the seat runs there' : 'measured with the seat running' };
}
