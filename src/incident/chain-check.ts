// Before a decision is recorded on an incident, its chain is recomputed: a decision appended to a
// chain that does not hold would read as if everything before it held too. A row that differs from
// its events refuses nothing (every read takes the events' values; `verify` names the row), and a
// note is still taken: it is how someone says what they found.
import type { JournalStore } from '../journal/store.ts';

/** Why no decision may be recorded on the incident now, or null when its chain holds. */
export async function brokenChain(store: JournalStore, id: number): Promise<string | null> {
  if (!(await store.incident(id))) return null; // the caller says "no incident"
  const r = await store.verify(id);
  if (r.ok || r.part === 'row') return null;
  return `the journal of incident #${id} does not hold (event ${r.seq}: ${r.why}): no decision is recorded on it until that is looked into; a note still is (seat journal verify ${id})`;
}
