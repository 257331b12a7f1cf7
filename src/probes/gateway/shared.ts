// One measurement shared by every task of a run that needs it (a key's listing, a seat's /health).
import { withTimeout } from '../edge/timeout.ts';

/** A promise shared by every caller in a run, started on first use, with its own timeout; its work is
 * aborted only when every caller still waiting on it has given up. A caller that gives up gets null. */
export function shared<T>(start: (signal: AbortSignal) => Promise<T>, timeoutMs: number): (signal: AbortSignal) => Promise<T | null> {
  /** `outcome` once the measurement has answered or failed. */
  type Entry = { promise: Promise<T>; ctl: AbortController; waiting: number; outcome?: { value: T } | { error: Error } };
  let current: Entry | null = null;
  return (signal) => {
    if (signal.aborted) return Promise.resolve(null);
    if (!current || (current.ctl.signal.aborted && !current.outcome)) {
      const ctl = new AbortController();
      const { signal: own, clear } = withTimeout(ctl.signal, timeoutMs);
      const entry: Entry = { promise: start(own), ctl, waiting: 0 };
      entry.promise.then(
        (value) => {
          entry.outcome = { value };
          clear();
        },
        (err: unknown) => {
          entry.outcome = { error: asError(err) };
          clear();
        },
      );
      current = entry;
    }
    const mine = current;
    // Already answered (a key's listing, by the time thousands of aliases ask for it): nothing to wait on.
    if (mine.outcome) return 'value' in mine.outcome ? Promise.resolve(mine.outcome.value) : Promise.reject(mine.outcome.error);
    mine.waiting += 1;
    return new Promise<T | null>((resolve, reject) => {
      let done = false;
      const leave = (): boolean => {
        if (done) return false;
        done = true;
        mine.waiting -= 1;
        signal.removeEventListener('abort', onAbort);
        return true;
      };
      const onAbort = (): void => {
        if (!leave()) return;
        if (mine.waiting === 0 && !mine.outcome) mine.ctl.abort();
        resolve(null);
      };
      signal.addEventListener('abort', onAbort, { once: true });
      mine.promise.then(
        (v) => {
          if (leave()) resolve(v);
        },
        (err: unknown) => {
          if (leave()) reject(asError(err));
        },
      );
    });
  };
}

/** A rejection as an Error, whatever was thrown (even a value whose String() throws). */
function asError(err: unknown): Error {
  if (err instanceof Error) return err;
  try {
    return new Error(String(err));
  } catch {
    return new Error('the measurement failed');
  }
}
