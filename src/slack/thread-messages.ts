// Which Slack message shows which part of an incident (its checklist, each step, each override
// request, the closing line), and what each shows now: one message per step for the life of the
// incident, updated in place only when what it shows changes. Kept in memory; after a restart a
// click on an old message names it again (adopt), and a step with no known message gets a new one.
import type { Actor } from '../incident/types.ts';

export interface Shown {
  channel: string;
  ts: string;
  /** What was last sent to it (text and blocks), so an unchanged redraw costs no call. */
  last: string;
}

export class ThreadMessages {
  private readonly shown = new Map<string, Shown>();
  private readonly chains = new Map<number, Promise<unknown>>();
  /** Probe steps running now (`incident:step`), and who pressed Done. */
  readonly running = new Map<string, { by: Actor; at: string }>();

  get(incident: number, key: string): Shown | undefined {
    return this.shown.get(`${incident}|${key}`);
  }

  set(incident: number, key: string, v: Shown): void {
    this.shown.set(`${incident}|${key}`, v);
  }

  /** A message a person clicked on, for a part with no known message (the app restarted). */
  adopt(incident: number, key: string, channel: string, ts: string): void {
    if (!this.get(incident, key)) this.set(incident, key, { channel, ts, last: '' });
  }

  /** The parts of an incident that have a message, by key. */
  keys(incident: number): string[] {
    const p = `${incident}|`;
    return [...this.shown.keys()].filter((k) => k.startsWith(p)).map((k) => k.slice(p.length));
  }

  /** Runs work for one incident after the work before it: two decisions never both post the next step. */
  serial<T>(incident: number, work: () => Promise<T>): Promise<T> {
    const before = this.chains.get(incident) ?? Promise.resolve();
    const run = before.then(work, work);
    const tail = run.then(
      () => undefined,
      () => undefined,
    );
    this.chains.set(incident, tail);
    void tail.then(() => {
      if (this.chains.get(incident) === tail) this.chains.delete(incident);
    });
    return run;
  }
}
