// What the guardrails read from an incident: the step's action, the probe reports and evidence in
// its journal, and whether a site went dark in a report. Facts only: subjects, statuses, reasons,
// figures and times. Nothing here reads a finding's `detail`, `target` or `measuredBy`.
import type { Evidence, GuardContext, JournalEvent, StepAction, StepInput, StepSpec } from '../incident/types.ts';
import type { Finding, Reason } from '../probes/types.ts';

/** The step fixes its action, or the person enters it: a guardrail applies when either names its own. */
export function acts(step: StepSpec, input: StepInput, action: StepAction): boolean {
  return step.action === action || input.action === action;
}

/** This incident's events only (the journal of another incident never lifts or triggers a rule here). */
export function incidentEvents(ctx: Pick<GuardContext, 'incident' | 'events'>): JournalEvent[] {
  return ctx.events.filter((e) => e.incident === ctx.incident.id);
}

export interface RecordedReport {
  seq: number;
  findings: Finding[];
}

/** Every probe report recorded in the journal, in seq order. The payload holds the report as an object or as its canonical JSON. */
export function reportsIn(events: readonly JournalEvent[]): RecordedReport[] {
  const out: RecordedReport[] = [];
  for (const e of events) {
    if (e.kind !== 'probe.report') continue;
    let report: unknown = e.payload.report;
    if (typeof report === 'string') {
      try {
        report = JSON.parse(report);
      } catch {
        continue; // not a report: verify's to name, not a guardrail's
      }
    }
    const findings = isObject(report) && Array.isArray(report.findings) ? report.findings.filter(isFinding) : [];
    out.push({ seq: e.seq, findings });
  }
  return out;
}

/** Evidence recorded by `step.done` or `evidence` events, of one kind (`power-log`, `env-backup`), in seq order. */
export function evidenceIn(events: readonly JournalEvent[], of: string): { seq: number; evidence: Evidence }[] {
  const out: { seq: number; evidence: Evidence }[] = [];
  for (const e of events) {
    if (e.kind !== 'step.done' && e.kind !== 'evidence') continue;
    const ev = e.payload.evidence;
    if (isObject(ev) && ev.of === of && typeof ev.kind === 'string') out.push({ seq: e.seq, evidence: ev as unknown as Evidence });
  }
  return out;
}

/** Every runbook ever pinned to the incident (a re-pin does not undo what the first pin said of it). */
export function pinnedRunbooks(events: readonly JournalEvent[]): string[] {
  return events.flatMap((e) => (e.kind === 'runbook.pinned' && typeof e.payload.runbook === 'string' ? [e.payload.runbook] : []));
}

/** No answer at all: what a site without power gives. `refused` is an answer (something sent the RST). */
const DARK_REASONS: ReadonlySet<Reason> = new Set(['no_icmp_reply', 'timeout', 'unreachable', 'tcp_failed']);

export function isDarkAddress(f: Finding): boolean {
  return (f.status === 'down' || f.status === 'unknown') && f.reason !== undefined && DARK_REASONS.has(f.reason);
}

export interface SiteLook {
  /** The site's own addresses in the report (BMC, firewall, host; not the control pings of other sites). */
  addresses: Finding[];
  /** At least one address measured, and none answered. */
  dark: boolean;
  /** The BMC(s) were measured in this report, and none answered. */
  bmcDark: boolean;
  /** The latest observedAt among the site's addresses (ms since the epoch); NaN when none. */
  at: number;
}

export function siteIn(findings: readonly Finding[], site: string): SiteLook {
  const addresses = findings.filter((f) => f.subject.kind === 'address' && f.subject.site === site && f.subject.role !== 'control');
  const bmcs = addresses.filter((f) => f.subject.kind === 'address' && f.subject.role === 'bmc');
  return {
    addresses,
    dark: addresses.length > 0 && addresses.every(isDarkAddress),
    bmcDark: bmcs.length > 0 && bmcs.every(isDarkAddress),
    at: latest(addresses),
  };
}

/** The latest observedAt of some findings (ms since the epoch); NaN when none has a readable time. */
export function latest(findings: readonly Finding[]): number {
  let at = Number.NaN;
  for (const f of findings) {
    const t = Date.parse(f.observedAt);
    if (Number.isFinite(t) && !(t <= at)) at = t;
  }
  return at;
}

/** An instant as the journal writes it, to the second: `2026-09-13T07:13:40Z`. */
export function isoSecond(ms: number): string {
  return Number.isFinite(ms) ? new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z') : 'an unreadable time';
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function isFinding(v: unknown): v is Finding {
  return isObject(v) && isObject(v.subject) && typeof v.status === 'string' && typeof v.observedAt === 'string' && isObject(v.data);
}
