// What both front ends do to an incident: open and close it, pin a runbook, decide a step, take a
// note, ask for and give an override. Every decision re-reads the journal and re-runs the step's
// guardrails at the moment it is made (never trusting what a button showed a minute ago), then
// records through the store's compare-and-set, so of two people clicking one step one wins.
import { readFile } from 'node:fs/promises';
import { hostname } from 'node:os';
import { resolve } from 'node:path';
import { checkStep, GUARDRAILS } from '../guardrails/index.ts';
import type { Fleet } from '../inventory/fleet.ts';
import type { JournalStore } from '../journal/store.ts';
import type { ProbeReport } from '../commands/probe.ts';
import { canonicalJson } from '../probes/canonical.ts';
import { parseRunbook } from '../runbooks/load.ts';
import { brokenChain } from './chain-check.ts';
import { project, isOpenStep, type IncidentView, type StepView } from './engine.ts';
import { packageRoot } from './library.ts';
import { overrideState, standingApproval, type OverrideState } from './overrides.ts';
import type { Lease } from '../journal/store.ts';
import { actorKey, type Actor, type EventKind, type Evidence, type Incident, type JournalEvent, type Runbook, type StepInput } from './types.ts';

export const OVERRIDE_TTL_MS = 15 * 60 * 1000;
export const MAX_TEXT = 2000;
export const MAX_TITLE = 200;

export interface ServiceDeps {
  store: JournalStore;
  fleet: Fleet;
  /** The runbooks of today, by id (a pinned incident keeps its own copy). */
  runbooks: ReadonlyMap<string, Runbook>;
  /** Where runbook files live: Runbook.file is relative to it. */
  root?: string;
  now: () => Date;
  /** Runs a probe step's probe on a site; the report is stored as evidence. */
  probe?: (site: string, only: Runbook['steps'][number]['probe']) => Promise<ProbeReport>;
  /** This process among the bot's replicas (host:pid by default): who holds a probe step's lease. */
  replica?: string;
  /** How long a probe step's lease holds before another replica may run the step again. */
  leaseMs?: number;
}

export type Refusal = { guardrail: string; override: boolean; refused: string; why: string; instead: string; waitsFor?: string };

export type DecideResult =
  | { ok: true; event: JournalEvent; duplicate: boolean; view: IncidentView; retook?: Lease }
  /** The step's probe is running now, on this replica or another: who pressed Done, where, until when. */
  | { ok: false; kind: 'running'; lease: Lease }
  | { ok: false; kind: 'conflict'; by: Actor; at: string; what: string }
  | { ok: false; kind: 'refused'; refusals: Refusal[]; event: JournalEvent; view: IncidentView }
  | { ok: false; kind: 'invalid'; message: string }
  /** A probe step's question answered "no" (nobody has reset the UPS yet): the answer is recorded, the step stays open. */
  | { ok: false; kind: 'answered-no'; event: JournalEvent; duplicate: boolean; question: string; view: IncidentView };

export interface Decision {
  incident: number;
  step: string;
  decision: 'done' | 'skip';
  actor: Actor;
  /** The step version the person saw (a button's); absent from the terminal, which reads it fresh. */
  version?: number;
  reason?: string;
  evidence?: Evidence;
  input?: StepInput;
  dedupe?: string;
}

export class IncidentService {
  constructor(readonly deps: ServiceDeps) {}

  /** This process's name among the replicas: the holder named on a probe step's lease. */
  replica(): string {
    return this.deps.replica ?? defaultReplica();
  }

  /** How long a probe step's lease holds: after that, another replica may run the step again. */
  leaseMs(): number {
    return this.deps.leaseMs ?? Math.max(60_000, 2 * this.deps.fleet.inventory.settings.deadlineMs);
  }

  private iso(): string {
    return this.deps.now().toISOString();
  }

