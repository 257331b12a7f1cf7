// Where this process measures from: its vantage point. SEAT_VANTAGE, else the inventory's `vantage:`,
// else the host name. Every finding a run makes carries it in its provenance (runner.ts stamps it), so
// reports from several vantages can be merged and a verdict rest on more than one of them.
import { hostname as osHostname } from 'node:os';
import type { Finding } from './types.ts';

/** What a vantage may be called: a name of the inventory's kind, a little wider (a host name's capitals). */
export const VANTAGE_RULE = 'letters, digits, ".", "_" or "-", starting with a letter or digit, at most 63 characters';
const VANTAGE = /^[A-Za-z0-9][A-Za-z0-9._-]{0,62}$/;

export function isVantageName(v: string): boolean {
  return VANTAGE.test(v);
}

export type VantageResult = { ok: true; vantage: string; from: 'SEAT_VANTAGE' | 'inventory' | 'hostname' } | { ok: false; error: string };

/** The vantage as a person set it (SEAT_VANTAGE, checked: a bad one is told, never guessed at), else
 * the inventory's, else this machine's host name made into one. */
export function resolveVantage(env: NodeJS.ProcessEnv, inventoryVantage: string | undefined, hostname: () => string = osHostname): VantageResult {
  const set = env.SEAT_VANTAGE;
  if (set !== undefined && set !== '') {
    if (!VANTAGE.test(set)) return { ok: false, error: `SEAT_VANTAGE ${JSON.stringify(set.replace(/\p{Cc}/gu, '').slice(0, 80))} is not a vantage name: expected ${VANTAGE_RULE}` };
    return { ok: true, vantage: set, from: 'SEAT_VANTAGE' };
  }
  if (inventoryVantage !== undefined) return { ok: true, vantage: inventoryVantage, from: 'inventory' };
  return { ok: true, vantage: hostVantage(hostname()), from: 'hostname' };
}

/** A host name as a vantage: its first label, characters outside the rule dropped; `unknown` when none is left. */
export function hostVantage(name: string): string {
  const first = (name.split('.')[0] ?? '').replace(/[^A-Za-z0-9._-]/g, '').replace(/^[._-]+/, '').slice(0, 63);
  return first === '' ? 'unknown' : first;
}

/** The vantage a run's findings are stamped with, never failing: a bad SEAT_VANTAGE the front end did
 * not refuse first falls back to the inventory's or the host name (the front ends tell it: vantageError). */
export function vantageFor(env: NodeJS.ProcessEnv, inventoryVantage: string | undefined, hostname: () => string = osHostname): string {
  const r = resolveVantage(env, inventoryVantage, hostname);
  return r.ok ? r.vantage : (inventoryVantage ?? hostVantage(hostname()));
}

/** The finding measured from `vantage`: the same finding when it already says so (frozen, as makeFinding's are). */
export function stampVantage(f: Finding, vantage: string): Finding {
  if (f.provenance.vantage === vantage) return f;
  return Object.freeze({ ...f, provenance: { ...f.provenance, vantage } });
}

/** The vantage a finding was measured from, or null (a report made before schemaVersion 3). */
export function vantageOf(f: Pick<Finding, 'provenance'>): string | null {
  return f.provenance.vantage ?? null;
}
