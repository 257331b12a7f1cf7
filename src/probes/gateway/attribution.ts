// Whose fault a failure through the gateway is, judged from the backend seats' own answers and the
// gateway's error. The first seed blamed a gateway restart for a backend OOM; the second learned that
// a healthy container is not a serving one. So: a seat's /health failing is the backend down; a
// gateway error that names the backend while its /health passes is a backend failing requests.
import type { Attribution, HttpOutcome, Reason } from '../types.ts';
import { namesBackend } from './backend-named.ts';
import type { SeatCheck } from './checks.ts';
import { seatName } from './words.ts';

/** A failure on the gateway's path to a backend (5xx, refused, reset, timeout); a 4xx is the gateway's own configuration. */
export function pathFailed(o: HttpOutcome): boolean {
  return o.httpStatus === null ? o.code !== 'redirect' && o.code !== 'too_large' : o.httpStatus >= 500;
}

export interface Attributed {
  attribution: Attribution | null;
  /** The reason for the alias, when the attribution decides it. */
  reason: Reason | null;
  /** Appended to the alias's detail. */
  words: string;
}

export function attribute(args: {
  requestFailures: HttpOutcome[];
  listingUnreachable: boolean;
  seats: SeatCheck[];
  timeoutMs: number;
  gatewayAnswered: boolean;
}): Attributed {
  const { requestFailures, listingUnreachable, seats, timeoutMs } = args;
  const bad = seats.filter((s) => !s.health.ok);
  const good = seats.filter((s) => s.health.ok);
  const badText = bad.map((s) => seatState(s, timeoutMs)).join(', ');
  const goodText = good.map((s) => seatName(s.seat)).join(', ');
  const none: Attributed = { attribution: null, reason: null, words: '' };

  if (requestFailures.length > 0 && seats.length > 0) {
    if (good.length === 0) return { attribution: 'backend', reason: 'backend_down', words: `; gateway OK, backend ${badText} → the backend is down, not the gateway` };
    if (bad.length > 0) return { attribution: 'mixed', reason: 'backend_down', words: `; backend ${badText}, but ${goodText} answers /health 200` };
    const named = requestFailures.find((o) => o.backendSaid === true || namesBackend(o.error));
    if (named) {
      return {
        attribution: 'backend-failing',
        reason: 'backend_failing',
        words: `; backend ${goodText} answers /health 200 but fails requests: healthy is not serving`,
      };
    }
    return { attribution: 'gateway', reason: 'gateway_fault', words: `; backend ${goodText} answers /health 200 → gateway-side fault` };
  }
  if (requestFailures.length > 0) return none;
  if (listingUnreachable) {
    if (seats.length === 0) return { attribution: 'gateway-unreachable', reason: 'gateway_unreachable', words: '' };
    if (bad.length === 0) {
      return { attribution: 'gateway-unreachable', reason: 'gateway_unreachable', words: ` — the backend${good.length === 1 ? '' : 's'} answer${good.length === 1 ? 's' : ''} directly (${goodText} /health 200)` };
    }
    return { attribution: 'gateway-unreachable', reason: 'gateway_unreachable', words: `; backend ${badText} too` };
  }
  // Nothing failed through the gateway: a seat that fails its own /health is still worth a word.
  if (bad.length > 0) {
    return { attribution: null, reason: null, words: `; backend ${badText} (${args.gatewayAnswered ? 'the gateway still answers' : 'the gateway was not measured'})` };
  }
  return none;
}

function seatState(s: SeatCheck, timeoutMs: number): string {
  const h = s.health;
  if (h.httpStatus !== null) return `${seatName(s.seat)} /health ${h.httpStatus}`;
  return `${seatName(s.seat)} ${h.code === 'timeout' ? `gave no /health answer within ${timeoutMs} ms` : `unreachable (${h.error ?? h.code})`}`;
}
