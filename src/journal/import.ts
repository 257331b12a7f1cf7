// `seat journal import FILE`: an incident worked in a local SQLite journal while the shared one
// was out of reach is appended to the shared journal as a marked segment — a note that says what
// was imported, by whom, from where — followed by its events with their own actors and times. A
// step decided on both sides is named, never silently picked: the shared decision stands and the
// local one is kept as a note beside it. Every imported event carries the local event's hash as
// its dedupe key, so importing the same file twice records it once.
import type { Actor, EventInput, JournalEvent } from '../incident/types.ts';
import { STEP_DECISIONS, type JournalStore } from './store.ts';

export interface ImportOptions {
  /** The file imported, as the person named it (shown in the segment's note). */
  file: string;
  /** Who runs the import, from which machine, when. */
  actor: Actor;
  host: string;
  at: string;
  /** A shared incident to append the local one to (it was opened there before the outage). */
  into?: number;
  /** Only this local incident (default: every one). */
  incident?: number;
}

export interface ImportedIncident {
  local: number;
  shared: number;
  opened: boolean;
  /** Events appended (the marking note included), and those already imported before. */
  appended: number;
  already: number;
  /** Steps decided on both sides: the shared decision stands, the local one is a note. */
  bothSides: { step: string; shared: { seq: number; kind: string; by: Actor }; local: { seq: number; kind: string; by: Actor } }[];
}

export type ImportResult = { ok: true; incidents: ImportedIncident[] } | { ok: false; error: string };

const SEQ_FIELDS = ['report', 'request', 'override'] as const;

export async function importJournal(from: JournalStore, to: JournalStore, o: ImportOptions): Promise<ImportResult> {
  const all = await from.incidents();
  const picked = o.incident === undefined ? all : all.filter((i) => i.id === o.incident);
  if (picked.length === 0) return { ok: false, error: o.incident === undefined ? `${o.file} holds no incident` : `${o.file} has no incident #${o.incident}` };
  if (o.into !== undefined && picked.length > 1) return { ok: false, error: `${o.file} holds ${picked.length} incidents: name the one to append to #${o.into} with --incident` };
  const out: ImportedIncident[] = [];
  for (const local of picked.sort((a, b) => a.id - b.id)) {
    const v = await from.verify(local.id);
    if (!v.ok) return { ok: false, error: `${o.file}: incident #${local.id} does not hold (event ${v.seq}: ${v.why}); nothing of it was imported` };
    const events = await from.events(local.id);
    const opened = events[0];
    if (!opened || opened.kind !== 'incident.opened') return { ok: false, error: `${o.file}: incident #${local.id} does not start with its opening` };
    let shared: number;
    let isNew = false;
    if (o.into !== undefined) {
      const target = await to.incident(o.into);
      if (!target) return { ok: false, error: `no incident #${o.into} in the shared journal` };
      if (target.site !== local.site) return { ok: false, error: `incident #${o.into} is at ${target.site}; the local incident #${local.id} is at ${local.site}` };
      shared = o.into;
    } else {
      const r = await to.openIncident({ site: local.site, title: local.title, actor: opened.actor, at: opened.happenedAt, drill: local.drill, dedupe: `import:${opened.hash}` });
      shared = r.incident.id;
      isNew = !r.duplicate;
    }
    const result: ImportedIncident = { local: local.id, shared, opened: isNew, appended: 0, already: 0, bothSides: [] };
    const mark = await to.append({
      incident: shared,
      kind: 'note',
      actor: o.actor,
      happenedAt: o.at,
      payload: {
        text: `imported from ${o.file} on ${o.host}: local incident #${local.id}, events 1 to ${events.length} (${opened.happenedAt} to ${events.at(-1)!.happenedAt}), worked while the shared journal was out of reach`,
        import: { file: o.file, host: o.host, incident: local.id, events: events.length, head: events.at(-1)!.hash },
      },
      dedupe: `import:${events.at(-1)!.hash}:segment`,
    });
    if (mark.ok && !mark.duplicate) result.appended++;
    else result.already++;
    const seqs = new Map<number, number>([[1, 1]]);
    const before = await to.events(shared);
    for (const e of events.slice(1)) {
      const mapped = remap(e, seqs);
      const input: EventInput = { incident: shared, kind: e.kind, actor: e.actor, happenedAt: e.happenedAt, payload: { ...mapped.payload, imported: { file: o.file, incident: local.id, seq: e.seq } }, dedupe: `import:${e.hash}`, ...(e.step ? { step: e.step } : {}), ...(mapped.amends !== undefined ? { amends: mapped.amends } : {}) };
      if (e.kind === 'runbook.pinned') {
        const pin = [...before].reverse().find((x) => x.kind === 'runbook.pinned');
        if (pin && pin.payload.sha256 === e.payload.sha256) {
          seqs.set(e.seq, pin.seq);
          continue;
        }
      }
      if (e.kind === 'incident.closed' && (await to.incident(shared))?.status === 'closed') continue;
      if (e.step && STEP_DECISIONS.includes(e.kind)) {
        const theirs = before.filter((x) => x.step === e.step && STEP_DECISIONS.includes(x.kind) && !isImported(x)).at(-1);
        if (theirs && theirs.kind !== 'step.blocked' && e.kind !== 'step.blocked') {
          result.bothSides.push({ step: e.step, shared: { seq: theirs.seq, kind: theirs.kind, by: theirs.actor }, local: { seq: e.seq, kind: e.kind, by: e.actor } });
          const n = await to.append({ incident: shared, kind: 'note', actor: o.actor, happenedAt: o.at, step: e.step, payload: { text: `step ${e.step} was decided on both sides: here event ${theirs.seq} (${theirs.kind}), in ${o.file} event ${e.seq} (${e.kind}, ${e.happenedAt}); the shared decision stands, the local one is kept in this note`, local: { ...e.payload }, imported: { file: o.file, incident: local.id, seq: e.seq } }, dedupe: `import:${e.hash}` });
          if (n.ok && !n.duplicate) result.appended++;
          else result.already++;
          continue;
        }
      }
      const r = await to.append(input);
      if (!r.ok) continue; // a compare-and-set was not asked for: append answers ok
      seqs.set(e.seq, r.event.seq);
      if (r.duplicate) result.already++;
      else result.appended++;
    }
    out.push(result);
  }
  return { ok: true, incidents: out };
}

function isImported(e: JournalEvent): boolean {
  return typeof e.payload.imported === 'object' && e.payload.imported !== null;
}

/** A local event's references to other local events (a report, a request, an override, a correction's target) in shared seqs. */
function remap(e: JournalEvent, seqs: ReadonlyMap<number, number>): { payload: Record<string, unknown>; amends?: number } {
  const payload: Record<string, unknown> = { ...e.payload };
  for (const k of SEQ_FIELDS) {
    const v = payload[k];
    if (typeof v === 'number' && seqs.has(v)) payload[k] = seqs.get(v)!;
  }
  return { payload, ...(e.amends !== undefined ? { amends: seqs.get(e.amends) ?? e.amends } : {}) };
}
