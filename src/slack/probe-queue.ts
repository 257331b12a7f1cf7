// How many probes the bot runs at once. Each probe already runs up to `settings.concurrency` tasks
// at once (pings, ssh, HTTP); without a bound, a burst of /seat probe and Probe again would run
// them all together: sockets and child processes without limit, and an event loop too busy to
// ack the next request in Slack's three seconds. Past the bound, probes wait their turn in order.
export const MAX_PROBES_AT_ONCE = 4;

/** Where a probe that has to wait stands when it joins the queue. */
export interface Place {
  /** Probes waiting before this one. */
  ahead: number;
  running: number;
  limit: number;
}

export interface ProbeQueue {
  readonly limit: number;
  /**
   * Runs `job` once fewer than `limit` jobs run, in the order asked. When it has to wait, `waiting`
   * is told its place first. A job that fails frees its slot like one that succeeds.
   */
  run<T>(job: () => Promise<T>, waiting?: (place: Place) => void): Promise<T>;
  /** Running and waiting now (tests, logs). */
  counts(): { running: number; waiting: number };
}

export function probeQueue(limit: number = MAX_PROBES_AT_ONCE): ProbeQueue {
  if (!Number.isInteger(limit) || limit < 1) throw new RangeError(`a probe queue runs at least one probe at once, not ${limit}`);
  let running = 0;
  const turns: (() => void)[] = [];
  // A finished job hands its slot straight to the next in line: no newcomer can slip in between.
  const release = (): void => {
    const next = turns.shift();
    if (next) next();
    else running -= 1;
  };
  return {
    limit,
    async run(job, waiting) {
      if (running >= limit) {
        // Told before it is queued: a `waiting` that throws leaves nothing behind to jam the queue.
        waiting?.({ ahead: turns.length, running, limit });
        await new Promise<void>((resolve) => turns.push(resolve));
      } else {
        running += 1;
      }
      try {
        return await job();
      } finally {
        release();
      }
    },
    counts: () => ({ running, waiting: turns.length }),
  };
}
