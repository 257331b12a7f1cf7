// The power log read one line at a time, keeping only running figures per GPU, the sample being
// filled and the last few minutes: constant memory whatever the length of the log. Pure: lines
// in, a summary out; where the lines come from is the caller's business (summarise.ts).
import { clean, cut } from '../probes/edge/text.ts';
import { formatStamp, parseStamp, parseWatts, readHeader, splitFields, type Columns } from './fields.ts';
import { MAX_LINE_CHARS } from './lines.ts';
import type { GpuPower, PowerLogResult, Reading, SkippedLine } from './types.ts';
import { TimeWindow, type WindowMean } from './window.ts';

export const WINDOW_MS = 5 * 60_000;
/** Rows of one sample carry their own timestamps, a few ms apart: this much apart is still one sample. */
export const SAMPLE_SKEW_MS = 1000;
/** Non-blank lines read looking for the header before the input is judged not a power log. */
export const HEADER_WITHIN_LINES = 50;
export const MAX_GPUS = 64;
const EXAMPLES = 3;
const MAX_INTERVAL_BUCKETS = 256;

interface Peak { watts: number; ms: number }

interface GpuState {
  gpu: string;
  index: number | null;
  name: string | null;
  uuid: string | null;
  busId: string | null;
  rows: number;
  readings: number;
  notReported: number;
  sumW: number;
  peak: Peak | null;
  last: Peak | null;
  limitW: number | null;
  window: TimeWindow;
}

interface Sample { startMs: number; watts: Map<string, number | null> }

export const HEADER_HINT = 'nvidia-smi --query-gpu=timestamp,index,power.draw --format=csv -l 10 writes one first line naming the columns';

export class PowerLogReader {
  private lineNo = 0;
  private beforeHeader = 0;
  private columns: Columns | null = null;
  private headerWithoutTimestamp = false;
  private everMapped = false;
  private headers = 0;
  private gaveUp = false;
  private readonly gpus = new Map<string, GpuState>();
  private sample: Sample | null = null;
  private samples = 0;
  private prevStartMs: number | null = null;
  private readonly intervals = new Map<number, number>();
  private longestGap: { ms: number; afterMs: number } | null = null;
  private timeWentBack = 0;
  private lastSample: { ms: number; gpus: number; complete: boolean } | null = null;
  private readonly sum: { samples: number; incomplete: number; totalW: number; peak: Peak | null; last: Peak | null; window: TimeWindow };
  private firstMs: number | null = null;
  private lastMs: number | null = null;
  private rows = 0;
  private skipped = 0;
  private readonly examples: SkippedLine[] = [];
  private partialLast: { text: string; at: string | null } | null = null;

  constructor(private readonly windowMs = WINDOW_MS) {
    this.sum = { samples: 0, incomplete: 0, totalW: 0, peak: null, last: null, window: new TimeWindow(windowMs) };
  }

  /** True once the input is known not to be a power log: stop reading. */
  get done(): boolean {
    return this.gaveUp;
  }

  line(text: string): void {
    this.lineNo++;
    if (this.gaveUp || text.trim() === '') return;
    if (text.length > MAX_LINE_CHARS) return this.skip(text, `longer than ${MAX_LINE_CHARS} characters`);
    if (/power\.draw/i.test(text)) {
      const header = readHeader(text);
      if (header) return this.onHeader(header);
    }
    if (this.columns === null) {
      if (this.headerWithoutTimestamp) return this.skip(text, 'under a header with no timestamp column');
      if (!this.everMapped && ++this.beforeHeader >= HEADER_WITHIN_LINES) this.gaveUp = true;
      return this.skip(text, 'before any header line');
    }
    this.row(text, this.columns);
  }

  /** The unterminated last line: counted and shown, never read for figures (its last field may be cut short). */
  partial(text: string): void {
    this.lineNo++;
    if (this.gaveUp || text.trim() === '') return;
    let at: string | null = null;
    const ts = this.columns?.timestamp;
    if (ts !== null && ts !== undefined) {
      const fields = text.split(',');
      // The timestamp is whole only when a separator followed it.
      if (fields.length > ts + 1) {
        const ms = parseStamp(fields[ts]!.trim());
        if (!Number.isNaN(ms)) at = formatStamp(ms);
      }
    }
    this.partialLast = { text: shown(text), at };
  }

