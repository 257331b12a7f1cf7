// no-poll-dark-site before a terminal `seat probe`: the journal's open incidents say which sites were
// found dark, when and by whom. Read only when the journal file exists (a probe never creates one).
// Kept open on request: the probe then asks the other live replicas through it (probe-others.ts).
import { existsSync } from 'node:fs';
import { gateProbe, type ProbeGate } from '../guardrails/dark-site-probe.ts';
import type { Fleet } from '../inventory/fleet.ts';
import { journalPath } from '../journal/location.ts';
import { isPostgresUrl, openJournal } from '../journal/open.ts';
import type { JournalStore } from '../journal/store.ts';

export type TerminalGate = (ProbeGate | { ok: true; skipped: []; unread: string }) & {
  /** The journal, left open when asked for (`keep`): the caller closes it. */
  store?: JournalStore;
  /** Where it is. */
  journal?: string;
};

export async function gateFromJournal(env: NodeJS.ProcessEnv, fleet: Fleet, inventoryPath: string | undefined, site: string, now: () => Date = () => new Date(), o: { keep?: boolean } = {}): Promise<TerminalGate> {
  const where = journalPath(env, fleet.inventory, inventoryPath);
  if (!isPostgresUrl(where.path) && !existsSync(where.path)) return { ok: true, skipped: [] };
  try {
    const store = await openJournal(where.path, { now });
    let kept = false;
    try {
      const gate = await gateProbe(store, fleet, site, now());
      kept = o.keep === true && gate.ok;
      return kept ? { ...gate, store, journal: where.path } : gate;
    } finally {
      if (!kept) await store.close();
    }
  } catch (err) {
    return { ok: true, skipped: [], unread: err instanceof Error ? (err.message.split('\n')[0] ?? '') : String(err) };
  }
}
