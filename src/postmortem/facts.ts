// What the journal knows, read out of an incident's view for the postmortem: its probe reports,
// the phase markers and the times between them, who took part, the evidence and the corrections.
// Pure; payloads are read defensively (a journal written by an older seatbelt still exports).
import type { IncidentView } from '../incident/engine.ts';
import { actorKey, type Actor, type Evidence, type JournalEvent } from '../incident/types.ts';
import type { Finding } from '../probes/types.ts';
import { seconds } from '../render/time.ts';

export interface Snapshot {
  seq: number;
  at: string;
  by: Actor;
  step?: string;
  /** The report's verdict; `unknown` when the payload has none. */
  status: 'ok' | 'degraded' | 'down' | 'unknown';
  headline: string;
  lines: string[];
  runbook: string | null;
  site: string;
  findings: Finding[];
}

export interface Phases {
  impact: { at: string; from: 'report' | 'alert' | 'opened'; seq: number };
  declared: { at: string; seq: number };
  mitigated?: { at: string; seq: number };
  resolved?: { at: string; seq: number };
}

export interface Times {
  detect: number | null;
  mitigate: number | null;
  resolve: number | null;
}

export interface Participant {
  actor: Actor;
  first: string;
  last: string;
  did: Map<string, number>;
}

export interface EvidenceRow {
  seq: number;
  at: string;
  by: Actor;
  step?: string;
  evidence: Evidence;
  /** Finished the step (step.done) or was added to it (evidence). */
  finished: boolean;
}

