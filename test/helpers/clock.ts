// Virtual time for tests: timers fire when the test advances the clock, never on the wall clock,
// so a busy machine cannot make a test late.
import type { SetTimer } from '../../src/probes/runner.ts';

export class FakeTime {
  now = 0;
  private timers: { at: number; seq: number; fn: () => void }[] = [];
  private seq = 0;

  readonly setTimer: SetTimer = (fn, ms) => {
    const t = { at: this.now + ms, seq: this.seq++, fn };
    this.timers.push(t);
    return () => {
      this.timers = this.timers.filter((x) => x !== t);
    };
  };

  /** A promise that resolves after `ms` of virtual time. */
  sleep(ms: number): Promise<void> {
    return new Promise((resolve) => this.setTimer(resolve, ms));
  }

  /** Moves time forward, firing due timers in order and letting promise callbacks run between them. */
  async advance(ms: number): Promise<void> {
    const end = this.now + ms;
    for (;;) {
      await settle();
      const due = this.timers.filter((t) => t.at <= end).sort((a, b) => a.at - b.at || a.seq - b.seq)[0];
      if (!due) break;
      this.timers = this.timers.filter((t) => t !== due);
      this.now = due.at;
      due.fn();
    }
    this.now = end;
    await settle();
  }

  get pending(): number {
    return this.timers.length;
  }
}

/** Lets every queued promise callback run. */
export async function settle(): Promise<void> {
  for (let i = 0; i < 20; i++) await new Promise<void>((r) => setImmediate(r));
}
