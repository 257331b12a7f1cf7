// One finding as one plain line: mark, probe, target, what was seen, how long it took.
import { clean, fmtInt } from '../probes/edge/text.ts';
import type { Finding } from '../probes/types.ts';
import { ASCII_BAR, gpuBar, gpuFigures, gpuOf } from './gpu.ts';
import { LISTED_TEXT, MARK_TEXT, PLAIN, markOf, type Paint } from './marks.ts';

/** What a row says: the probe's detail, or for a paid alias only listed, that it was not called. */
export function rowText(f: Finding): string {
  return markOf(f) === 'listed' ? LISTED_TEXT : clean(f.detail);
}

export function findingLine(f: Finding, paint: Paint = PLAIN): string {
  const mark = markOf(f);
  const latency = f.latencyMs === null || mark === 'listed' ? '' : ` (${fmtInt(Math.round(f.latencyMs))} ms)`;
  return `${paint.mark(mark, MARK_TEXT[mark])} ${f.probe.padEnd(8)} ${clean(f.target).padEnd(24)} ${rowText(f)}${latency}`;
}

export const BAR_WIDTH = 40;

/** Under a GPU row: its bar, memory taken with the floor marked `|`, and the figures. */
export function barLine(f: Finding, paint: Paint = PLAIN): string | null {
  const g = gpuOf(f);
  const bar = g ? gpuBar(g, BAR_WIDTH, ASCII_BAR) : null;
  if (!g || !bar) return null;
  return `[${bar.under ? paint.alarm(bar.cells) : bar.cells}] ${gpuFigures(g)}`;
}
