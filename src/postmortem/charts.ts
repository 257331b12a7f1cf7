// The HTML export's charts, hand-written SVG (no library, no external resource): each GPU's memory
// as measured (by seat, other processes, free) against what its seats declared, with the margin
// floor; and each UPS's load over the incident against its rating. Figures come from the findings'
// data; every name is HTML-escaped.
import type { Finding, GpuMemory, UpsReading } from '../probes/types.ts';
import { html } from './escape.ts';
import type { Snapshot } from './facts.ts';
import { offset } from '../render/time.ts';

const COLORS = ['#2f6db5', '#d9822b', '#3c9a5f', '#9b59b6', '#c0392b', '#16a085', '#8e6c3a', '#d35d8f'];
const W = 720;
const f1 = (n: number): string => String(Math.round(n * 10) / 10);
const mib = (n: number): string => `${Math.round(n).toLocaleString('en-US')} MiB`;

function svg(kind: string, title: string, height: number, body: string[]): string {
  const id = `c${kind}${Math.abs(hash(title))}`;
  return [
    `<svg xmlns="http://www.w3.org/2000/svg" class="chart" data-chart="${kind}" viewBox="0 0 ${W} ${height}" width="${W}" height="${height}" role="img" aria-labelledby="${id}">`,
    `<title id="${id}">${html(title)}</title>`,
    ...body,
    '</svg>',
  ].join('\n');
}

function hash(s: string): number {
  let h = 0;
  for (let i = 0; i < s.length; i++) h = (h * 31 + s.charCodeAt(i)) | 0;
  return h;
}

const text = (x: number, y: number, s: string, attrs = ''): string => `<text x="${f1(x)}" y="${f1(y)}"${attrs ? ` ${attrs}` : ''}>${html(s)}</text>`;
const rect = (x: number, y: number, w: number, h: number, attrs: string): string => `<rect x="${f1(x)}" y="${f1(y)}" width="${f1(Math.max(0, w))}" height="${f1(h)}" ${attrs}/>`;

/** One GPU: measured use by seat, other processes and free, over the seats' declared budgets, with the floor. */
export function gpuChart(g: GpuMemory, floorMiB: number, at: string): string | null {
  const total = g.totalMiB;
  if (total === null || !(total > 0)) return null;
  const left = 110;
  const span = W - left - 20;
  const x = (m: number): number => left + (Math.min(Math.max(m, 0), total) / total) * span;
  const body: string[] = [];
  const name = `${g.host} GPU${g.index}`;
  body.push(text(8, 18, `${name} — ${mib(total)} total, floor ${mib(floorMiB)} free (probe at ${at})`, 'class="t"'));
  const seats = Array.isArray(g.seats) ? g.seats : [];
  // Measured: each seat's processes, then what no seat accounts for, then free.
  const yM = 34;
  const yD = 70;
  const h = 24;
  body.push(text(8, yM + 16, 'measured'), text(8, yD + 16, 'declared'));
  body.push(rect(left, yM, span, h, 'fill="none" stroke="#999"'), rect(left, yD, span, h, 'fill="none" stroke="#999"'));
  let cursor = 0;
  const seg = (y: number, from: number, size: number, fill: string, label: string, extra = ''): void => {
    if (!(size > 0)) return;
    const x0 = x(from);
    const w = x(from + size) - x0;
    body.push(rect(x0, y, w, h, `fill="${fill}" ${extra}`.trim()));
    if (w > 56) body.push(text(x0 + 4, y + 16, label, 'class="in"'));
  };
  let attributed = 0;
  seats.forEach((s, i) => {
    if (s.measuredMiB === null) return;
    seg(yM, cursor, s.measuredMiB, COLORS[i % COLORS.length]!, s.seat);
    cursor += s.measuredMiB;
    attributed += s.measuredMiB;
  });
  const used = g.usedMiB ?? attributed;
  const other = used - attributed;
  if (other > 0) {
    seg(yM, cursor, other, '#8c8c8c', 'other');
    cursor += other;
  }
  if (g.freeMiB !== null) seg(yM, cursor, g.freeMiB, '#e6efe6', 'free', 'stroke="#7a7"');
  // Declared: each seat's budget (util × total, or its KV bytes), then what is not promised.
  let promised = 0;
  seats.forEach((s, i) => {
    if (s.declaredMiB === null) return;
    seg(yD, promised, s.declaredMiB, COLORS[i % COLORS.length]!, s.seat, 'fill-opacity="0.45"');
    promised += s.declaredMiB;
  });
  if (promised > total) body.push(text(x(total) - 4, yD - 3, `over-committed by ${mib(promised - total)}`, 'class="warn" text-anchor="end"'));
  // The floor: used must stay left of it, free right of it.
  const fx = x(total - floorMiB);
  body.push(`<line class="floor" x1="${f1(fx)}" y1="${yM - 6}" x2="${f1(fx)}" y2="${yD + h + 6}" stroke="#c0392b" stroke-width="2" stroke-dasharray="5 3"/>`);
  body.push(text(fx - 4, yD + h + 18, `floor: ${mib(floorMiB)} free`, 'class="warn" text-anchor="end"'));
  // Legend: one line a seat, and the rest.
  let y = yD + h + 40;
  const legend = (fill: string, s: string, extra = ''): void => {
    body.push(rect(8, y - 10, 12, 12, `fill="${fill}" ${extra}`.trim()), text(26, y, s));
    y += 18;
  };
  seats.forEach((s, i) => {
    const m = s.measuredMiB === null ? `not measured (${s.unmeasuredWhy ?? '?'})` : mib(s.measuredMiB);
    const d = s.declaredMiB === null ? 'undeclared' : `${mib(s.declaredMiB)}${s.kvCacheOnly ? ' KV cache + weights' : ''}`;
    legend(COLORS[i % COLORS.length]!, `${s.seat}: measured ${m}, declared ${d}`);
  });
  if (other > 0) legend('#8c8c8c', `other processes or not attributed: ${mib(other)}`);
  legend('#e6efe6', `free: ${g.freeMiB === null ? 'not reported' : mib(g.freeMiB)}${g.marginMiB !== null ? `, margin over the floor ${mib(g.marginMiB)}` : ''}`, 'stroke="#7a7"');
  return svg('gpu', `GPU memory of ${name}`, y, body);
}

