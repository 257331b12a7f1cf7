// The watch in words: one line per sample while it runs, then per GPU min / median / max free and the
// sample count, then the sizing check with the number its verdict rests on named. Pure text.
import { fmtInt } from '../probes/edge/text.ts';
import type { Sample } from './sample.ts';
import type { Sizing } from './sizing.ts';
import type { GpuFreeStats } from './stats.ts';
import type { WindowRun } from './window.ts';

/** 360000 → "6m", 90000 → "1m 30s", 1500 → "1.5s". */
export function duration(ms: number): string {
  if (ms === 0) return '0s';
  if (ms < 1000) return `${ms}ms`;
  const s = ms / 1000;
  if (s < 60) return `${Number(s.toFixed(1))}s`;
  const m = Math.floor(s / 60);
  const rest = Math.round(s - m * 60);
  return rest === 0 ? `${m}m` : `${m}m ${rest}s`;
}

export function startLine(host: string, planned: number, everyMs: number, forMs: number): string {
  return `watching ${host}: ${planned} samples, every ${duration(everyMs)} for ${duration(forMs)} (Ctrl-C stops and prints what was measured)`;
}

export function sampleLine(s: Sample, n: number, planned: number): string {
  const cards = s.gpus.map((g) => `GPU${g.index} ${g.freeMiB === null ? `? (${g.reason ?? 'no figure'})` : fmtInt(g.freeMiB)}`);
  return `sample ${n}/${planned} at ${duration(s.atMs)}: ${cards.length > 0 ? `${cards.join(' · ')} MiB free` : 'no GPU answered'}`;
}

export function statsLines(host: string, run: WindowRun, stats: readonly GpuFreeStats[], floorMiB: number): string[] {
  const head = run.stopped
    ? `stopped after ${run.samples.length} of ${run.planned} samples (${duration(run.coveredMs)} of the ${duration(run.forMs)} window): what was measured so far`
    : `${run.samples.length} samples, every ${duration(run.everyMs)} over ${duration(run.forMs)}`;
  const out = [`${host} GPU free memory — ${head}:`];
  if (stats.length === 0) out.push('  no GPU figure measured');
  for (const g of stats) {
    const figures =
      g.minFreeMiB === null
        ? 'no free figure in any sample'
        : `min ${fmtInt(g.minFreeMiB)} · median ${fmtInt(g.medianFreeMiB ?? 0)} · max ${fmtInt(g.maxFreeMiB ?? 0)} MiB free${g.totalMiB === null ? '' : ` of ${fmtInt(g.totalMiB)}`}`;
    const missing = g.missing > 0 ? `, ${g.missing} without a figure` : '';
    const under = g.minFreeMiB !== null && g.minFreeMiB < floorMiB ? ` — under the ${fmtInt(floorMiB)} MiB floor` : '';
    out.push(`  GPU${g.index}  ${figures} (${g.count} sample${g.count === 1 ? '' : 's'}${missing})${under}`);
  }
  return out;
}

const VERDICT: Record<Sizing['decision'], string> = { allow: 'ALLOW', refuse: 'REFUSE', inconclusive: 'NOT DECIDED' };

export function sizingLines(z: Sizing): string[] {
  const mib = (n: number | null): string => (n === null ? '?' : `${fmtInt(n)} MiB`);
  const out = [`sizing ${z.seat} on GPU${z.gpu} at --gpu-memory-utilization ${z.util}:`];
  out.push(`  declared budget   ${mib(z.declaredMiB)}${z.totalMiB === null ? '' : ` (${z.util} × ${fmtInt(z.totalMiB)} total)`}`);
  out.push(`  measured free     ${mib(z.minFreeMiB)} (the least over the window)`);
  const without = z.seatMeasuredMiB === null ? 'measured free' : `measured free + ${z.seat}'s own ${fmtInt(z.seatMeasuredMiB)}`;
  const rests = ` — the verdict rests on this, against the ${fmtInt(z.floorMiB)} MiB floor`;
  // Each figure by its provenance: free minus the declared budget is the declared margin, even when the
  // verdict rests on it; a measured margin is shown only where the seat's real use was measured.
  const onDeclared = z.restsOn === 'free minus the declared budget';
  out.push(`  declared margin   ${mib(z.declaredMarginMiB)} (${without} − declared budget)${onDeclared ? rests : ''}`);
  if (z.seatMeasuredMiB !== null) out.push(`  seat measured     ${mib(z.seatMeasuredMiB)} (${z.seat} already runs on GPU${z.gpu}: its real use is inside the free figure)`);
  if (onDeclared) out.push(`  measured margin   not measured: ${z.seat} does not run on GPU${z.gpu} yet, so what it really takes there is unknown (the runtime allocates on top of the budget)`);
  else if (z.restsOn === 'nothing measured') out.push(`  measured margin   ? (nothing measured)`);
  else if (z.restsOn === 'free with the seat running, adjusted by the budget change') out.push(`  margin            ${mib(z.measuredMarginMiB)} (measured free with the seat running, adjusted by the declared budget change)${rests}`);
  else out.push(`  measured margin   ${mib(z.measuredMarginMiB)} (measured ${z.restsOn})${rests}`);
  out.push(`${VERDICT[z.decision]}: ${z.why}`);
  return out;
}

/** The FlashInfer autotuner's OOM fallbacks are counted from the seat's logs, not by this watch. */
export function fallbackLine(seat: string | undefined): string {
  return `OOM fallbacks (FlashInfer autotuner) are not counted here: read them with seat diagnose --seat ${seat ?? '<seat>'}`;
}
