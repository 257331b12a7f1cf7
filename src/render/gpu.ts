// A GPU's memory as text: the bar with the free-memory floor marked, the figures beside it, and
// what to say when no card was measured at all (a failed query is not a card with 0 MiB free).
import { clean, firstLine, fmtInt } from '../probes/edge/text.ts';
import { declaredText, declaredTotalText } from '../probes/gpu.ts';
import type { Finding, GpuMemory } from '../probes/types.ts';

export interface BarGlyphs {
  used: string;
  free: string;
  /** Marks where the fill must stop to leave the floor free. */
  floor: string;
}

export const ASCII_BAR: BarGlyphs = { used: '#', free: '.', floor: '|' };

/** The cells of a card's bar, or null when its total or free memory was not measured. */
export function gpuBar(g: GpuMemory, width: number, glyphs: BarGlyphs = ASCII_BAR): { cells: string; under: boolean } | null {
  if (g.totalMiB === null || g.freeMiB === null || g.totalMiB <= 0) return null;
  const used = Math.min(width, Math.max(0, Math.round(((g.totalMiB - g.freeMiB) / g.totalMiB) * width)));
  const floorAt = Math.max(0, width - Math.round((g.floorMiB / g.totalMiB) * width));
  const cells: string[] = Array.from({ length: width }, (_, i) => (i < used ? glyphs.used : glyphs.free));
  cells[Math.min(floorAt, width - 1)] = glyphs.floor;
  return { cells: cells.join(''), under: g.marginMiB !== null && g.marginMiB < 0 };
}

/** "used 97,671 · declared 3,426 · free 216 MiB", with "of <total>" when asked. */
export function gpuFigures(g: GpuMemory, withTotal = false): string {
  const declared = g.seats.length > 0 ? ` · declared ${declaredTotalText(g.seats)}` : '';
  const free = g.freeMiB === null ? '?' : fmtInt(g.freeMiB);
  const total = withTotal ? ` of ${g.totalMiB === null ? '?' : fmtInt(g.totalMiB)}` : '';
  return `used ${g.usedMiB === null ? '?' : fmtInt(g.usedMiB)}${declared} · free ${free}${total} MiB`;
}

/** "vllm-embed 3,398/3,426": each seat's measured use beside its declared budget. */
export function seatFigures(g: GpuMemory): string {
  return g.seats.map((s) => `${s.seat} ${s.measuredMiB === null ? '?' : fmtInt(s.measuredMiB)}/${declaredText(s)}`).join(', ');
}

/** "xpu-chat (down) declared 18,360 MiB (inventory) cannot fit the 4,608 MiB free (measured)": the seats the
 * cross-check found down with a budget over the card's free memory; empty when none. */
export function cannotFitText(g: GpuMemory): string {
  if (g.freeMiB === null) return '';
  const free = fmtInt(g.freeMiB);
  return g.seats
    .filter((s) => s.cannotFit)
    .map((s) => `${s.seat} (down) declared ${s.declaredMiB === null ? '?' : fmtInt(s.declaredMiB)} MiB (inventory) cannot fit the ${free} MiB free (measured)`)
    .join('; ');
}

export function gpuOf(f: Finding): GpuMemory | null {
  return f.data.kind === 'gpu' ? f.data.gpu : null;
}

/**
 * When GPU findings exist but not one card has a measured free figure: why, per host, from the
 * findings' own one-line text ("fv-ml1: ssh: connect to host … refused"). Null when one was measured.
 */
export function noGpuMeasured(findings: Finding[]): string | null {
  const cards = findings.filter((f) => f.subject.kind === 'gpu' || f.subject.kind === 'gpu-host');
  if (cards.length === 0 || cards.some((f) => gpuOf(f)?.freeMiB != null)) return null;
  const byHost = new Map<string, string>();
  for (const f of cards) {
    const host = f.subject.kind === 'gpu' || f.subject.kind === 'gpu-host' ? f.subject.host : (f.host ?? '?');
    if (!byHost.has(host)) byHost.set(host, clean(firstLine(f.detail)));
  }
  const parts = [...byHost].map(([host, why]) => `${host}: ${why}`);
  const shown = parts.slice(0, 3);
  if (parts.length > shown.length) shown.push(`${parts.length - shown.length} more hosts`);
  return `no GPU measured: ${shown.join('; ')}`;
}

/** The floor the cards were judged against, when one was measured. */
export function floorOf(findings: Finding[]): number | null {
  for (const f of findings) {
    const g = gpuOf(f);
    if (g && g.freeMiB !== null) return g.floorMiB;
  }
  return null;
}