  finish(): PowerLogResult {
    this.closeSample();
    if (!this.everMapped) {
      if (this.headerWithoutTimestamp) {
        return { ok: false, code: 'no_timestamp', message: 'not a power log to read: its header has a power.draw column but no timestamp (log with --query-gpu=timestamp,index,power.draw,power.limit)' };
      }
      return { ok: false, code: 'not_power_log', message: `not a power log: no header line with a power.draw column (${HEADER_HINT})` };
    }
    const stamp = (p: Peak | null): Reading | null => (p ? { watts: p.watts, at: formatStamp(p.ms) } : null);
    const endMs = this.lastMs;
    const windowOf = (w: TimeWindow): ReturnType<typeof showWindow> => (endMs === null ? null : showWindow(w.meanEndingAt(endMs)));
    const gpus: GpuPower[] = [...this.gpus.values()]
      .sort((a, b) => (a.index ?? Infinity) - (b.index ?? Infinity) || a.gpu.localeCompare(b.gpu))
      .map((g) => ({
        gpu: g.gpu,
        index: g.index,
        name: g.name,
        uuid: g.uuid,
        busId: g.busId,
        rows: g.rows,
        readings: g.readings,
        notReported: g.notReported,
        peak: stamp(g.peak),
        meanW: g.readings > 0 ? g.sumW / g.readings : null,
        lastWindow: windowOf(g.window),
        last: stamp(g.last),
        limitW: g.limitW,
      }));
    const limits = gpus.map((g) => g.limitW);
    return {
      ok: true,
      summary: {
        drawColumn: this.columns?.drawName ?? 'power.draw',
        gpus,
        sum: {
          samples: this.sum.samples,
          incomplete: this.sum.incomplete,
          peak: stamp(this.sum.peak),
          meanW: this.sum.samples > 0 ? this.sum.totalW / this.sum.samples : null,
          lastWindow: windowOf(this.sum.window),
          last: stamp(this.sum.last),
          limitsW: limits.length > 0 && limits.every((l) => l !== null) ? limits.reduce<number>((a, l) => a + (l ?? 0), 0) : null,
        },
        samples: this.samples,
        first: this.firstMs === null ? null : formatStamp(this.firstMs),
        last: this.lastMs === null ? null : formatStamp(this.lastMs),
        spanMs: this.firstMs === null || this.lastMs === null ? 0 : this.lastMs - this.firstMs,
        lastSample: this.lastSample && { at: formatStamp(this.lastSample.ms), gpus: this.lastSample.gpus, complete: this.lastSample.complete },
        intervalMs: mostCommon(this.intervals),
        longestGap: this.longestGap && { ms: this.longestGap.ms, after: formatStamp(this.longestGap.afterMs) },
        timeWentBack: this.timeWentBack,
        windowMs: this.windowMs,
        lines: { read: this.lineNo, headers: this.headers, rows: this.rows, skipped: this.skipped },
        skippedExamples: this.examples,
        partialLast: this.partialLast,
      },
    };
  }

  private onHeader(header: Columns): void {
    // nvidia-smi restarted (or logs were joined): the sample being filled ends here.
    this.headers++;
    this.closeSample();
    if (header.timestamp === null) {
      this.columns = null;
      this.headerWithoutTimestamp = true;
      return;
    }
    this.columns = header;
    this.headerWithoutTimestamp = false;
    this.everMapped = true;
  }

  private row(text: string, c: Columns): void {
    const f = splitFields(text);
    if (f.length !== c.count) return this.skip(text, `${f.length} fields where the header has ${c.count}`);
    const ms = parseStamp(f[c.timestamp!]!);
    if (Number.isNaN(ms)) return this.skip(text, 'timestamp not like 2026/09/13 06:56:04.123');
    const watts = parseWatts(f[c.draw]!);
    if (watts === null) return this.skip(text, `${c.drawName} not a number of watts`);
    const id = this.gpuId(f, c, ms);
    if ('why' in id) return this.skip(text, id.why);
    let gpu = this.gpus.get(id.key);
    if (!gpu) {
      if (this.gpus.size >= MAX_GPUS) return this.skip(text, `more than ${MAX_GPUS} GPUs`);
      gpu = { gpu: id.key, index: id.index, name: null, uuid: null, busId: null, rows: 0, readings: 0, notReported: 0, sumW: 0, peak: null, last: null, limitW: null, window: new TimeWindow(this.windowMs) };
      this.gpus.set(id.key, gpu);
    }

    if (!this.sample || this.sample.watts.has(id.key) || Math.abs(ms - this.sample.startMs) > SAMPLE_SKEW_MS) {
      this.closeSample();
      this.sample = { startMs: ms, watts: new Map() };
    }
    this.sample.watts.set(id.key, typeof watts === 'number' ? watts : null);

    this.rows++;
    this.firstMs ??= ms;
    this.lastMs = ms;
    gpu.rows++;
    if (c.name !== null) gpu.name ??= shownOrNull(f[c.name]!, 60);
    if (c.uuid !== null) gpu.uuid ??= shownOrNull(f[c.uuid]!, 80);
    if (c.busId !== null) gpu.busId ??= shownOrNull(f[c.busId]!, 40);
    if (c.limit !== null) {
      const limit = parseWatts(f[c.limit]!);
      if (typeof limit === 'number') gpu.limitW = limit;
    }
    if (watts === 'not_reported') {
      gpu.notReported++;
      return;
    }
    gpu.readings++;
    gpu.sumW += watts;
    if (!gpu.peak || watts > gpu.peak.watts) gpu.peak = { watts, ms };
    if (gpu.last && ms < gpu.last.ms) gpu.window.clear();
    gpu.last = { watts, ms };
    gpu.window.push(ms, watts);
  }

