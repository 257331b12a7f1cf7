// A power log summary as plain text for a terminal or a pipe. Everything that came from the file
// (names, uuids, skipped lines) goes through `clean` again here: no escape sequence reaches a
// terminal, whoever built the summary.
import { clean, fmtInt, fmtNum } from '../probes/edge/text.ts';
import type { PowerLogSummary, Reading } from './types.ts';
import type { UpsComparison } from './ups.ts';

/** `ups`: the comparison, or why there is none. */
export function renderPowerLog(s: PowerLogSummary, source: string, ups: UpsComparison | { why: string }): string {
  return [...head(s, source), '', ...table(s), ...notes(s), '', ...upsLines(s, ups)].join('\n');
}

function head(s: PowerLogSummary, source: string): string[] {
  const out = [`power log ${clean(source)}: GPU board power (${s.drawColumn}); times as the host wrote them, no zone`];
  if (s.first !== null && s.last !== null) {
    const every = s.intervalMs === null ? '' : `, every ${duration(s.intervalMs)}`;
    const model = oneName(s);
    out.push(`  ${s.first} → ${s.last} (${duration(s.spanMs)}): ${plural(s.samples, 'sample')} of ${plural(s.gpus.length, 'GPU')}${model ? ` (${clean(model)})` : ''}${every}`);
  } else {
    out.push('  no samples after the header');
  }
  const ls = s.lastSample;
  if (ls) {
    const of = ls.complete ? (ls.gpus === 1 ? '1 GPU' : `all ${ls.gpus} GPUs`) : `${ls.gpus} of ${s.gpus.length} GPUs: cut mid-sample, left out of the sum`;
    out.push(`  ends: last sample ${ls.at} (${of})`);
  }
  if (s.partialLast) {
    const at = s.partialLast.at ? ` at ${s.partialLast.at}` : '';
    out.push(`  then a partial line${at}, cut mid-line and left out: ${clean(s.partialLast.text)}`);
  }
  const l = s.lines;
  out.push(`  lines: ${fmtInt(l.read)} read, ${plural(l.rows, 'row')}, ${plural(l.headers, 'header')}, ${fmtInt(l.skipped)} skipped${s.partialLast ? ', 1 partial' : ''}`);
  return out;
}

function table(s: PowerLogSummary): string[] {
  const window = `last ${duration(s.windowMs)}`;
  // One model on every card is named once, above; mixed cards get a column.
  const named = oneName(s) === null && s.gpus.some((g) => g.name !== null);
  const rows: string[][] = [['GPU', ...(named ? ['name'] : []), 'peak W', 'at', 'mean W', `${window} W`, 'last W', 'limit W']];
  for (const g of s.gpus) rows.push([clean(g.gpu), ...(named ? [clean(g.name ?? '')] : []), ...figures(g.peak, g.meanW, g.lastWindow?.meanW ?? null, g.last, g.limitW)]);
  const m = s.sum;
  rows.push(['sum', ...(named ? [''] : []), ...figures(m.peak, m.meanW, m.lastWindow?.meanW ?? null, m.last, m.limitsW)]);
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => (r[i] ?? '').length)));
  return rows.map((r) => `  ${r.map((c, i) => c.padEnd(widths[i]!)).join('  ')}`.trimEnd());
}

function figures(peak: Reading | null, meanW: number | null, windowW: number | null, last: Reading | null, limitW: number | null): string[] {
  return [watts(peak?.watts ?? null), peak ? seconds(peak.at) : '-', watts(meanW), watts(windowW), watts(last?.watts ?? null), watts(limitW)];
}

