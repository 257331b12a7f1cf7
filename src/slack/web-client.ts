// Slack's Web API client as every sender holds it, and the one wait a rate-limited call asks for.
// Its own file: the context, the deliveries and the send queue all read it, and none reads another for it.
import type { webApi } from '@slack/bolt';

export type WebClient = webApi.WebClient;

/** The longest Retry-After waited on: past it, a report goes privately. */
const MAX_WAIT_S = 30;

/** Slack's Retry-After of a rate-limited call, capped, in milliseconds; null for any other failure. */
export function retryAfterMs(err: unknown): number | null {
  const wait = (err as { retryAfter?: unknown } | undefined)?.retryAfter;
  return typeof wait === 'number' ? Math.min(Math.max(wait, 0), MAX_WAIT_S) * 1000 : null;
}