  async open(o: { site: string; title: string; actor: Actor; drill?: boolean; slack?: { channel: string; thread: string }; dedupe?: string }): Promise<{ incident: Incident; duplicate: boolean } | { error: string }> {
    if (!this.deps.fleet.sites.has(o.site)) return { error: `no site "${o.site}" in the inventory (sites: ${this.deps.fleet.siteNames.join(', ')})` };
    const title = checkText(o.title, 'a title', MAX_TITLE);
    if (typeof title !== 'string') return title;
    const r = await this.deps.store.openIncident({
      site: o.site,
      title,
      actor: o.actor,
      at: this.iso(),
      drill: o.drill ?? this.deps.fleet.inventory.drill,
      ...(o.slack ? { slack: o.slack } : {}),
      ...(o.dedupe ? { dedupe: o.dedupe } : {}),
    });
    return { incident: r.incident, duplicate: r.duplicate };
  }

  async close(id: number, actor: Actor, reason?: string, dedupe?: string): Promise<{ incident: Incident } | { error: string }> {
    const incident = await this.deps.store.incident(id);
    if (!incident) return { error: `no incident #${id}` };
    if (incident.status === 'closed') return { error: `incident #${id} is already closed` };
    const broken = await brokenChain(this.deps.store, id);
    if (broken) return { error: broken };
    const r = await this.deps.store.closeIncident(id, actor, this.iso(), reason, dedupe);
    if (!r.ok) return { error: `incident #${id} changed meanwhile: try again` };
    return { incident: (await this.deps.store.incident(id))! };
  }

  /** The incident a command means: the one named, else the thread's, else the newest open one. */
  async resolve(id: number | undefined, thread?: { channel: string; thread: string }): Promise<Incident | { error: string }> {
    if (id !== undefined) return await this.deps.store.incident(id) ?? { error: `no incident #${id}` };
    if (thread) {
      const t = await this.deps.store.incidentByThread(thread.channel, thread.thread);
      if (t) return t;
    }
    return await this.deps.store.newestOpen() ?? { error: 'no open incident: open one with `incident open <site> <title>` or `runbook start <runbook>`' };
  }

  async view(id: number): Promise<IncidentView | undefined> {
    const incident = await this.deps.store.incident(id);
    return incident ? project(incident, await this.deps.store.events(id)) : undefined;
  }

  /** Pins the runbook's text as it is now to the incident (sha256 in the journal). A second pin is a re-pin. */
  async pin(id: number, runbookId: string, actor: Actor, dedupe?: string): Promise<{ view: IncidentView; repinned: boolean } | { error: string }> {
    const known = this.deps.runbooks.get(runbookId);
    if (!known) return { error: `no runbook "${runbookId}" (runbooks: ${[...this.deps.runbooks.keys()].join(', ')})` };
    const incident = await this.deps.store.incident(id);
    if (!incident) return { error: `no incident #${id}` };
    if (incident.status === 'closed') return { error: `incident #${id} is closed` };
    const broken = await brokenChain(this.deps.store, id);
    if (broken) return { error: broken };
    let text: string;
    try {
      text = await readFile(resolve(this.deps.root ?? packageRoot(), known.file), 'utf8');
    } catch {
      return { error: `cannot read ${known.file}` };
    }
    const parsed = parseRunbook(text, known.file);
    if (!parsed.ok) return { error: `${known.file} no longer loads: ${parsed.errors[0] ?? ''}` };
    const before = await this.view(id);
    if (before?.pin && before.pin.runbook !== runbookId) return { error: `incident #${id} follows runbook ${before.pin.runbook}; open another incident for ${runbookId}` };
    if (before?.pin && before.pin.sha256 === parsed.runbook.sha256) return { view: before, repinned: false };
    const r = await this.deps.store.append({
      incident: id,
      kind: 'runbook.pinned',
      actor,
      happenedAt: this.iso(),
      payload: { runbook: runbookId, sha256: parsed.runbook.sha256, file: known.file, text, steps: parsed.runbook.steps.map((s) => s.id) },
      ...(dedupe ? { dedupe } : {}),
    });
    if (!r.ok) return { error: 'the journal refused the pin' };
    return { view: (await this.view(id))!, repinned: before?.pin !== undefined };
  }