function notes(s: PowerLogSummary): string[] {
  const out: string[] = [];
  // The sample the cut split is told above; others left out of the sum are told here.
  const others = s.sum.incomplete - (s.lastSample && !s.lastSample.complete ? 1 : 0);
  if (others > 0) out.push(`  sum: ${fmtInt(others)} ${s.lastSample?.complete === false ? 'more ' : ''}of ${fmtInt(s.samples)} samples left out: a GPU missing or not reported in them`);
  for (const g of s.gpus) if (g.notReported > 0) out.push(`  GPU ${clean(g.gpu)}: ${s.drawColumn} not reported in ${fmtInt(g.notReported)} of ${fmtInt(g.rows)} rows ([N/A] or the like)`);
  if (s.spanMs < s.windowMs && s.first !== null) out.push(`  the log covers ${duration(s.spanMs)}: the last ${duration(s.windowMs)} mean is over all of it`);
  if (s.lines.headers > 1) out.push(`  the header repeats (${s.lines.headers} in all): nvidia-smi was restarted`);
  if (s.longestGap && s.intervalMs !== null && s.longestGap.ms >= 3 * s.intervalMs) out.push(`  longest gap ${duration(s.longestGap.ms)} after ${seconds(s.longestGap.after)}: no samples in it`);
  if (s.timeWentBack > 0) out.push(`  the time went back ${s.timeWentBack}× (logs joined, or the clock stepped): the last-minutes means cover the stretch after the last step`);
  for (const x of s.skippedExamples) out.push(`  skipped line ${x.line}: ${clean(x.why)}: ${clean(x.text)}`);
  return out.length > 0 ? ['', ...out] : out;
}

function upsLines(s: PowerLogSummary, u: UpsComparison | { why: string }): string[] {
  if ('why' in u) return [`UPS: none to compare with (${clean(u.why)})`];
  const rating = [u.ratedW === null ? null : `${fmtInt(u.ratedW)} W`, u.ratedVA === null ? null : `${fmtInt(u.ratedVA)} VA`].filter((x) => x !== null).join(', ');
  const out = [`UPS ${clean(u.ups)} (site ${clean(u.site)}): rated ${rating || 'nothing (no ratedW or ratedVA in the inventory)'}`];
  if (u.peakW === null) return [...out, '  no summed sample to compare: every sample lacked a GPU'];
  if (u.ratedW !== null && u.peakPctOfW !== null) {
    out.push(`  summed peak ${watts(u.peakW)} W at ${seconds(s.sum.peak?.at ?? '')} = ${pct(u.peakPctOfW)} of ${fmtInt(u.ratedW)} W`);
    if (u.lastWindowPctOfW !== null && s.sum.lastWindow) out.push(`  last ${duration(s.windowMs)} mean ${watts(s.sum.lastWindow.meanW)} W = ${pct(u.lastWindowPctOfW)} of ${fmtInt(u.ratedW)} W`);
    if (u.exceedsW) out.push(`  WARN the summed peak ${watts(u.peakW)} W exceeds the UPS's ${fmtInt(u.ratedW)} W rating`);
    else if (u.overWarnPct) out.push(`  WARN the summed peak is at ${pct(u.peakPctOfW)} of the rating, over the ${fmtInt(u.warnPct)}% warn level (settings.upsLoadWarnPct)`);
  } else {
    out.push(`  no ratedW for ${clean(u.ups)} in the inventory: the peak ${watts(u.peakW)} W cannot be put against a watt rating`);
  }
  if (u.ratedVA !== null && u.peakPctOfVAAtLeast !== null) out.push(`  the peak is at least ${pct(u.peakPctOfVAAtLeast)} of ${fmtInt(u.ratedVA)} VA (watts are at most volt-amperes)`);
  out.push('  GPU boards only: the hosts draw more at the wall (CPUs, fans, PSU losses, and whatever else is on the UPS)');
  return out;
}

function oneName(s: PowerLogSummary): string | null {
  const names = new Set(s.gpus.map((g) => g.name));
  const [only] = names;
  return names.size === 1 && only !== undefined ? only : null;
}

function plural(n: number, word: string): string {
  return `${fmtInt(n)} ${word}${n === 1 ? '' : 's'}`;
}

function watts(w: number | null): string {
  return w === null ? '-' : fmtNum(w, 1);
}

function pct(p: number): string {
  return `${fmtInt(p)}%`;
}

/** `2026/09/13 06:56:04.123` → `2026/09/13 06:56:04`. */
function seconds(at: string): string {
  return clean(at).replace(/\.\d+$/, '');
}

/** 10000 → "10 s", 500 → "0.5 s", 296000 → "4 min 56 s", 11_940_000 → "3 h 19 min". */
export function duration(ms: number): string {
  if (ms < 60_000) return `${fmtNum(ms / 1000, 1)} s`;
  const s = Math.round(ms / 1000);
  const h = Math.floor(s / 3600);
  const m = Math.floor((s % 3600) / 60);
  const sec = s % 60;
  if (h > 0) return `${fmtInt(h)} h${m > 0 ? ` ${m} min` : ''}`;
  return `${m} min${sec > 0 ? ` ${sec} s` : ''}`;
}
