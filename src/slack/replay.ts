// One Slack request runs once. Bolt accepts a signed request for five minutes, so the same body
// sent again (a replay, or a redelivery) would run the probe again: each trigger_id is let through
// once, remembered for ten minutes, at most a few thousand at a time.
export interface ReplayGuard {
  /** True the first time `id` is seen within the window; an empty id cannot be checked and passes. */
  first(id: string | undefined): boolean;
  readonly size: number;
}

export interface ReplayOptions {
  ttlMs?: number;
  max?: number;
  now?: () => number;
}

export function replayGuard({ ttlMs = 10 * 60_000, max = 5000, now = Date.now }: ReplayOptions = {}): ReplayGuard {
  // Insertion order is arrival order: the oldest entries are always first.
  const seen = new Map<string, number>();
  const expire = (t: number): void => {
    for (const [id, at] of seen) {
      if (t - at < ttlMs) break;
      seen.delete(id);
    }
  };
  return {
    first(id) {
      if (!id) return true;
      const t = now();
      expire(t);
      if (seen.has(id)) return false;
      if (seen.size >= max) {
        const oldest = seen.keys().next();
        if (!oldest.done) seen.delete(oldest.value);
      }
      seen.set(id, t);
      return true;
    },
    get size() {
      return seen.size;
    },
  };
}