/** The smallest 4 × (a round step × 10ⁿ) at or above `v`: axis ticks people can read. */
function niceTop(v: number): number {
  const raw = v / 4;
  const mag = 10 ** Math.floor(Math.log10(raw));
  const step = [1, 1.5, 2, 2.5, 3, 4, 5, 6, 8, 10].map((m) => m * mag).find((s) => s >= raw) ?? 10 * mag;
  return step * 4;
}

interface UpsPoint {
  at: string;
  reading: UpsReading;
}

/** One UPS: its load at each probe report over the incident, against its rating and warning line. */
export function upsChart(name: string, points: UpsPoint[], start: string, end: string): string | null {
  if (points.length === 0) return null;
  const rated = points.map((p) => p.reading.ratedW).find((r): r is number => typeof r === 'number' && r > 0) ?? null;
  const warnPct = points.map((p) => p.reading.warnPct).find((w) => typeof w === 'number') ?? 80;
  const watts = points.some((p) => p.reading.loadW !== null) || rated !== null;
  const unit = watts ? 'W' : '%';
  const limit = watts ? rated : 100;
  const valueOf = (r: UpsReading): number | null => (watts ? (r.loadW ?? (r.loadPct !== null && rated !== null ? (r.loadPct * rated) / 100 : null)) : r.loadPct);
  const seen = points.map((p) => ({ ...p, value: valueOf(p.reading) }));
  const values = seen.map((p) => p.value).filter((v): v is number => v !== null);
  const top = niceTop(Math.max(limit !== null ? limit * 1.15 : 0, ...values.map((v) => v * 1.1), 1));
  const H = 250;
  const L = 64;
  const R = 20;
  const T = 34;
  const B = 48;
  const t0 = Math.min(Date.parse(start), ...points.map((p) => Date.parse(p.at)));
  const t1 = Math.max(Date.parse(end), ...points.map((p) => Date.parse(p.at)), t0 + 1000);
  // Inset from the axes, so a reading at the very start or end is not drawn on them.
  const x = (iso: string): number => L + 28 + ((Date.parse(iso) - t0) / (t1 - t0)) * (W - L - R - 56);
  const y = (v: number): number => T + (1 - v / top) * (H - T - B);
  const body: string[] = [text(8, 18, `${name} — load over the incident${limit !== null ? `, against its ${f1(limit)} ${unit} ${watts ? 'rating' : 'capacity'}` : ''}`, 'class="t"')];
  body.push(`<line x1="${L}" y1="${f1(y(0))}" x2="${W - R}" y2="${f1(y(0))}" stroke="#999"/>`, `<line x1="${L}" y1="${T}" x2="${L}" y2="${f1(y(0))}" stroke="#999"/>`);
  for (let i = 0; i <= 4; i++) {
    const v = (top / 4) * i;
    body.push(text(L - 6, y(v) + 4, `${Math.round(v).toLocaleString('en-US')} ${unit}`, 'class="ax" text-anchor="end"'));
  }
  if (limit !== null) {
    body.push(`<line class="rating" x1="${L}" y1="${f1(y(limit))}" x2="${W - R}" y2="${f1(y(limit))}" stroke="#c0392b" stroke-width="2"/>`);
    body.push(text(L + 6, y(limit) - 5, `rating ${Math.round(limit).toLocaleString('en-US')} ${unit}`, 'class="warn"'));
    const warn = (limit * warnPct) / 100;
    body.push(`<line class="warnline" x1="${L}" y1="${f1(y(warn))}" x2="${W - R}" y2="${f1(y(warn))}" stroke="#d9822b" stroke-dasharray="6 4"/>`);
    body.push(text(L + 6, y(warn) - 5, `warning ${warnPct} % (${Math.round(warn).toLocaleString('en-US')} ${unit})`, 'class="ax"'));
  }
  // The line breaks where the UPS did not answer: a gap is not a reading of zero.
  let run: string[] = [];
  const lines: string[] = [];
  for (const p of seen) {
    if (p.value === null) {
      if (run.length > 0) lines.push(run.join(' '));
      run = [];
      continue;
    }
    run.push(`${f1(x(p.at))},${f1(y(p.value))}`);
  }
  if (run.length > 0) lines.push(run.join(' '));
  for (const l of lines) body.push(`<polyline class="load" points="${l}" fill="none" stroke="#2f6db5" stroke-width="2"/>`);
  for (const p of seen) {
    const px = x(p.at);
    if (p.value === null) {
      body.push(text(px, y(0) - 4, '×', 'class="gap" text-anchor="middle"'), text(px, y(0) - 18, 'no answer', 'class="ax" text-anchor="middle"'));
    } else {
      body.push(`<circle class="point" cx="${f1(px)}" cy="${f1(y(p.value))}" r="4" fill="#2f6db5"/>`);
      body.push(text(px, y(p.value) - 8, `${Math.round(p.value).toLocaleString('en-US')} ${unit}${p.reading.status.length ? ` ${p.reading.status.join(' ')}` : ''}`, 'class="ax" text-anchor="middle"'));
    }
  }
  // Ticks: the first and last reading and a few between, as T+ from the incident's start.
  const step = Math.max(1, Math.ceil(points.length / 6));
  points.forEach((p, i) => {
    if (i % step !== 0 && i !== points.length - 1) return;
    body.push(text(x(p.at), H - B + 18, offset(start, p.at), 'class="ax" text-anchor="middle"'));
  });
  body.push(text(L, H - 8, `each point is a probe report (measured through NUT); T+ from the incident's start${watts ? '' : '; no watt figure or rating: load in %'}`, 'class="ax"'));
  return svg('ups', `UPS load of ${name}`, H, body);
}

