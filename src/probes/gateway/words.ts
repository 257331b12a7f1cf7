// Wording for gateway findings. Display only: nothing decides on these strings.
import type { AliasRef, SeatRef } from '../../inventory/fleet.ts';
import type { HttpOutcome, Reason } from '../types.ts';

export function seatName(s: SeatRef): string {
  return `${s.name}@${s.host.name}`;
}

export function routedTo(a: AliasRef): string[] {
  if (a.seats.length > 0) return a.seats.map(seatName);
  return a.alias.backend ? [`${a.paid ? 'paid' : 'backend'}:${a.alias.backend.name}`] : [];
}

/** The reason code for a request that did not succeed. */
export function transportReason(o: HttpOutcome): Reason {
  switch (o.code) {
    case 'timeout':
    case 'refused':
    case 'reset':
    case 'unreachable':
    case 'dns':
    case 'redirect':
    case 'too_large':
    case 'bad_answer':
    case 'stopped':
      return o.code;
    case 'http_status':
      return 'http_status';
    default:
      return o.httpStatus !== null ? 'http_status' : 'unreachable';
  }
}

/** "HTTP 500: …", "no answer within 3000 ms", "redirected to …: not followed", "connection refused". */
export function outcomeText(o: HttpOutcome, timeoutMs: number): string {
  if (o.code === 'redirect') return `redirected (HTTP ${o.httpStatus ?? '3xx'}) to ${o.location ?? 'nowhere named'}: not followed`;
  if (o.code === 'too_large') return o.error ?? 'answer over the size cap, cut';
  if (o.code === 'bad_answer') return `HTTP ${o.httpStatus ?? '?'} but ${o.error ?? 'not the expected answer'}`;
  if (o.httpStatus !== null) return `HTTP ${o.httpStatus}${o.error ? `: ${o.error}` : ''}`;
  if (o.code === 'timeout') return `no answer within ${timeoutMs} ms`;
  if (o.code === 'stopped') return 'stopped before an answer';
  return o.error ?? o.code;
}

export function withKeys(why: string, keys: string[], total: number): string {
  return keys.length === total && total > 1 ? why : `${why} for ${keys.join(', ')}`;
}

export function groupBy<T>(items: T[], by: (t: T) => string): Map<string, T[]> {
  const out = new Map<string, T[]>();
  for (const i of items) {
    const k = by(i);
    const list = out.get(k);
    if (list) list.push(i);
    else out.set(k, [i]);
  }
  return out;
}
