// Latest-wins throttle for chat.update: at most one call per interval, the newest state always
// delivered, and `flush` waits for the last call so the final report never races a progress update.
export interface Throttled<T> {
  push(value: T): void;
  /** The message was just written another way (it opened): the next send waits a whole interval. */
  sent(): void;
  flush(): Promise<void>;
}

export function throttle<T>(send: (value: T) => Promise<void>, intervalMs: number, now: () => number = Date.now): Throttled<T> {
  let pending: { value: T } | null = null;
  let lastSent = -Infinity;
  let timer: NodeJS.Timeout | null = null;
  let inFlight: Promise<void> = Promise.resolve();

  const fire = (): void => {
    timer = null;
    if (!pending) return;
    const { value } = pending;
    pending = null;
    lastSent = now();
    inFlight = inFlight.then(() => send(value)).catch(() => {});
  };

  return {
    push(value) {
      pending = { value };
      if (timer) return;
      const wait = Math.max(0, lastSent + intervalMs - now());
      timer = setTimeout(fire, wait);
    },
    sent() {
      lastSent = now();
    },
    async flush() {
      if (timer) clearTimeout(timer);
      timer = null;
      pending = null; // the caller sends the final state itself
      await inFlight;
    },
  };
}
