// The incident domain: who did what, recorded in the journal; the runbook steps they walk; the
// guardrails that gate them. Shared by the journal store, the runbook loader, the guardrails, the
// engine and both front ends. Decisions read the fields here, never the words shown to people.
import type { Fleet } from '../inventory/fleet.ts';
import type { Finding, ProbeGroup } from '../probes/types.ts';

// ---------------------------------------------------------------------------------------------
// People

/** Who recorded an event. The terminal's person is the local user; `system` and `probe` are the bot. */
export type Actor =
  | { kind: 'slack'; id: string; name: string }
  | { kind: 'local'; name: string }
  | { kind: 'system' }
  | { kind: 'probe' };

/** One identity for comparisons ("the approver is not the requester"): `slack:U123`, `local:ana`, `system`, `probe`. */
export function actorKey(a: Actor): string {
  switch (a.kind) {
    case 'slack':
      return `slack:${a.id}`;
    case 'local':
      return `local:${a.name}`;
    default:
      return a.kind;
  }
}

// ---------------------------------------------------------------------------------------------
// Incidents and the journal

export type IncidentStatus = 'open' | 'closed';

export interface Incident {
  /** 1, 2, 3 … shown as `#7`. */
  id: number;
  site: string;
  /** Free text as typed (any language, emoji, quotes); escaped only where shown. */
  title: string;
  status: IncidentStatus;
  openedBy: Actor;
  /** UTC ISO-8601. */
  openedAt: string;
  closedBy?: Actor;
  closedAt?: string;
  drill: boolean;
  /** The Slack thread the incident lives in, once it has one. */
  slack?: { channel: string; thread: string };
  /**
   * Where the journal's incidents row says otherwise than the incident's events (each field named),
   * or why those events cannot be read. Everything above comes from the events; `verify` names these too.
   */
  problems?: string[];
}

export type EventKind =
  | 'incident.opened' // payload: { site, title, drill }
  | 'incident.closed' // payload: { reason? }
  | 'runbook.pinned' // payload: { runbook, sha256, file, steps: string[] } (a re-pin is another pinned event)
  | 'step.done' // payload: { evidence?: Evidence, input?: StepInput, override?: number (seq of the approval) }
  | 'step.skipped' // payload: { reason: string } — becomes an action item in the postmortem
  | 'step.blocked' // payload: { guardrail, refused, why, instead, waitsFor?, input? } — a refusal, recorded
  | 'evidence' // payload: { evidence: Evidence } — evidence added to a step without finishing it
  | 'override.requested' // payload: { guardrail, action: OverrideAction, reason, expiresAt }
  | 'override.approved' // payload: { request: number (seq), guardrail, action: OverrideAction }
  | 'override.refused' // payload: { request: number, why }
  | 'probe.report' // payload: { report } — canonicalReport(), stored as evidence
  | 'note' // payload: { text }
  | 'correction'; // payload: { text, fields? } — amends the event named by `amends`

/** What a person sets out to record; the store adds seq, recordedAt and the hashes. */
export interface EventInput {
  incident: number;
  kind: EventKind;
  actor: Actor;
  /** When it happened (UTC ISO-8601): the click, the typed command, the probe's end. */
  happenedAt: string;
  /** The runbook step the event is about, by its id. */
  step?: string;
  /** JSON data: only plain objects, arrays, strings, finite numbers, booleans and null. */
  payload: Record<string, unknown>;
  /** A correction names the seq (in the same incident) of the event it amends. */
  amends?: number;
  /**
   * Idempotency: a Slack trigger or action id, a terminal invocation id. An event whose key was
   * already recorded is not recorded again; the first one is returned, marked duplicate.
   */
  dedupe?: string;
}

export interface JournalEvent extends EventInput {
  /** 1, 2, 3 … within its incident. */
  seq: number;
  /** When the store committed it (UTC ISO-8601). */
  recordedAt: string;
  /** The previous event's hash in this incident; 64 zeros for the first. */
  prevHash: string;
  /** sha256 (hex) over the canonical serialisation of every field above but `hash`. */
  hash: string;
}

/** Compare-and-set on a step: the number of step.* events it has (done/skipped/blocked), carried in a button. */
export interface StepExpectation {
  step: string;
  version: number;
}

export type AppendResult =
  | { ok: true; event: JournalEvent; duplicate: boolean }
  /** Someone else decided the step first: say who, and when. */
  | { ok: false; conflict: { step: string; version: number; by: Actor; at: string; kind: EventKind } };

export type VerifyResult =
  | { ok: true; incidents: number; events: number; heads: Map<number, string> }
  /** `part: 'row'`: the events hold, the incident's row says otherwise (reads show the events' values). */
  | { ok: false; incident: number; seq: number; why: string; events: number; part?: 'row' };

// ---------------------------------------------------------------------------------------------
// Runbooks

export type StepKind = 'probe' | 'check' | 'action' | 'evidence' | 'decision';

