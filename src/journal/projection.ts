// An incident as its events say it is: title, site and DRILL from its `incident.opened` event (seq 1),
// who opened it from that event's actor, status and who closed it from its `incident.closed` event.
// The incidents row keeps the same columns (for the id, the Slack thread, and a person reading the
// file with sqlite3), guarded by a trigger; every read shows the chain's values, and what the row
// says otherwise is named field by field, for `verify` and beside the incident.
import type { Actor, Incident } from '../incident/types.ts';
import { checkActor } from './store.ts';

/** An incidents row joined with its opened event (o_*) and its first closed event (c_*), as SQLite gives them. */
export interface IncidentColumns {
  id: number;
  site: unknown;
  title: unknown;
  status: unknown;
  opened_by: unknown;
  opened_at: unknown;
  closed_by: unknown;
  closed_at: unknown;
  drill: unknown;
  slack_channel: unknown;
  slack_thread: unknown;
  o_kind: unknown;
  o_actor: unknown;
  o_at: unknown;
  o_payload: unknown;
  c_seq: unknown;
  c_actor: unknown;
  c_at: unknown;
}

/** One way the row, or the events it is read from, disagree: `seq` is the event it is about. */
export interface RowProblem {
  seq: number;
  text: string;
}

/** The join's columns: the incident, the two events' fields, and one query text for every read. */
export const INCIDENT_SELECT = `SELECT i.*, o.kind AS o_kind, o.actor AS o_actor, o.happened_at AS o_at, o.payload AS o_payload,
    c.seq AS c_seq, c.actor AS c_actor, c.happened_at AS c_at
  FROM incidents i
  LEFT JOIN events o ON o.incident = i.id AND o.seq = 1
  LEFT JOIN events c ON c.id = (SELECT id FROM events WHERE incident = i.id AND kind = 'incident.closed' ORDER BY seq LIMIT 1)`;

/** The incident its events make, and each way its row (or those events) disagree. */
export function projectIncident(r: IncidentColumns): { incident: Incident; problems: RowProblem[] } {
  const problems: RowProblem[] = [];
  const opened = readOpened(r);
  if ('error' in opened) problems.push({ seq: 1, text: opened.error });
  // Unreadable opened event: the row's values stand in, named as unproven by `problems`.
  const o = 'error' in opened ? { site: text(r.site) ?? '?', title: text(r.title) ?? '?', drill: r.drill === 1, actor: actorOf(r.opened_by) ?? { kind: 'system' as const }, at: text(r.opened_at) ?? '?' } : opened;
  const closedAt = r.c_seq === null ? undefined : (text(r.c_at) ?? '?');
  const closedBy = r.c_seq === null ? undefined : actorOf(r.c_actor);
  if (r.c_seq !== null && !closedBy) problems.push({ seq: Number(r.c_seq), text: `event ${String(r.c_seq)} (incident.closed) has an actor that is not one` });

  if (!('error' in opened)) {
    differs(problems, 1, 'title', r.title, o.title, 'incident.opened says');
    differs(problems, 1, 'site', r.site, o.site, 'incident.opened says');
    differs(problems, 1, 'drill', r.drill, o.drill ? 1 : 0, 'incident.opened says');
    differs(problems, 1, 'opened_by', r.opened_by, r.o_actor, 'event 1 was recorded by');
    differs(problems, 1, 'opened_at', r.opened_at, r.o_at, 'event 1 happened at');
  }
  const cseq = r.c_seq === null ? 1 : Number(r.c_seq);
  if (r.c_seq === null) {
    if (r.status !== 'open') problems.push({ seq: cseq, text: `status is ${shown(r.status)} but no incident.closed event was recorded` });
    if (r.closed_by !== null) problems.push({ seq: cseq, text: `closed_by is ${shown(r.closed_by)} but no incident.closed event was recorded` });
    if (r.closed_at !== null) problems.push({ seq: cseq, text: `closed_at is ${shown(r.closed_at)} but no incident.closed event was recorded` });
  } else {
    differs(problems, cseq, 'status', r.status, 'closed', `event ${cseq} (incident.closed) says`);
    differs(problems, cseq, 'closed_by', r.closed_by, r.c_actor, `event ${cseq} was recorded by`);
    differs(problems, cseq, 'closed_at', r.closed_at, r.c_at, `event ${cseq} happened at`);
  }

  const incident: Incident = { id: r.id, site: o.site, title: o.title, status: r.c_seq === null ? 'open' : 'closed', openedBy: o.actor, openedAt: o.at, drill: o.drill };
  if (closedAt !== undefined) {
    incident.closedBy = closedBy ?? { kind: 'system' };
    incident.closedAt = closedAt;
  }
  const channel = text(r.slack_channel);
  const thread = text(r.slack_thread);
  if (channel !== undefined && thread !== undefined) incident.slack = { channel, thread };
  if (problems.length > 0) incident.problems = problems.map((p) => p.text);
  return { incident, problems };
}

function readOpened(r: IncidentColumns): { site: string; title: string; drill: boolean; actor: Actor; at: string } | { error: string } {
  if (r.o_kind === null) return { error: 'event 1 (incident.opened) is missing' };
  if (r.o_kind !== 'incident.opened') return { error: `event 1 is ${shown(r.o_kind)}, not incident.opened` };
  const actor = actorOf(r.o_actor);
  if (!actor) return { error: 'event 1 (incident.opened) has an actor that is not one' };
  const p = json(r.o_payload) as { site?: unknown; title?: unknown; drill?: unknown } | undefined;
  if (!p || typeof p.site !== 'string' || typeof p.title !== 'string' || typeof p.drill !== 'boolean') return { error: 'event 1 (incident.opened) has a payload without its site, title and drill' };
  const at = text(r.o_at);
  if (at === undefined) return { error: 'event 1 (incident.opened) has no time' };
  return { site: p.site, title: p.title, drill: p.drill, actor, at };
}

function differs(out: RowProblem[], seq: number, field: string, row: unknown, chain: unknown, says: string): void {
  if (row !== chain) out.push({ seq, text: `${field} is ${shown(row)} in the row but ${says} ${shown(chain)}` });
}

/** A value from a row, shown safely: JSON-quoted (controls escaped) and cut. */
function shown(v: unknown): string {
  if (typeof v === 'string') return JSON.stringify(v.length > 60 ? `${v.slice(0, 60)}…` : v);
  if (typeof v === 'number' || typeof v === 'bigint') return String(v);
  if (v === null) return 'NULL';
  if (v instanceof Uint8Array) return `a blob of ${v.length} bytes`;
  return typeof v;
}

function text(v: unknown): string | undefined {
  return typeof v === 'string' ? v : undefined;
}

function json(v: unknown): unknown {
  if (typeof v !== 'string') return undefined;
  try {
    const x: unknown = JSON.parse(v);
    return typeof x === 'object' && x !== null && !Array.isArray(x) ? x : undefined;
  } catch {
    return undefined;
  }
}

/** An actor column read back, or undefined when it holds no actor. */
export function actorOf(v: unknown): Actor | undefined {
  const x = json(v);
  if (x === undefined) return undefined;
  try {
    return checkActor(x);
  } catch {
    return undefined;
  }
}
