// What the guardrails read from an incident: the step's action, the probe reports and evidence in
// its journal, and whether a site went dark in a report. Facts only: subjects, statuses, reasons,
// figures and times. Nothing here reads a finding's `detail`, `target` or `measuredBy`.
import type { Evidence, GuardContext, GuardVerdict, JournalEvent, StepAction, StepInput, StepSpec } from '../incident/types.ts';
import { fmtInt } from '../probes/edge/text.ts';
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
  const addresses = findings.filter((f) => f.subject.kind === 'address' && f.subject.site === site && f.subject.role !== 'control' && f.subject.role !== 'oob-path');
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

export { isoSecond } from '../render/time.ts';

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function isFinding(v: unknown): v is Finding {
  return isObject(v) && isObject(v.subject) && typeof v.status === 'string' && typeof v.observedAt === 'string' && isObject(v.data);
}

export interface LoggedPeak {
  /** The summed GPU peak of the latest power log that counts and was read (GPUs only: the chassis draws more). */
  peakW: number;
  /** As the log wrote it (the host's wall clock), when it did. */
  peakAt: string | null;
  seq: number;
}

/** The measured peak of the latest power log recorded with its figures (a typed hash has none); null when none was read. */
export function loggedPeak(events: readonly JournalEvent[]): LoggedPeak | null {
  let out: LoggedPeak | null = null;
  for (const { seq, evidence: e } of evidenceIn(events, 'power-log')) {
    if (e.kind !== 'file' || !isObject(e.powerlog)) continue;
    const peak = e.powerlog.peakW;
    if (typeof peak !== 'number' || !Number.isFinite(peak) || peak <= 0) continue;
    out = { peakW: peak, peakAt: typeof e.powerlog.peakAt === 'string' ? e.powerlog.peakAt : null, seq };
  }
  return out;
}

/** A typed load (W): a finite number ≥ 0, else undefined. */
export function typedLoad(v: unknown): number | undefined {
  return typeof v === 'number' && Number.isFinite(v) && v >= 0 ? v : undefined;
}

/** The refusal of a typed load below the log's measured peak (as shown, to the watt); null when there is none. */
export function belowLoggedPeak(ctx: Pick<GuardContext, 'input' | 'step'>, peak: LoggedPeak | null): (GuardVerdict & { ok: false }) | null {
  const typed = typedLoad(ctx.input.loadW);
  if (peak === null || typed === undefined) return null;
  const floor = Math.round(peak.peakW);
  if (typed >= floor) return null;
  return {
    ok: false,
    refused: `step ${ctx.step.id} with ${fmtInt(typed)} W typed: below the ${fmtInt(floor)} W the power log measured (its GPUs alone${peak.peakAt ? `, at ${peak.peakAt}` : ''}; recorded at #${peak.seq})`,
    why: "the power log holds the only load figures and measured the GPUs alone (the chassis draws more): a load below its peak undersizes the UPS that tripped",
    instead: `enter at least ${fmtInt(floor)} W, or leave the load empty to take the power log's peak`,
    waitsFor: `a load of at least ${fmtInt(floor)} W`,
  };
}