  /** The file of today differs from the pinned copy: say so, and the re-pin command. */
  pinDrift(view: IncidentView): string | null {
    if (!view.pin) return null;
    const now = this.deps.runbooks.get(view.pin.runbook);
    return now && now.sha256 !== view.pin.sha256 ? now.sha256 : null;
  }

  async note(id: number, text: string, actor: Actor, dedupe?: string): Promise<{ event: JournalEvent } | { error: string }> {
    const t = checkText(text, 'a note', MAX_TEXT);
    if (typeof t !== 'string') return t;
    const r = await this.deps.store.append({ incident: id, kind: 'note', actor, happenedAt: this.iso(), payload: { text: t }, ...(dedupe ? { dedupe } : {}) });
    return r.ok ? { event: r.event } : { error: 'the journal refused the note' };
  }

  async decide(d: Decision): Promise<DecideResult> {
    const view = await this.view(d.incident);
    if (!view) return { ok: false, kind: 'invalid', message: `no incident #${d.incident}` };
    if (d.dedupe) {
      const prior = view.events.find((e) => e.dedupe === d.dedupe);
      if (prior) return { ok: true, event: prior, duplicate: true, view };
    }
    if (view.incident.status === 'closed') return { ok: false, kind: 'invalid', message: `incident #${d.incident} is closed` };
    const broken = await brokenChain(this.deps.store, d.incident);
    if (broken) return { ok: false, kind: 'invalid', message: broken };
    if (!view.pin) return { ok: false, kind: 'invalid', message: `incident #${d.incident} has no runbook yet: start one with \`runbook start <runbook>\`` };
    const step = view.steps.find((s) => s.spec.id === d.step);
    if (!step) return { ok: false, kind: 'invalid', message: `runbook ${view.pin.runbook} has no step "${d.step}" (steps: ${view.steps.map((s) => s.spec.id).join(', ')})` };
    const version = d.version ?? step.version;
    if (!isOpenStep(step) || version !== step.version) return conflictOf(step);
    const base = { incident: d.incident, actor: d.actor, happenedAt: this.iso(), step: d.step, ...(d.dedupe ? { dedupe: d.dedupe } : {}) };
    const expect = { step: d.step, version };

    if (d.decision === 'skip') {
      const reason = checkText(d.reason ?? '', 'a reason to skip (it becomes an action item)', MAX_TEXT);
      if (typeof reason !== 'string') return { ok: false, kind: 'invalid', message: reason.error };
      return this.record({ ...base, kind: 'step.skipped', payload: { reason } }, expect);
    }

    const spec = step.spec;
    const evidence = d.evidence ?? lastEvidence(step);
    if (spec.evidence) {
      const problem = evidenceProblem(spec.evidence, evidence);
      if (problem) return { ok: false, kind: 'invalid', message: problem };
    }
    const input: StepInput = { ...(spec.action ? { action: spec.action } : {}), ...(d.input ?? {}) };
    if (input.action === 'probe' && input.site === undefined) input.site = view.incident.site;

    // An honest "no" to a probe step's question is recorded as that answer; the step waits for a yes.
    if (spec.kind === 'probe' && spec.evidence?.kind === 'yesno' && d.evidence?.kind === 'yesno' && !d.evidence.answer) {
      const r = await this.deps.store.append({ ...base, kind: 'evidence', payload: { evidence: d.evidence } });
      if (!r.ok) return { ok: false, kind: 'invalid', message: 'the journal refused the answer' };
      return { ok: false, kind: 'answered-no', event: r.event, duplicate: r.duplicate, question: spec.evidence.question, view: (await this.view(d.incident))! };
    }
    const now = this.deps.now();
    // The probe that detected the incident measured this site moments ago: the first probe step takes
    // it as its report rather than polling the site again (a dark site is not re-polled).
    if (spec.kind === 'probe' && d.evidence === undefined) {
      const seen = detectingReport(view, input.site ?? view.incident.site, now);
      if (seen) return this.record({ ...base, kind: 'step.done', payload: { input, report: seen.seq, detected: true, verdict: seen.verdict } }, expect);
    }
    const refusals: Refusal[] = [];
    let override: number | undefined;
    for (const { guardrail, verdict } of checkStep({ incident: view.incident, events: view.events, step: spec, input, findings: view.findings, fleet: this.deps.fleet, now })) {
      const granted = guardrail.override ? approvedOverride(view, guardrail.id, d.step, input, d.actor, now) : undefined;
      if (granted !== undefined) {
        override = granted;
        continue;
      }
      refusals.push({
        guardrail: guardrail.id,
        override: guardrail.override,
        refused: verdict.refused,
        why: verdict.why,
        instead: verdict.instead,
        ...(verdict.waitsFor ? { waitsFor: verdict.waitsFor } : {}),
      });
    }
    if (refusals.length > 0) {
      const first = refusals[0]!;
      const r = await this.deps.store.append({ ...base, kind: 'step.blocked', payload: { ...first, input, refusals: refusals.map((x) => ({ ...x })) } }, expect);
      if (!r.ok) return { ok: false, kind: 'conflict', by: r.conflict.by, at: r.conflict.at, what: r.conflict.kind };
      return { ok: false, kind: 'refused', refusals, event: r.event, view: (await this.view(d.incident))! };
    }

    const payload: Record<string, unknown> = { input };
    if (evidence) payload.evidence = evidence;
    if (override !== undefined) payload.override = override;
    if (spec.kind === 'probe') {
      if (!this.deps.probe) return { ok: false, kind: 'invalid', message: 'this front end cannot run probes' };
      // The probe runs under the step's lease: a second press, here or on another replica, is told
      // who runs it; a lease left by a replica that died runs out and the step runs again.
      const leases = this.deps.store.replicaSide;
      const at = now.toISOString();
      const lease = await leases.takeLease({ incident: d.incident, step: d.step, by: d.actor, replica: this.replica(), at, until: new Date(now.getTime() + this.leaseMs()).toISOString() });
      if (!lease.ok) return { ok: false, kind: 'running', lease: lease.held };
      try {
        const report = await this.deps.probe(input.site ?? view.incident.site, spec.probe);
        const stored = await this.deps.store.append({ incident: d.incident, kind: 'probe.report', actor: { kind: 'probe' }, happenedAt: report.finishedAt, step: d.step, payload: { report: JSON.parse(canonicalJson(report)) as unknown } });
        if (stored.ok) payload.report = stored.event.seq;
        payload.verdict = { status: report.verdict.status, runbook: report.verdict.runbook ?? null };
        const r = await this.record({ ...base, kind: 'step.done', payload }, expect);
        return r.ok && lease.expired ? { ...r, retook: lease.expired } : r;
      } finally {
        await leases.dropLease(d.incident, d.step, lease.token).catch(() => {});
      }
    }
    return this.record({ ...base, kind: 'step.done', payload }, expect);
  }

