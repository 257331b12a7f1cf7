// The state of one incident, computed from its journal alone: which runbook is pinned (its text as
// it was when pinned, so an edit of the file changes nothing until a re-pin), and each step's state.
// Pure: the same events always give the same view, in the terminal, in Slack and in the export.
import { parseRunbook } from '../runbooks/load.ts';
import type { Finding } from '../probes/types.ts';
import type { Actor, Evidence, Incident, JournalEvent, Runbook, StepInput, StepSpec } from './types.ts';

export type StepState =
  | { state: 'pending' }
  | { state: 'done'; by: Actor; at: string; seq: number; evidence?: Evidence; override?: number }
  | { state: 'skipped'; by: Actor; at: string; seq: number; reason: string }
  /** Refused by a guardrail at the last attempt; still open: it can be tried again or skipped. */
  | { state: 'blocked'; by: Actor; at: string; seq: number; guardrail: string; refused: string; why: string; instead: string; waitsFor?: string; input: StepInput };

export interface StepView {
  spec: StepSpec;
  state: StepState;
  /** The compare-and-set version a button carries: how many decisions the step has had. */
  version: number;
  /** Evidence added without finishing the step. */
  evidence: Evidence[];
}

export interface OverrideRequest {
  seq: number;
  by: Actor;
  at: string;
  guardrail: string;
  step: string;
  input: StepInput;
  reason: string;
  expiresAt: string;
  approved?: { seq: number; by: Actor; at: string };
  refused?: { seq: number; by: Actor; at: string; why: string };
}

export interface Pin {
  runbook: string;
  sha256: string;
  file: string;
  seq: number;
  /** The runbook as pinned: parsed from the text stored in the journal, not the file of today. */
  spec: Runbook;
}

export interface IncidentView {
  incident: Incident;
  pin?: Pin;
  steps: StepView[];
  overrides: OverrideRequest[];
  /** Every finding of every probe report recorded in this incident, oldest first. */
  findings: Finding[];
  events: readonly JournalEvent[];
}

/** Pinned runbooks parsed once per text (by sha256): every view of every click would parse it again. */
const PARSED = new Map<string, Runbook>();
const MAX_PARSED = 64;

function pinnedRunbook(sha256: string, text: string, file: string): Runbook | null {
  const hit = PARSED.get(sha256);
  if (hit) return hit;
  const parsed = parseRunbook(text, file);
  if (!parsed.ok) return null;
  // Kept only under its own hash: a text edited in the journal by hand is parsed each time (and verify names it).
  if (parsed.runbook.sha256 === sha256) {
    if (PARSED.size >= MAX_PARSED) PARSED.delete(PARSED.keys().next().value!);
    PARSED.set(sha256, parsed.runbook);
  }
  return parsed.runbook;
}

export function project(incident: Incident, events: readonly JournalEvent[]): IncidentView {
  let pin: Pin | undefined;
  const steps = new Map<string, StepView>();
  const overrides = new Map<number, OverrideRequest>();
  const findings: Finding[] = [];
  for (const e of events) {
    const p = e.payload;
    switch (e.kind) {
      case 'runbook.pinned': {
        const runbook = pinnedRunbook(String(p.sha256), String(p.text ?? ''), String(p.file ?? ''));
        if (!runbook) break; // it parsed when pinned; a journal edited by hand is verify's to name
        pin = { runbook: String(p.runbook), sha256: String(p.sha256), file: String(p.file), seq: e.seq, spec: runbook };
        // A re-pin keeps what was decided on steps that still exist; new steps start pending.
        const before = new Map(steps);
        steps.clear();
        for (const spec of runbook.steps) {
          const old = before.get(spec.id);
          steps.set(spec.id, old ? { ...old, spec } : { spec, state: { state: 'pending' }, version: 0, evidence: [] });
        }
        break;
      }
      case 'step.done':
      case 'step.skipped':
      case 'step.blocked': {
        const view = e.step ? steps.get(e.step) : undefined;
        if (!view) break;
        view.version++;
        if (e.kind === 'step.done') {
          const evidence = p.evidence as Evidence | undefined;
          view.state = { state: 'done', by: e.actor, at: e.happenedAt, seq: e.seq, ...(evidence ? { evidence } : {}), ...(typeof p.override === 'number' ? { override: p.override } : {}) };
        } else if (e.kind === 'step.skipped') {
          view.state = { state: 'skipped', by: e.actor, at: e.happenedAt, seq: e.seq, reason: String(p.reason ?? '') };
        } else if (view.state.state !== 'done' && view.state.state !== 'skipped') {
          view.state = {
            state: 'blocked',
            by: e.actor,
            at: e.happenedAt,
            seq: e.seq,
            guardrail: String(p.guardrail),
            refused: String(p.refused ?? ''),
            why: String(p.why ?? ''),
            instead: String(p.instead ?? ''),
            ...(typeof p.waitsFor === 'string' ? { waitsFor: p.waitsFor } : {}),
            input: (p.input ?? {}) as StepInput,
          };
        }
        break;
      }
      case 'evidence': {
        const view = e.step ? steps.get(e.step) : undefined;
        if (view && p.evidence) view.evidence.push(p.evidence as Evidence);
        break;
      }
      case 'override.requested':
        overrides.set(e.seq, {
          seq: e.seq,
          by: e.actor,
          at: e.happenedAt,
          guardrail: String(p.guardrail),
          step: String(e.step ?? ''),
          input: (p.input ?? {}) as StepInput,
          reason: String(p.reason ?? ''),
          expiresAt: String(p.expiresAt),
        });
        break;
      case 'override.approved': {
        const r = overrides.get(Number(p.request));
        if (r) r.approved = { seq: e.seq, by: e.actor, at: e.happenedAt };
        break;
      }
      case 'override.refused': {
        const r = overrides.get(Number(p.request));
        if (r) r.refused = { seq: e.seq, by: e.actor, at: e.happenedAt, why: String(p.why ?? '') };
        break;
      }
      case 'probe.report': {
        const report = p.report as { findings?: Finding[] } | undefined;
        if (Array.isArray(report?.findings)) for (const f of report.findings) findings.push(f);
        break;
      }
      default:
        break;
    }
  }
  return { incident, ...(pin ? { pin } : {}), steps: [...steps.values()], overrides: [...overrides.values()], findings, events };
}

/** The step to offer next: the first one neither done nor skipped. */
export function currentStep(view: IncidentView): StepView | undefined {
  return view.steps.find((s) => s.state.state === 'pending' || s.state.state === 'blocked');
}

export function isOpenStep(s: StepView): boolean {
  return s.state.state === 'pending' || s.state.state === 'blocked';
}
