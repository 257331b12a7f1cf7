// The readings of the last few minutes, and nothing older: what "the mean of the last 5 minutes
// before the log ends" needs while the end is not yet known. Its size is bounded by the sampling
// rate times the window (30 entries at 10 s), never by the length of the log; past
// MAX_WINDOW_ENTRIES (sampling faster than every 15 ms) the mean is over the newest that many.

export interface WindowMean {
  meanW: number;
  /** How many readings the mean is over. */
  samples: number;
  fromMs: number;
  toMs: number;
}

/** A clock that stands still (every row one timestamp) must not grow the window without end. */
export const MAX_WINDOW_ENTRIES = 20_000;

export class TimeWindow {
  private times: number[] = [];
  private values: number[] = [];
  private head = 0;

  constructor(readonly spanMs: number) {}

  push(ms: number, value: number): void {
    this.times.push(ms);
    this.values.push(value);
    while (this.head < this.times.length && (this.times[this.head]! <= ms - this.spanMs || this.times.length - this.head > MAX_WINDOW_ENTRIES)) this.head++;
    // Drop the evicted front now and then, so the arrays stay as long as the window.
    if (this.head > 1024 && this.head * 2 > this.times.length) {
      this.times = this.times.slice(this.head);
      this.values = this.values.slice(this.head);
      this.head = 0;
    }
  }

  clear(): void {
    this.times = [];
    this.values = [];
    this.head = 0;
  }

  /** The mean of the readings in (endMs − span, endMs]; null when none. */
  meanEndingAt(endMs: number): WindowMean | null {
    let sum = 0;
    let n = 0;
    let fromMs = Infinity;
    let toMs = -Infinity;
    for (let i = this.head; i < this.times.length; i++) {
      const t = this.times[i]!;
      if (t <= endMs - this.spanMs || t > endMs) continue;
      sum += this.values[i]!;
      n++;
      fromMs = Math.min(fromMs, t);
      toMs = Math.max(toMs, t);
    }
    return n === 0 ? null : { meanW: sum / n, samples: n, fromMs, toMs };
  }
}
