// FlashInfer autotuner OOM-fallbacks counted per minute of the log's own clock (seed 000: 56 per
// 3 min at 1,548 MiB free, zero over 6 min after the fix). Memory is one counter per minute seen,
// capped: a year of minutes would still fit, and past the cap only the total grows.
import { minuteAt, minuteIndex } from './prepare.ts';
import type { FlashinferFallbackFields, MinuteCount } from './types.ts';

export const MAX_MINUTES = 20_000;

export class FallbackCounter {
  total = 0;
  private untimed = 0;
  private overflow = 0;
  private readonly minutes = new Map<string, number>();
  firstLine = 0;
  firstText = '';
  firstMinute: string | null = null;
  lastLine = 0;

  add(line: number, text: string, minute: string | null): void {
    this.total++;
    if (this.total === 1) {
      this.firstLine = line;
      this.firstText = text;
      this.firstMinute = minute;
    }
    this.lastLine = line;
    if (minute === null) {
      this.untimed++;
      return;
    }
    const seen = this.minutes.get(minute);
    if (seen !== undefined) this.minutes.set(minute, seen + 1);
    else if (this.minutes.size < MAX_MINUTES) this.minutes.set(minute, 1);
    else this.overflow++;
  }

  fields(): FlashinferFallbackFields {
    const perMinute: MinuteCount[] = [...this.minutes].map(([minute, count]) => ({ minute, count }));
    perMinute.sort((a, b) => (minuteIndex(a.minute) ?? 0) - (minuteIndex(b.minute) ?? 0));
    let worst: MinuteCount | null = null;
    for (const m of perMinute) if (!worst || m.count > worst.count) worst = m;
    const first = perMinute[0];
    const last = perMinute[perMinute.length - 1];
    const timed = this.total - this.untimed;
    const a = first ? minuteIndex(first.minute) : null;
    const b = last ? minuteIndex(last.minute) : null;
    const spanMinutes = a !== null && b !== null ? b - a + 1 : null;
    return {
      total: this.total,
      timed,
      untimed: this.untimed,
      perMinute,
      worstMinute: worst,
      firstMinute: first?.minute ?? null,
      lastMinute: last?.minute ?? null,
      spanMinutes,
      perMinuteAverage: spanMinutes ? Math.round(((timed - this.overflow) / spanMinutes) * 10) / 10 : null,
      lastLine: this.lastLine,
    };
  }
}

/** Every minute from the first to the last, the quiet ones as 0 (for showing a short run). */
export function filledMinutes(perMinute: readonly MinuteCount[], max = 60): MinuteCount[] | null {
  const first = perMinute[0];
  const last = perMinute[perMinute.length - 1];
  if (!first || !last) return [];
  const a = minuteIndex(first.minute);
  const b = minuteIndex(last.minute);
  if (a === null || b === null || b < a || b - a + 1 > max) return null;
  const counts = new Map(perMinute.map((m) => [m.minute, m.count]));
  const out: MinuteCount[] = [];
  for (let i = a; i <= b; i++) {
    const minute = minuteAt(i);
    out.push({ minute, count: counts.get(minute) ?? 0 });
  }
  return out;
}
