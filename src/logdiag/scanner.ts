// The recogniser over a stream of lines: push one line at a time, get back what it completed. It
// holds one pending wrapped message, the last minute logged, and the fallback counter: memory does
// not grow with the log. A line's `\r` segments (progress bars redrawn in place) are read apart.
import { cut } from '../probes/edge/text.ts';
import { FallbackCounter } from './fallbacks.ts';
import { MAX_JOINED_CHARS, MAX_JOINED_LINES, opens, type JoinSpec } from './joins.ts';
import { adviceFor } from './lessons.ts';
import { prepare } from './prepare.ts';
import { flashinferFallback, recognise } from './recognisers/index.ts';
import type { LogFinding, Reading } from './types.ts';

/** How much of a line is shown. */
export const SHOWN_CHARS = 200;

interface Pending {
  spec: JoinSpec;
  line: number;
  minute: string | null;
  shown: string;
  body: string;
  lines: number;
}

export class LogScanner {
  private lineNo = 0;
  private lastMinute: string | null = null;
  private pending: Pending | null = null;
  private readonly fallbacks = new FallbackCounter();

  get lines(): number {
    return this.lineNo;
  }

  /** One line of the log, without its `\n`. */
  push(line: string): LogFinding[] {
    this.lineNo++;
    const out: LogFinding[] = [];
    if (line.trim() === '') {
      this.flush(out);
      return out;
    }
    for (const segment of line.split('\r')) this.segment(segment, out);
    return out;
  }

  /** The end of the log: a held message is read as far as it got, the fallbacks are summed. */
  end(): LogFinding[] {
    const out: LogFinding[] = [];
    this.flush(out);
    if (this.fallbacks.total > 0) {
      const fields = this.fallbacks.fields();
      const advice = adviceFor('flashinfer_oom_fallback', fields);
      out.push({ kind: 'flashinfer_oom_fallback', fields, line: this.fallbacks.firstLine, text: this.fallbacks.firstText, minute: this.fallbacks.firstMinute, partial: false, ...advice });
    }
    return out;
  }

  private segment(raw: string, out: LogFinding[]): void {
    const p = prepare(raw);
    if (p.shown === '') return;
    if (p.minute !== null) this.lastMinute = p.minute;
    const minute = p.minute ?? this.lastMinute;
    const held = this.pending;
    if (held) {
      if (held.spec.more.test(p.body)) {
        held.shown = `${held.shown} ${p.body}`.slice(0, MAX_JOINED_CHARS);
        held.body = `${held.body} ${p.body}`.slice(0, MAX_JOINED_CHARS);
        held.lines++;
        if (held.spec.done.test(held.body) || held.lines >= MAX_JOINED_LINES) this.flush(out);
        return;
      }
      this.flush(out);
    }
    if (flashinferFallback(p.body)) {
      this.fallbacks.add(this.lineNo, cut(p.shown, SHOWN_CHARS), minute);
      return;
    }
    const spec = opens(p.body);
    if (spec) {
      this.pending = { spec, line: this.lineNo, minute, shown: p.shown, body: p.body, lines: 1 };
      return;
    }
    this.read(p.body, p.shown, this.lineNo, minute, out);
  }

  private flush(out: LogFinding[]): void {
    const held = this.pending;
    if (!held) return;
    this.pending = null;
    this.read(held.body, held.shown, held.line, held.minute, out);
  }

  private read(body: string, shown: string, line: number, minute: string | null, out: LogFinding[]): void {
    const readings = recognise(body);
    if (readings.length === 0) return;
    const text = cut(shown, SHOWN_CHARS);
    for (const r of readings) out.push(findingOf(r, line, text, minute));
  }
}

function findingOf(r: Reading, line: number, text: string, minute: string | null): LogFinding {
  const advice = adviceFor(r.kind, r.fields as never);
  return { ...r, line, text, minute, ...advice } as LogFinding;
}