export interface Facts {
  snapshots: Snapshot[];
  phases: Phases;
  times: Times;
  participants: Participant[];
  evidence: EvidenceRow[];
  /** Corrections by the seq they amend, in the order recorded. */
  corrections: Map<number, JournalEvent[]>;
  bySeq: Map<number, JournalEvent>;
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const str = (v: unknown, or = ''): string => (typeof v === 'string' ? v : or);

function isFinding(v: unknown): v is Finding {
  return isObject(v) && isObject(v.subject) && isObject(v.data) && typeof v.status === 'string' && isObject(v.provenance);
}

export function snapshotOf(e: JournalEvent): Snapshot | null {
  if (e.kind !== 'probe.report') return null;
  let report: unknown = e.payload.report;
  if (typeof report === 'string') {
    try {
      report = JSON.parse(report);
    } catch {
      return null;
    }
  }
  if (!isObject(report)) return null;
  const verdict = isObject(report.verdict) ? report.verdict : {};
  const status = verdict.status === 'ok' || verdict.status === 'degraded' || verdict.status === 'down' ? verdict.status : 'unknown';
  return {
    seq: e.seq,
    at: e.happenedAt,
    by: e.actor,
    ...(e.step ? { step: e.step } : {}),
    status,
    headline: str(verdict.headline),
    lines: Array.isArray(verdict.lines) ? verdict.lines.filter((l): l is string => typeof l === 'string') : [],
    runbook: typeof verdict.runbook === 'string' ? verdict.runbook : null,
    site: str(report.site),
    findings: Array.isArray(report.findings) ? report.findings.filter(isFinding) : [],
  };
}

/** Events by when they happened, ties in the order recorded. */
export function byTime(a: { at: string; seq: number }, b: { at: string; seq: number }): number {
  return a.at < b.at ? -1 : a.at > b.at ? 1 : a.seq - b.seq;
}

export function phasesOf(view: IncidentView, snapshots: Snapshot[]): Phases {
  const opened = view.events.find((e) => e.kind === 'incident.opened');
  const closed = [...view.events].reverse().find((e) => e.kind === 'incident.closed');
  const declared = { at: view.incident.openedAt, seq: opened?.seq ?? 1 };
  const bad = snapshots.find((s) => s.status !== 'ok');
  const fromReport = bad ? { at: bad.at, from: 'report' as const, seq: bad.seq } : undefined;
  // An alert that opened the incident (Alertmanager's startsAt) began the impact when it is earlier.
  const alert = alertStart(view);
  const impact = alert && (!fromReport || Date.parse(alert.at) < Date.parse(fromReport.at)) ? alert : (fromReport ?? { at: declared.at, from: 'opened' as const, seq: declared.seq });
  const ok = snapshots.find((s) => s.status === 'ok' && byTime(s, impact) > 0);
  const resolvedAt = view.incident.closedAt ?? closed?.happenedAt;
  return {
    impact,
    declared,
    ...(ok ? { mitigated: { at: ok.at, seq: ok.seq } } : {}),
    ...(resolvedAt ? { resolved: { at: resolvedAt, seq: closed?.seq ?? view.events.length } } : {}),
  };
}

/** The first firing alert journalled on the incident (a note whose payload carries the alert's facts), by its startsAt. */
function alertStart(view: IncidentView): { at: string; from: 'alert'; seq: number } | undefined {
  for (const e of view.events) {
    const a = e.kind === 'note' ? (e.payload.alert as { status?: unknown; startsAt?: unknown } | undefined) : undefined;
    if (!a || a.status !== 'firing' || typeof a.startsAt !== 'string' || Number.isNaN(Date.parse(a.startsAt))) continue;
    return { at: new Date(Date.parse(a.startsAt)).toISOString(), from: 'alert', seq: e.seq };
  }
  return undefined;
}

export function timesOf(p: Phases): Times {
  return {
    detect: seconds(p.impact.at, p.declared.at),
    mitigate: p.mitigated ? seconds(p.impact.at, p.mitigated.at) : null,
    resolve: p.resolved ? seconds(p.impact.at, p.resolved.at) : null,
  };
}

/** What an event counts as for a person: the words of the participants table. */
const DID: Partial<Record<JournalEvent['kind'], string>> = {
  'incident.opened': 'opened',
  'incident.closed': 'closed',
  'runbook.pinned': 'pinned the runbook',
  'step.done': 'steps done',
  'step.skipped': 'steps skipped',
  'step.blocked': 'refused attempts',
  evidence: 'evidence',
  'override.requested': 'overrides asked',
  'override.approved': 'overrides approved',
  'override.refused': 'overrides refused',
  note: 'notes',
  correction: 'corrections',
};

export function factsOf(view: IncidentView): Facts {
  const snapshots: Snapshot[] = [];
  const people = new Map<string, Participant>();
  const evidence: EvidenceRow[] = [];
  const corrections = new Map<number, JournalEvent[]>();
  const bySeq = new Map<number, JournalEvent>();
  for (const e of view.events) {
    bySeq.set(e.seq, e);
    const snap = snapshotOf(e);
    if (snap) snapshots.push(snap);
    if (e.actor.kind === 'slack' || e.actor.kind === 'local') {
      const key = actorKey(e.actor);
      let p = people.get(key);
      if (!p) people.set(key, (p = { actor: e.actor, first: e.happenedAt, last: e.happenedAt, did: new Map() }));
      if (e.happenedAt < p.first) p.first = e.happenedAt;
      if (e.happenedAt > p.last) p.last = e.happenedAt;
      const did = DID[e.kind];
      if (did) p.did.set(did, (p.did.get(did) ?? 0) + 1);
    }
    if ((e.kind === 'step.done' || e.kind === 'evidence') && isObject(e.payload.evidence) && typeof e.payload.evidence.kind === 'string') {
      evidence.push({ seq: e.seq, at: e.happenedAt, by: e.actor, ...(e.step ? { step: e.step } : {}), evidence: e.payload.evidence as unknown as Evidence, finished: e.kind === 'step.done' });
    }
    if (e.kind === 'correction' && typeof e.amends === 'number') {
      const list = corrections.get(e.amends) ?? [];
      list.push(e);
      corrections.set(e.amends, list);
    }
  }
  snapshots.sort(byTime);
  const phases = phasesOf(view, snapshots);
  return { snapshots, phases, times: timesOf(phases), participants: [...people.values()], evidence, corrections, bySeq };
}
