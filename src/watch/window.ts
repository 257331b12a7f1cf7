// Samples over a window: one at its start and one at the end of each interval, on a schedule from the
// start (a slow sample does not push the rest later), until the window is over or the caller stops
// it. Time comes only through `now` and `setTimer`, so a test runs six minutes in no time.
import type { SetTimer } from '../probes/edge/timeout.ts';
import type { Sample, Sampler } from './sample.ts';

export interface WindowOptions {
  sample: Sampler;
  forMs: number;
  everyMs: number;
  /** Monotonic milliseconds. */
  now: () => number;
  setTimer: SetTimer;
  /** Ctrl-C: stop waiting, stop the sample in flight, and return what was measured. */
  signal?: AbortSignal;
  onSample?: (s: Sample, n: number, planned: number) => void;
}

export interface WindowRun {
  samples: Sample[];
  /** How many samples the whole window holds: 6m every 10s is 37, both ends included. */
  planned: number;
  /** Stopped before every planned sample was taken. */
  stopped: boolean;
  /** From the first sample to the last. */
  coveredMs: number;
  forMs: number;
  everyMs: number;
}

export function plannedSamples(forMs: number, everyMs: number): number {
  return Math.floor(forMs / everyMs) + 1;
}

export async function watchWindow(o: WindowOptions): Promise<WindowRun> {
  const planned = plannedSamples(o.forMs, o.everyMs);
  const samples: Sample[] = [];
  const t0 = o.now();
  const stopped = (): boolean => o.signal?.aborted === true;
  for (let i = 0; i < planned && !stopped(); i++) {
    await waitUntil(t0 + i * o.everyMs, o);
    if (stopped()) break;
    const atMs = Math.max(0, Math.round(o.now() - t0));
    const gpus = await o.sample(o.signal ?? new AbortController().signal);
    // A sample cut short by the stop measured nothing: it is not one of the window's.
    if (stopped()) break;
    const s: Sample = { atMs, gpus };
    samples.push(s);
    o.onSample?.(s, samples.length, planned);
  }
  const coveredMs = samples.length > 0 ? samples[samples.length - 1]!.atMs - samples[0]!.atMs : 0;
  return { samples, planned, stopped: samples.length < planned, coveredMs, forMs: o.forMs, everyMs: o.everyMs };
}

/** Resolves at `at` (by `now`), or at once when the signal aborts. */
function waitUntil(at: number, o: WindowOptions): Promise<void> {
  const ms = at - o.now();
  if (ms <= 0 || o.signal?.aborted) return Promise.resolve();
  return new Promise((resolve) => {
    let cancel = (): void => {};
    const done = (): void => {
      cancel();
      o.signal?.removeEventListener('abort', done);
      resolve();
    };
    cancel = o.setTimer(done, ms);
    o.signal?.addEventListener('abort', done, { once: true });
  });
}