export interface Chart {
  kind: 'gpu' | 'ups';
  svg: string;
}

/** Every chart the incident's reports allow: the GPUs of the latest report that measured them, and each UPS over time. */
export function chartsOf(snapshots: Snapshot[], o: { start: string; end: string; floorMiB?: number }): Chart[] {
  const charts: Chart[] = [];
  const gpuSnap = [...snapshots].reverse().find((s) => s.findings.some((f) => f.data.kind === 'gpu' && f.data.gpu.totalMiB !== null));
  if (gpuSnap) {
    for (const f of gpuSnap.findings) {
      if (f.data.kind !== 'gpu') continue;
      const g = f.data.gpu;
      const svgText = gpuChart(g, o.floorMiB ?? g.floorMiB, `#${gpuSnap.seq}, ${offset(o.start, gpuSnap.at)}`);
      if (svgText) charts.push({ kind: 'gpu', svg: svgText });
    }
  }
  const ups = new Map<string, UpsPoint[]>();
  for (const s of snapshots) {
    for (const f of s.findings as Finding[]) {
      if (f.data.kind !== 'ups') continue;
      const r = f.data.ups;
      const key = f.subject.kind === 'ups' ? `${f.subject.ups}@${f.subject.site}` : r.ups;
      const list = ups.get(key) ?? [];
      list.push({ at: typeof f.observedAt === 'string' && !Number.isNaN(Date.parse(f.observedAt)) ? f.observedAt : s.at, reading: { ...r, status: Array.isArray(r.status) ? r.status : [] } });
      ups.set(key, list);
    }
  }
  for (const [name, points] of ups) {
    points.sort((a, b) => (a.at < b.at ? -1 : a.at > b.at ? 1 : 0));
    const svgText = upsChart(name, points, o.start, o.end);
    if (svgText) charts.push({ kind: 'ups', svg: svgText });
  }
  return charts;
}
