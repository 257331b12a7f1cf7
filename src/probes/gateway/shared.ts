// One measurement shared by every task of a run that needs it (a key's listing, a seat's /health).
import { withTimeout } from '../edge/timeout.ts';

/** A promise shared by every caller in a run, started on first use, with its own timeout; its work is
 * aborted only when every caller still waiting on it has given up. A caller that gives up gets null. */
export function shared<T>(start: (signal: AbortSignal) => Promise<T>, timeoutMs: number): (signal: AbortSignal) => Promise<T | null> {
  let current: { promise: Promise<T>; ctl: AbortController; waiting: number; settled: boolean } | null = null;
  return (signal) => {
    if (signal.aborted) return Promise.resolve(null);
    if (!current || (current.ctl.signal.aborted && !current.settled)) {
      const ctl = new AbortController();
      const { signal: own, clear } = withTimeout(ctl.signal, timeoutMs);
      const entry = { promise: start(own), ctl, waiting: 0, settled: false };
      const settle = (): void => {
        entry.settled = true;
        clear();
      };
      entry.promise.then(settle, settle);
      current = entry;
    }
    const mine = current;
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
        if (mine.waiting === 0 && !mine.settled) mine.ctl.abort();
        resolve(null);
      };
      signal.addEventListener('abort', onAbort, { once: true });
      mine.promise.then(
        (v) => {
          if (leave()) resolve(v);
        },
        (err: unknown) => {
          if (leave()) reject(err instanceof Error ? err : new Error(String(err)));
        },
      );
    });
  };
}
