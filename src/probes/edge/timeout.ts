// The one timeout and abort helper for every probe: a task's own timeout, the runner's stop, and how
// far apart the two are. Time comes through `setTimer`, so tests drive it instead of sleeping.

/** Schedules `fn` after `ms`; returns a cancel. Same shape as the runner's `SetTimer`. */
export type SetTimer = (fn: () => void, ms: number) => () => void;

export const realTimer: SetTimer = (fn, ms) => {
  const t = setTimeout(fn, ms);
  return () => clearTimeout(t);
};

/** The reason a signal from `withTimeout` carries when its own timer fired. */
export function timeoutError(ms: number): DOMException {
  return new DOMException(`no answer within ${ms} ms`, 'TimeoutError');
}

/**
 * `outer`, or a TimeoutError after `ms`, whichever comes first; the signal's `reason` says which.
 * `clear()` when the work is done: it cancels the timer and stops following `outer` (a run-long
 * signal must not collect one listener per request).
 *
 * A plain timer and our own listener, not AbortSignal.timeout() inside AbortSignal.any(): there the
 * timeout signal is held only weakly and can be collected before it fires (seen under load on Node 20).
 */
export function withTimeout(outer: AbortSignal | undefined, ms: number, setTimer: SetTimer = realTimer): { signal: AbortSignal; clear(): void } {
  const ctl = new AbortController();
  if (outer?.aborted) {
    ctl.abort(outer.reason);
    return { signal: ctl.signal, clear: () => {} };
  }
  const onOuter = (): void => {
    cancel();
    ctl.abort(outer?.reason);
  };
  const cancel = setTimer(() => {
    outer?.removeEventListener('abort', onOuter);
    ctl.abort(timeoutError(ms));
  }, ms);
  outer?.addEventListener('abort', onOuter, { once: true });
  return {
    signal: ctl.signal,
    clear: () => {
      cancel();
      outer?.removeEventListener('abort', onOuter);
    },
  };
}

/** The reason is our own timer's (or any TimeoutError), as opposed to a stop from outside. */
export function isTimeoutReason(reason: unknown): boolean {
  return (reason instanceof DOMException || reason instanceof Error) && reason.name === 'TimeoutError';
}

/** The signal aborted because time ran out. Aborted for any other reason is 'stopped'. */
export function isTimeout(signal: AbortSignal): boolean {
  return signal.aborted && isTimeoutReason(signal.reason);
}

/** SIGTERM, then SIGKILL this long after for a child that ignores it. Kept well under GRACE_MS. */
export const KILL_AFTER_MS = 100;

/** The least time between a task's own timeout and the runner's hard stop. */
export const GRACE_MS = 250;

/**
 * How much later than a task's own timeout the runner's hard stop for it comes (task.timeoutMs =
 * timeoutMs + graceFor(timeoutMs)). The task's own timeout fires first and it still has time to kill
 * its child (SIGTERM, SIGKILL after KILL_AFTER_MS) and word its own finding ("no answer within 3000
 * ms (killed)", with a backend attribution) — that finding wins over the runner's bare one. Long
 * timeouts get a proportionally longer breath, capped so a hung task costs at most a second more.
 */
export function graceFor(timeoutMs: number): number {
  if (!Number.isFinite(timeoutMs) || timeoutMs <= 0) return GRACE_MS;
  return Math.min(1000, Math.max(GRACE_MS, Math.round(timeoutMs / 20)));
}

/** The budget a probe gives its own I/O inside a task's timeout: a little under it, so the probe reports
 * what it saw (a refused connect, a silent upsd) before the runner gives up on the task. */
export function innerBudget(timeoutMs: number): number {
  return Math.max(1, timeoutMs - Math.min(100, Math.floor(timeoutMs / 10)));
}
