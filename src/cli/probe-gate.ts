// no-poll-dark-site before a terminal `seat probe`: the journal's open incidents say which sites were
// found dark, when and by whom. Read only when the journal file exists (a probe never creates one).
import { existsSync } from 'node:fs';
import { gateProbe, type ProbeGate } from '../guardrails/dark-site-probe.ts';
import type { Fleet } from '../inventory/fleet.ts';
import { journalPath } from '../journal/location.ts';
import { isPostgresUrl, openJournal } from '../journal/open.ts';

export type TerminalGate = ProbeGate | { ok: true; skipped: []; unread: string };

export async function gateFromJournal(env: NodeJS.ProcessEnv, fleet: Fleet, inventoryPath: string | undefined, site: string, now: () => Date = () => new Date()): Promise<TerminalGate> {
  const where = journalPath(env, fleet.inventory, inventoryPath);
  if (!isPostgresUrl(where.path) && !existsSync(where.path)) return { ok: true, skipped: [] };
  try {
    const store = await openJournal(where.path, { now });
    try {
      return await gateProbe(store, fleet, site, now());
    } finally {
      await store.close();
    }
  } catch (err) {
    return { ok: true, skipped: [], unread: err instanceof Error ? (err.message.split('\n')[0] ?? '') : String(err) };
  }
}
