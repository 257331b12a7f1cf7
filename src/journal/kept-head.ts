// `seat journal verify --head HEX`: a head someone kept (from a decision's answer, a Slack message,
// a postmortem) checked against the journal as it is now. A chain alone cannot see its newest events
// removed, and a head record can be forged with them; a head kept outside the file cannot.
import type { JournalStore } from './store.ts';

/** Whether the kept head is in the journal, and where: one line for a person. */
export async function checkKeptHead(store: JournalStore, prefix: string, incident: number | undefined, heads: ReadonlyMap<number, string>): Promise<{ ok: boolean; line: string }> {
  const where = incident === undefined ? 'in the journal' : `in incident #${incident}`;
  const found = await store.findHash(prefix, incident);
  const one = found[0];
  if (!one) return { ok: false, line: `the head you kept (${prefix}) is the hash of no event ${where}: the journal was rewritten or its newest events removed after you kept it` };
  if (found.length > 1) return { ok: false, line: `${prefix} starts the hash of ${found.length} events ${where} (${found.map((f) => `#${f.incident} event ${f.seq}`).join(', ')}): give more of its digits` };
  const now = heads.get(one.incident);
  if (now === undefined) return { ok: false, line: `the head you kept is event ${one.seq} of #${one.incident}, but that incident was not verified` };
  if (now.startsWith(prefix)) return { ok: true, line: `the head you kept is #${one.incident}'s head now: event ${one.seq} (${now.slice(0, 12)})` };
  const at = (await store.findHash(now, one.incident))[0]?.seq;
  const after = at === undefined ? 'events were' : `${at - one.seq} event${at - one.seq === 1 ? ' was' : 's were'}`;
  return { ok: true, line: `the head you kept is event ${one.seq} of #${one.incident}, in the chain; ${after} recorded after it (head now ${now.slice(0, 12)}${at === undefined ? '' : ` at event ${at}`})` };
}