  private async record(input: Parameters<JournalStore['append']>[0], expect: { step: string; version: number }): Promise<DecideResult> {
    const r = await this.deps.store.append(input, expect);
    if (!r.ok) return { ok: false, kind: 'conflict', by: r.conflict.by, at: r.conflict.at, what: r.conflict.kind };
    return { ok: true, event: r.event, duplicate: r.duplicate, view: (await this.view(input.incident))! };
  }

  /** Evidence on a step without finishing it (a file measured, a value, an answer). */
  async addEvidence(o: { incident: number; step: string; evidence: Evidence; actor: Actor; dedupe?: string }): Promise<{ event: JournalEvent; duplicate: boolean } | { error: string }> {
    const view = await this.view(o.incident);
    if (!view) return { error: `no incident #${o.incident}` };
    if (!view.steps.some((s) => s.spec.id === o.step)) return { error: `no step "${o.step}" in incident #${o.incident}` };
    const broken = await brokenChain(this.deps.store, o.incident);
    if (broken) return { error: broken };
    const r = await this.deps.store.append({ incident: o.incident, kind: 'evidence', actor: o.actor, happenedAt: this.iso(), step: o.step, payload: { evidence: o.evidence }, ...(o.dedupe ? { dedupe: o.dedupe } : {}) });
    return r.ok ? { event: r.event, duplicate: r.duplicate } : { error: 'the journal refused the evidence' };
  }

