// The journal's hash chain: each event is hashed over its canonical serialisation, which holds the
// previous event's hash in the same incident, so an edit anywhere shows at that event or the next.
// Every store (SQLite now, PostgreSQL later) must give the same bytes: the definition is
// hashEvent(); hashStored() is the same bytes built from columns that already hold canonical JSON,
// so verifying never parses a payload (a probe report can be megabytes).
import crypto from 'node:crypto';
import type { JournalEvent } from '../incident/types.ts';
import { canonicalJson } from '../probes/canonical.ts';

/** The prevHash of an incident's first event. */
export const GENESIS = '0'.repeat(64);

/** sha256 (hex) over canonicalJson of every field but `hash`; absent optional fields are left out. */
export function hashEvent(e: Omit<JournalEvent, 'hash'>): string {
  // Named one by one, so a stray property (a `hash` passed along, a caller's extra) never counts.
  const fields: Omit<JournalEvent, 'hash'> = {
    incident: e.incident,
    seq: e.seq,
    kind: e.kind,
    actor: e.actor,
    happenedAt: e.happenedAt,
    recordedAt: e.recordedAt,
    step: e.step,
    payload: e.payload,
    amends: e.amends,
    dedupe: e.dedupe,
    prevHash: e.prevHash,
  };
  return sha256(canonicalJson(fields));
}

/** An event as stored: `actor` and `payload` are their canonicalJson text; null means absent. */
export interface StoredEvent {
  incident: unknown;
  seq: unknown;
  kind: unknown;
  actor: unknown;
  happenedAt: unknown;
  recordedAt: unknown;
  step: unknown;
  payload: unknown;
  amends: unknown;
  dedupe: unknown;
  prevHash: unknown;
}

/**
 * hashEvent()'s bytes from stored columns, or null when a column holds what no event can (a
 * string where a number goes, no payload): that row was not written by a store. The keys are
 * written in canonicalJson's order (UTF-16 code units) by hand: this runs once per event written
 * and verified, and a test holds it to hashEvent().
 */
export function hashStored(r: StoredEvent): string | null {
  if (typeof r.actor !== 'string' || typeof r.payload !== 'string') return null;
  if (!isNum(r.incident) || !isNum(r.seq) || !(r.amends === null || isNum(r.amends))) return null;
  if (typeof r.kind !== 'string' || typeof r.happenedAt !== 'string' || typeof r.recordedAt !== 'string' || typeof r.prevHash !== 'string') return null;
  if (!(r.step === null || typeof r.step === 'string') || !(r.dedupe === null || typeof r.dedupe === 'string')) return null;
  const text =
    `{"actor":${r.actor}` +
    (r.amends === null ? '' : `,"amends":${String(r.amends)}`) +
    (r.dedupe === null ? '' : `,"dedupe":${JSON.stringify(r.dedupe)}`) +
    `,"happenedAt":${JSON.stringify(r.happenedAt)},"incident":${String(r.incident)},"kind":${JSON.stringify(r.kind)},"payload":${r.payload}` +
    `,"prevHash":${JSON.stringify(r.prevHash)},"recordedAt":${JSON.stringify(r.recordedAt)},"seq":${String(r.seq)}` +
    (r.step === null ? '' : `,"step":${JSON.stringify(r.step)}`) +
    '}';
  return sha256(text);
}

function isNum(v: unknown): v is number | bigint {
  return typeof v === 'number' || typeof v === 'bigint';
}

// The one-shot crypto.hash (Node 20.12+) is twice as fast as createHash for an event's few hundred bytes.
const sha256: (text: string) => string =
  typeof crypto.hash === 'function' ? (text) => crypto.hash('sha256', text, 'hex') : (text) => crypto.createHash('sha256').update(text, 'utf8').digest('hex');
