// Sends to one channel, one at a time and in order: a step's message is updated before the next
// step is posted, whatever Slack's rate limit does. A 429 is waited out (Slack's Retry-After,
// capped as web-client.ts caps it, through the injected sleep) and the call tried again; any other
// failure goes back to the caller. Channels do not wait for each other.
import type { Logger } from '@slack/bolt';
import { slackErrorCode } from './errors.ts';
import { retryAfterMs } from './web-client.ts';

/** Tries of one call that Slack keeps rate-limiting, the first included. */
const MAX_TRIES = 3;

export interface SendQueue {
  /** Runs `call` after every call queued before it for `channel` has settled. */
  run<T>(channel: string, what: string, call: () => Promise<T>): Promise<T>;
}

export function sendQueue(deps: { sleep: (ms: number) => Promise<void>; log: Logger }): SendQueue {
  const tails = new Map<string, Promise<unknown>>();
  const attempt = async <T>(what: string, call: () => Promise<T>): Promise<T> => {
    for (let tries = 1; ; tries++) {
      try {
        return await call();
      } catch (err) {
        const wait = retryAfterMs(err);
        if (wait === null || tries >= MAX_TRIES) throw err;
        deps.log.warn(`${what}: ${slackErrorCode(err)}; waiting ${wait} ms`);
        await deps.sleep(wait);
      }
    }
  };
  return {
    run(channel, what, call) {
      const before = tails.get(channel) ?? Promise.resolve();
      const mine = before.catch(() => undefined).then(() => attempt(what, call));
      const tail = mine.catch(() => undefined);
      tails.set(channel, tail);
      void tail.then(() => {
        if (tails.get(channel) === tail) tails.delete(channel);
      });
      return mine;
    },
  };
}