  /** A person says the step waits on something outside the runbook: blocked by `person`, with what it waits for. */
  async block(o: { incident: number; step: string; reason: string; actor: Actor; dedupe?: string }): Promise<{ event: JournalEvent; duplicate: boolean } | { error: string } | { conflict: { by: Actor; at: string; kind: EventKind } }> {
    const view = await this.view(o.incident);
    const step = view?.steps.find((s) => s.spec.id === o.step);
    if (!view || !step) return { error: `no step "${o.step}" in incident #${o.incident}` };
    const reason = checkText(o.reason, 'what the step waits for', MAX_TEXT);
    if (typeof reason !== 'string') return reason;
    const broken = await brokenChain(this.deps.store, o.incident);
    if (broken) return { error: broken };
    const r = await this.deps.store.append(
      { incident: o.incident, kind: 'step.blocked', actor: o.actor, happenedAt: this.iso(), step: o.step, payload: { guardrail: 'person', refused: step.spec.title, why: reason, instead: '', waitsFor: reason, input: {} }, ...(o.dedupe ? { dedupe: o.dedupe } : {}) },
      { step: o.step, version: step.version },
    );
    if (!r.ok) return { conflict: { by: r.conflict.by, at: r.conflict.at, kind: r.conflict.kind } };
    return { event: r.event, duplicate: r.duplicate };
  }

  /** Asks a second on-call person to let one exact action past one guardrail, for 15 minutes. */
  async requestOverride(o: { incident: number; step: string; guardrail: string; input?: StepInput; reason: string; actor: Actor; dedupe?: string }): Promise<{ event: JournalEvent; expiresAt: string } | { error: string }> {
    const g = GUARDRAILS.get(o.guardrail);
    if (!g) return { error: `no guardrail "${o.guardrail}" (guardrails: ${[...GUARDRAILS.keys()].join(', ')})` };
    if (!g.override) return { error: `${g.id} has no override: ${g.lesson}` };
    const view = await this.view(o.incident);
    const step = view?.steps.find((s) => s.spec.id === o.step);
    if (!view || !step) return { error: `no step "${o.step}" in incident #${o.incident}` };
    const reason = checkText(o.reason, 'a reason for the override', MAX_TEXT);
    if (typeof reason !== 'string') return reason;
    const broken = await brokenChain(this.deps.store, o.incident);
    if (broken) return { error: broken };
    const replayed = o.dedupe !== undefined && view.events.some((e) => e.dedupe === o.dedupe);
    const closed = replayed ? null : requestProblem(view, o.step, this.deps.now());
    if (closed) return { error: closed };
    const input: StepInput = o.input ?? blockedInput(step) ?? (step.spec.action ? { action: step.spec.action } : {});
    const expiresAt = new Date(this.deps.now().getTime() + OVERRIDE_TTL_MS).toISOString();
    const r = await this.deps.store.append({ incident: o.incident, kind: 'override.requested', actor: o.actor, happenedAt: this.iso(), step: o.step, payload: { guardrail: g.id, input, reason, expiresAt }, ...(o.dedupe ? { dedupe: o.dedupe } : {}) });
    return r.ok ? { event: r.event, expiresAt } : { error: 'the journal refused the request' };
  }

  async approveOverride(o: { incident: number; request: number; actor: Actor; dedupe?: string }): Promise<{ event: JournalEvent } | { error: string }> {
    const view = await this.view(o.incident);
    const req = view?.overrides.find((r) => r.seq === o.request);
    if (!view || !req) return { error: `no override request #${o.request} in incident #${o.incident}` };
    if (req.approved) return { error: `override #${o.request} was already approved by ${actorName(req.approved.by)}` };
    const broken = await brokenChain(this.deps.store, o.incident);
    if (broken) return { error: broken };
    const state = overrideState(view, req, this.deps.now());
    if (state.state === 'closed') return { error: `override #${o.request} is closed (${closedWhy(state)}): nothing was approved` };
    const why = approvalProblem(req, o.actor, this.deps.now());
    // Refused approvals are told, not recorded as refusing the request: the right person may still approve it.
    if (why) return { error: why };
    const r = await this.deps.store.append({ incident: o.incident, kind: 'override.approved', actor: o.actor, happenedAt: this.iso(), step: req.step, payload: { request: req.seq, guardrail: req.guardrail, input: req.input }, ...(o.dedupe ? { dedupe: o.dedupe } : {}) });
    return r.ok ? { event: r.event } : { error: 'the journal refused the approval' };
  }

