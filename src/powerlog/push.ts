// The reader fed chunk by chunk, for bytes that something else is already streaming (a Slack file
// being downloaded and hashed): no second read, no buffering of the whole file.
import { PowerLogReader, WINDOW_MS } from './reader.ts';
import type { PowerLogResult, PowerLogSummary } from './types.ts';

const MAX_LINE = 4096;

export class PowerLogPush {
  private readonly reader = new PowerLogReader(WINDOW_MS);
  private readonly decoder = new TextDecoder();
  private tail = '';

  push(chunk: Uint8Array): void {
    if (this.reader.done) return;
    const text = this.tail + this.decoder.decode(chunk, { stream: true });
    const lines = text.split('\n');
    this.tail = (lines.pop() ?? '').slice(0, MAX_LINE);
    for (const l of lines) {
      this.reader.line(l.replace(/\r$/, '').slice(0, MAX_LINE));
      if (this.reader.done) return;
    }
  }

  end(): PowerLogResult {
    const rest = this.tail + this.decoder.decode();
    if (!this.reader.done && rest !== '') this.reader.partial(rest);
    return this.reader.finish();
  }
}

/** The figures an incident keeps of a power log given as evidence. */
export function powerLogFactsOf(s: PowerLogSummary): { gpus: number; samples: number; peakW: number | null; peakAt: string | null; lastWindowMeanW: number | null; last: string | null; intervalMs: number | null } {
  return { gpus: s.gpus.length, samples: s.samples, peakW: s.sum.peak?.watts ?? null, peakAt: s.sum.peak?.at ?? null, lastWindowMeanW: s.sum.lastWindow?.meanW ?? null, last: s.last, intervalMs: s.intervalMs };
}