/** What a step needs before it is done. */
export type EvidenceSpec =
  /** A file: the bot measures its size and sha256. `of` names what it is, for the guardrails (`power-log`). */
  | { kind: 'file'; of: string; label: string }
  /** A pasted value (a restart count, a backup file name), optionally checked against a pattern. */
  | { kind: 'value'; of: string; label: string; pattern?: string }
  | { kind: 'yesno'; of: string; question: string };

/** What a power log given as evidence says (`seat powerlog`'s figures): the export charts it. */
export interface PowerLogFacts {
  gpus: number;
  samples: number;
  /** All GPUs summed. */
  peakW: number | null;
  peakAt: string | null;
  lastWindowMeanW: number | null;
  /** The last complete row: how close the log came to the cut. */
  last: string | null;
  intervalMs: number | null;
}

/** Evidence as recorded. `measured`: the bot read the bytes itself; a typed hash is `declared`. */
export type Evidence =
  | { kind: 'file'; of: string; name: string; size: number; sha256: string; measured: boolean; powerlog?: PowerLogFacts }
  | { kind: 'value'; of: string; value: string }
  | { kind: 'yesno'; of: string; answer: boolean };

/**
 * What a gated step is about to do, stated as facts the person enters (or the step fixes). Each
 * guardrail reads only the fields it knows; the `action` names the class of move.
 */
export interface StepInput {
  action?: StepAction;
  /** alias-route: the alias and the backend it is to point at. */
  alias?: string;
  backend?: string;
  /** seat-move / seat-resize / seat-up: the seat, and where. */
  seat?: string;
  host?: string;
  gpu?: number;
  /** seat-move / seat-resize: what the seat will take, MiB. */
  wantMiB?: number;
  /** env-edit: the timestamped backup's name. */
  backup?: string;
  /** container-change: how the change is applied. */
  method?: 'restart' | 'recreate';
  /** power-plan: which UPS bank the load goes on, and the load. */
  bank?: 'battery' | 'surge' | 'bypass';
  loadW?: number;
  /** probe: the site to probe. */
  site?: string;
}

export type StepAction =
  | 'power-sizing' // sizing a UPS, a load figure, a power budget
  | 'power-plan' // where load is plugged (battery/surge bank, bypass)
  | 'alias-route' // point an alias at a backend
  | 'seat-move' // move a seat to another GPU
  | 'seat-resize' // change a seat's memory budget
  | 'seat-up' // declare a seat back in service
  | 'env-edit' // edit a seat's .env
  | 'container-change' // apply an address or label change to containers
  | 'probe'; // probe a site

export interface StepSpec {
  /** Strict word, unique in its runbook. */
  id: string;
  /** The `##` heading's text. */
  title: string;
  /** One line: why this step exists (a seed's lesson). */
  why: string;
  /** The step's Markdown without its `seat` block, as written. */
  body: string;
  kind: StepKind;
  /** The probe a `probe` step runs on the incident's site. */
  probe?: { only?: ProbeGroup[] };
  evidence?: EvidenceSpec;
  /** The class of move, for the guardrails; fixed by the step or entered by the person. */
  action?: StepAction;
  /** Guardrail ids that gate `done` on this step. */
  guardrails: string[];
  /** 1-based line of the heading in its file. */
  line: number;
}

export interface Runbook {
  /** The file's name without `.md`; what the diagnosis proposes. */
  id: string;
  /** The `#` heading. */
  title: string;
  /** The first paragraph under the title. */
  summary: string;
  /** Path relative to the repository (`runbooks/site-dark.md`). */
  file: string;
  /** sha256 (hex) of the file's bytes: pinned to an incident when it starts. */
  sha256: string;
  steps: StepSpec[];
}

// ---------------------------------------------------------------------------------------------
// Guardrails

export interface GuardContext {
  incident: Incident;
  /** The incident's journal so far, in seq order. */
  events: readonly JournalEvent[];
  /** The step about to be marked done, and the facts of what it does. */
  step: StepSpec;
  input: StepInput;
  /** Every finding of every probe report in the journal, oldest first (each has observedAt). */
  findings: readonly Finding[];
  fleet: Fleet;
  /** Injected clock. */
  now: Date;
}

export type GuardVerdict =
  | { ok: true }
  | {
      ok: false;
      /** What is refused, naming the exact thing ("repointing alias summarizer to openai-gpt (paid)"). */
      refused: string;
      /** The lesson, one line. */
      why: string;
      /** What to do instead. */
      instead: string;
      /** What would lift it, when something would ("the power log's size and sha256"). */
      waitsFor?: string;
    };

/** `Id`: the guardrail's own id, kept as its literal so the registry can list every id (src/guardrails/index.ts). */
export interface Guardrail<Id extends string = string> {
  id: Id;
  /** The seed lesson it encodes, one line. */
  lesson: string;
  /** Whether a second on-call person may approve going past it. */
  override: boolean;
  /** Whether this guardrail has anything to say about a step (by its action / evidence / kind). */
  applies(step: StepSpec, input: StepInput): boolean;
  check(ctx: GuardContext): GuardVerdict;
}

/** The exact action an override request names: the step and its input. */
export interface OverrideAction {
  step: string;
  input: StepInput;
}