  private gpuId(f: string[], c: Columns, ms: number): { key: string; index: number | null } | { why: string } {
    if (c.index !== null) {
      const v = f[c.index]!;
      return /^\d{1,4}$/.test(v) ? { key: String(Number(v)), index: Number(v) } : { why: 'index not a number' };
    }
    const named = c.uuid ?? c.busId;
    if (named !== null) {
      const v = shown(f[named]!, 80);
      return v === '' ? { why: 'no GPU uuid or bus id' } : { key: v, index: null };
    }
    // No column names the GPU: its place within the sample does.
    const s = this.sample;
    const place = s && Math.abs(ms - s.startMs) <= SAMPLE_SKEW_MS ? s.watts.size : 0;
    return { key: `#${place}`, index: null };
  }

  private closeSample(): void {
    const s = this.sample;
    if (!s) return;
    this.sample = null;
    this.samples++;
    if (this.prevStartMs !== null) {
      const d = s.startMs - this.prevStartMs;
      if (d < 0) {
        this.timeWentBack++;
        this.sum.window.clear();
      } else if (d > 0) {
        const bucket = Math.round(d / 100) * 100;
        if (this.intervals.has(bucket) || this.intervals.size < MAX_INTERVAL_BUCKETS) this.intervals.set(bucket, (this.intervals.get(bucket) ?? 0) + 1);
        if (!this.longestGap || d > this.longestGap.ms) this.longestGap = { ms: d, afterMs: this.prevStartMs };
      }
    }
    this.prevStartMs = s.startMs;
    // Every GPU that has ever given a number must give one here, or the sum would be short.
    let total = 0;
    let complete = true;
    for (const g of this.gpus.values()) {
      if (g.readings === 0) continue;
      const w = s.watts.get(g.gpu);
      if (w === undefined || w === null) complete = false;
      else total += w;
    }
    this.lastSample = { ms: s.startMs, gpus: s.watts.size, complete };
    if (!complete || [...s.watts.values()].every((w) => w === null)) {
      this.sum.incomplete++;
      return;
    }
    this.sum.samples++;
    this.sum.totalW += total;
    if (!this.sum.peak || total > this.sum.peak.watts) this.sum.peak = { watts: total, ms: s.startMs };
    this.sum.last = { watts: total, ms: s.startMs };
    this.sum.window.push(s.startMs, total);
  }

  private skip(text: string, why: string): void {
    this.skipped++;
    if (this.examples.length < EXAMPLES) this.examples.push({ line: this.lineNo, why, text: shown(text) });
  }
}

/** Text from the file made safe to show, and copied: a slice would keep its whole read chunk alive. */
function shown(text: string, max = 120): string {
  return Buffer.from(cut(clean(text), max)).toString();
}

function shownOrNull(text: string, max: number): string | null {
  const s = shown(text, max);
  return s === '' || /^\[.*\]$/.test(s) ? null : s;
}

function showWindow(w: WindowMean | null): { meanW: number; samples: number; from: string; to: string } | null {
  return w && { meanW: w.meanW, samples: w.samples, from: formatStamp(w.fromMs), to: formatStamp(w.toMs) };
}

function mostCommon(counts: Map<number, number>): number | null {
  let best: number | null = null;
  let bestCount = 0;
  for (const [k, n] of counts) {
    if (n > bestCount || (n === bestCount && best !== null && k < best)) {
      best = k;
      bestCount = n;
    }
  }
  return best;
}
