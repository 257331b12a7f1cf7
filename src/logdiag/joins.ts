// Messages that arrive wrapped over several lines: pasted from a terminal or an issue (seed 004's
// KV-cache error is three lines), or printed with a hard wrap. A line that starts one of these and
// lacks its end is held, and the next lines are joined to it while they read as its continuation
// (a piece of that very message, not any line): noise between two messages is never glued on.
export interface JoinSpec {
  start: RegExp;
  /** The message is whole: stop joining. */
  done: RegExp;
  /** A following line (its prefixes peeled) that continues this message. */
  more: RegExp;
}

export const JOINS: readonly JoinSpec[] = [
  {
    start: /To serve at least one request with the models?'?s max seq len/i,
    done: /Try increasing|estimated maximum model length is \d+\s*\.|for more details/i,
    more: /^(?:\(?\s*\d+(?:\.\d+)?\s*GiB|\(?\d+\)|KV cache|cache is needed|is needed|which is larger|larger than|than the available|the available|available KV|memory\s*\(|\(\s*\d|Based on|the estimated|estimated max|Try increasing|`|when initializing|or decreasing|See https)/i,
  },
  {
    start: /Free memory on device\b/i,
    done: /utilization(?: is)?\s*\(\s*\d*\.?\d+\s*,\s*\d+(?:\.\d+)?\s*GiB\)/i,
    more: /^(?:\(?\s*\d+(?:\.\d+)?\s*\/|on startup|is less than|less than desired|desired GPU|GPU memory|memory utilization|utilization\s*\(|\(\s*\d)/i,
  },
  {
    start: /OOM on device \d+ while\b/i,
    done: /\(free:\s*\d+\)/i,
    more: /^(?:trying|to allocate|allocate|\d+ bytes|bytes|\(free)/i,
  },
  {
    start: /Replace gpu_memory_utilization config with/i,
    done: /to fully utilize gpu memory/i,
    more: /^(?:`?--kv-cache-memory|\(\s*\d|to fit|to fully|or `|or --|utilize gpu memory)/i,
  },
];

/** Lines joined to one message at most; a message longer than this is read as far as it got. */
export const MAX_JOINED_LINES = 6;
export const MAX_JOINED_CHARS = 4096;

/** The spec a line opens and does not close, or null. */
export function opens(body: string): JoinSpec | null {
  for (const spec of JOINS) {
    const at = body.search(spec.start);
    if (at >= 0 && !spec.done.test(body.slice(at))) return spec;
  }
  return null;
}