  /**
   * What the guardrails would refuse now of the attempt a step is blocked by, recording nothing: a
   * refusal in the journal may have been lifted since (the power log recorded), and then a front
   * end shows it as history, not as standing. An approval standing for the exact action lifts it too.
   */
  standingRefusals(view: IncidentView, step: StepView, actor?: Actor): Refusal[] {
    if (step.state.state !== 'blocked' || step.state.guardrail === 'person') return [];
    const input = step.state.input;
    const now = this.deps.now();
    const out: Refusal[] = [];
    for (const { guardrail, verdict } of checkStep({ incident: view.incident, events: view.events, step: step.spec, input, findings: view.findings, fleet: this.deps.fleet, now })) {
      if (guardrail.override && actor && approvedOverride(view, guardrail.id, step.spec.id, input, actor, now) !== undefined) continue;
      out.push({ guardrail: guardrail.id, override: guardrail.override, refused: verdict.refused, why: verdict.why, instead: verdict.instead, ...(verdict.waitsFor ? { waitsFor: verdict.waitsFor } : {}) });
    }
    return out;
  }

  /** A probe report run from an incident, stored as evidence. */
  async attachReport(id: number, report: ProbeReport, step?: string): Promise<JournalEvent | undefined> {
    const r = await this.deps.store.append({ incident: id, kind: 'probe.report', actor: { kind: 'probe' }, happenedAt: report.finishedAt, ...(step ? { step } : {}), payload: { report: JSON.parse(canonicalJson(report)) as unknown } });
    return r.ok ? r.event : undefined;
  }
}

/** The probe can stand for the first probe step for this long after it finished (no-poll-dark-site's window). */
export const DETECTED_FRESH_MS = 15 * 60 * 1000;

/**
 * The report that detected the incident (journalled by Start runbook or `seat runbook start` with no
 * step of its own), of `site`, at most DETECTED_FRESH_MS old, and not yet any step's report.
 */
export function detectingReport(view: IncidentView, site: string, now: Date): { seq: number; verdict: { status: unknown; runbook: unknown } } | null {
  const used = new Set(view.events.filter((e) => e.kind === 'step.done' && typeof e.payload.report === 'number').map((e) => e.payload.report as number));
  for (const e of view.events) {
    if (e.kind !== 'probe.report' || e.step || used.has(e.seq)) continue;
    const report = e.payload.report as { site?: unknown; verdict?: { status?: unknown; runbook?: unknown } } | undefined;
    if (!report || report.site !== site) continue;
    const age = now.getTime() - Date.parse(e.happenedAt);
    if (!(age >= 0 && age <= DETECTED_FRESH_MS)) continue;
    return { seq: e.seq, verdict: { status: report.verdict?.status ?? null, runbook: report.verdict?.runbook ?? null } };
  }
  return null;
}

/** This process among the bot's replicas: SEAT_REPLICA, else host:pid. */
export function defaultReplica(env: NodeJS.ProcessEnv = process.env): string {
  const named = env.SEAT_REPLICA?.trim();
  return named && /^[\w.:-]{1,128}$/.test(named) ? named : `${hostname().split('.')[0] || 'host'}:${process.pid}`;
}

export function actorName(a: Actor): string {
  return a.kind === 'slack' ? a.name || a.id : a.kind === 'local' ? a.name : a.kind;
}

