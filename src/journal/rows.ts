// An event as both stores keep it: a row whose actor and payload are the canonical JSON that was
// hashed, read back into a JournalEvent, and the next row of a chain built from a checked event.
import type { Actor, JournalEvent } from '../incident/types.ts';
import { hashStored } from './chain.ts';
import { JournalError, type CheckedEvent } from './store.ts';

/** Columns named as JournalEvent's fields, so hashStored() reads a row as it is. */
export interface EventRow {
  incident: number;
  seq: number;
  kind: JournalEvent['kind'];
  actor: string;
  happenedAt: string;
  recordedAt: string;
  step: string | null;
  payload: string;
  amends: number | null;
  dedupe: string | null;
  prevHash: string;
  hash: string;
}

/** A row's JSON column read back; a row changed outside seatbelt is told as such, never a SyntaxError. */
export function column(r: EventRow, what: 'actor' | 'payload'): Record<string, unknown> {
  let v: unknown;
  try {
    v = JSON.parse(r[what]);
  } catch {
    v = undefined;
  }
  if (typeof v === 'object' && v !== null && !Array.isArray(v)) return v as Record<string, unknown>;
  throw new JournalError('journal_damaged', `incident #${String(r.incident)}, event ${String(r.seq)}: its ${what} is not JSON data: the row was changed outside seatbelt (seat journal verify ${String(r.incident)} names it)`);
}

/** The event a row holds; `actor` and `payload` where the caller already has them as they read back. */
export function toEvent(r: EventRow, actor: Actor = column(r, 'actor') as unknown as Actor, payload: Record<string, unknown> = column(r, 'payload')): JournalEvent {
  const e: JournalEvent = {
    incident: r.incident,
    seq: r.seq,
    kind: r.kind,
    actor,
    happenedAt: r.happenedAt,
    recordedAt: r.recordedAt,
    payload,
    prevHash: r.prevHash,
    hash: r.hash,
  };
  if (r.step !== null) e.step = r.step;
  if (r.amends !== null) e.amends = r.amends;
  if (r.dedupe !== null) e.dedupe = r.dedupe;
  return e;
}

/** The row after `head` in its incident's chain, hashed; what the journal must check about it the caller has checked. */
export function chainRow(c: CheckedEvent, head: { seq: number; hash: string }, recordedAt: string): EventRow {
  const e = c.input;
  const row: EventRow = {
    incident: e.incident,
    seq: head.seq + 1,
    kind: e.kind,
    actor: c.actorJson,
    happenedAt: e.happenedAt,
    recordedAt,
    step: e.step ?? null,
    payload: c.payloadJson,
    amends: e.amends ?? null,
    dedupe: e.dedupe ?? null,
    prevHash: head.hash,
    hash: '',
  };
  row.hash = hashStored(row) as string;
  return row;
}