/** Why no override may be asked on the step now: the incident closed, the step decided, an approval standing. */
function requestProblem(view: IncidentView, step: string, now: Date): string | null {
  if (view.incident.status === 'closed') return `incident #${view.incident.id} is closed: nothing to override`;
  const s = view.steps.find((x) => x.spec.id === step)?.state;
  if (s && (s.state === 'done' || s.state === 'skipped')) return `step ${step} was already ${s.state === 'done' ? 'done' : 'skipped'} by ${actorName(s.by)}: nothing to override`;
  const standing = standingApproval(view, step, now);
  if (standing) return `override #${standing.req.seq} on step ${step} is already approved by ${actorName(standing.by)} until ${standing.until}: press Done (anyone on call but ${actorName(standing.by)})`;
  return null;
}

export function closedWhy(s: Extract<OverrideState, { state: 'closed' }>): string {
  return s.why === 'step-decided' ? `its step was decided${s.by ? ` by ${actorName(s.by)}` : ''}` : s.why === 'expired' ? `it expired at ${s.at ?? '?'}` : 'the incident is closed';
}

function conflictOf(step: StepView): DecideResult {
  const s = step.state;
  if (s.state === 'pending') return { ok: false, kind: 'invalid', message: `step ${step.spec.id} changed meanwhile: look again` };
  return { ok: false, kind: 'conflict', by: s.by, at: s.at, what: s.state === 'done' ? 'step.done' : s.state === 'skipped' ? 'step.skipped' : 'step.blocked' };
}

function lastEvidence(step: StepView): Evidence | undefined {
  return step.evidence[step.evidence.length - 1];
}

/** What the last refused attempt was about to do: the action an override request names by default. */
function blockedInput(step: StepView): StepInput | undefined {
  return step.state.state === 'blocked' ? step.state.input : undefined;
}

function evidenceProblem(spec: NonNullable<Runbook['steps'][number]['evidence']>, e: Evidence | undefined): string | null {
  const asked = spec.kind === 'yesno' ? spec.question : spec.label;
  if (!e || e.kind !== spec.kind) return `this step needs evidence: ${asked} (${spec.kind === 'file' ? 'a file: its size and sha256' : spec.kind === 'value' ? 'a value' : 'yes or no'})`;
  if (e.kind === 'value' && spec.kind === 'value' && spec.pattern && !new RegExp(spec.pattern).test(e.value)) {
    return `"${e.value.slice(0, 80)}" is not what ${spec.label} looks like (expected ${spec.pattern})`;
  }
  if (e.kind === 'file' && (!/^[0-9a-f]{64}$/.test(e.sha256) || !(e.size >= 0))) return 'file evidence needs a size and a 64-hex sha256';
  return null;
}

function approvalProblem(req: NonNullable<IncidentView['overrides'][number]>, approver: Actor, now: Date): string | null {
  if (actorKey(approver) === actorKey(req.by)) return `${actorName(approver)} asked for this override: a second on-call person must approve it`;
  if (now.getTime() > Date.parse(req.expiresAt)) return `override #${req.seq} expired at ${req.expiresAt}: ask again`;
  if (req.refused) return `override #${req.seq} was refused`;
  return null;
}

/** An approved, unexpired override for exactly this action, approved by someone other than the doer. */
function approvedOverride(view: IncidentView, guardrail: string, step: string, input: StepInput, doer: Actor, now: Date): number | undefined {
  const want = canonicalJson(input);
  for (const r of view.overrides) {
    if (!r.approved || r.guardrail !== guardrail || r.step !== step) continue;
    if (now.getTime() > Date.parse(r.expiresAt)) continue;
    if (canonicalJson({ ...r.input }) !== want) continue;
    if (actorKey(r.approved.by) === actorKey(doer)) continue;
    return r.approved.seq;
  }
  return undefined;
}

/** Free text as typed: any language; refused (not cut) when empty or too long; control characters out. */
export function checkText(text: string, what: string, max: number): string | { error: string } {
  const t = text.replace(/[\x00-\x08\x0B\x0C\x0E-\x1F\x7F\u2028\u2029]/g, '').trim();
  if (t === '') return { error: `${what} is needed` };
  const n = [...t].length;
  if (n > max) return { error: `${what} is ${n} characters; the most is ${max}` };
  return t;
}
