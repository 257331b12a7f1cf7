// The modals a step button opens (the reason to skip, the evidence, the inputs of a gated move, the
// reason for an override) and the reading of what was submitted: every field is checked here, and a
// bad one comes back as Slack's `response_action: 'errors'`, keyed by the block that holds it.
import type { types, ViewStateValue } from '@slack/bolt';
import { MAX_TEXT, checkText } from '../incident/service.ts';
import type { Evidence, EvidenceSpec, StepAction, StepInput, StepSpec } from '../incident/types.ts';
import { esc, fit, section } from './mrkdwn.ts';
import { NUMERIC_INPUTS, STEP_INPUTS } from '../incident/inputs.ts';

type KnownBlock = types.KnownBlock;

export const SKIP_MODAL = 'seat_step_skip_modal';
export const DONE_MODAL = 'seat_step_done_modal';
export const EVIDENCE_MODAL = 'seat_step_evidence_modal';
export const OVERRIDE_MODAL = 'seat_override_modal';

/** What a modal carries back in private_metadata: the step, the version seen, the message to update. */
export interface ModalMeta {
  incident: number;
  step: string;
  version: number;
  channel: string;
  /** The step's message; null when there is none to update. */
  ts: string | null;
  guardrail?: string;
}

export function readMeta(s: string): ModalMeta | null {
  try {
    const m = JSON.parse(s) as Partial<ModalMeta>;
    if (typeof m.incident !== 'number' || typeof m.step !== 'string' || typeof m.version !== 'number' || typeof m.channel !== 'string') return null;
    if (m.ts !== null && typeof m.ts !== 'string') return null;
    return { incident: m.incident, step: m.step, version: m.version, channel: m.channel, ts: m.ts, ...(typeof m.guardrail === 'string' ? { guardrail: m.guardrail } : {}) };
  } catch {
    return null;
  }
}


/** Done on these opens a modal for the inputs of the move. */
export const MODAL_ACTIONS: ReadonlySet<StepAction> = new Set(['alias-route', 'seat-move', 'seat-resize', 'env-edit', 'container-change', 'power-plan', 'power-sizing', 'seat-up']);

const LABELS: Record<string, string> = {
  alias: 'Alias to point',
  backend: 'Backend it is to point at',
  seat: 'Seat',
  host: 'Host it goes to',
  gpu: 'GPU index it goes to',
  wantMiB: 'Memory it will take (MiB)',
  backup: 'The .env backup’s name',
  method: 'How the change is applied',
  bank: 'UPS bank the load goes on',
  loadW: 'Load (W)',
};

const CHOICES: Partial<Record<keyof StepInput, readonly string[]>> = { method: ['recreate', 'restart'], bank: ['battery', 'surge', 'bypass'] };
const WORD = /^[A-Za-z0-9][A-Za-z0-9._:/-]{0,127}$/;
const SHA256 = /^[0-9a-fA-F]{64}$/;
const FILE_ID = /\b(F[A-Z0-9]{6,20})\b/;

const pt = (text: string): types.PlainTextElement => ({ type: 'plain_text', text: text.slice(0, 150), emoji: false });

function modal(callback: string, title: string, submit: string, meta: ModalMeta, blocks: KnownBlock[]): types.ModalView {
  return { type: 'modal', callback_id: callback, title: pt(title.slice(0, 24)), submit: pt(submit.slice(0, 24)), close: pt('Cancel'), private_metadata: JSON.stringify(meta), blocks };
}

const intro = (text: string): KnownBlock => section(text);

function textInput(block: string, label: string, o: { optional?: boolean; multiline?: boolean; hint?: string; initial?: string; max?: number; placeholder?: string } = {}): KnownBlock {
  return {
    type: 'input',
    block_id: block,
    optional: o.optional ?? false,
    label: pt(label),
    ...(o.hint ? { hint: pt(o.hint) } : {}),
    element: {
      type: 'plain_text_input',
      action_id: 'v',
      multiline: o.multiline ?? false,
      ...(o.max ? { max_length: o.max } : {}),
      ...(o.initial !== undefined ? { initial_value: o.initial } : {}),
      ...(o.placeholder ? { placeholder: pt(o.placeholder) } : {}),
    },
  };
}

function choice(block: string, label: string, options: readonly string[], o: { optional?: boolean; initial?: string; radio?: boolean } = {}): KnownBlock {
  const opts = options.map((v) => ({ text: pt(v), value: v }));
  const initial = o.initial !== undefined ? opts.find((x) => x.value === o.initial) : undefined;
  return {
    type: 'input',
    block_id: block,
    optional: o.optional ?? false,
    label: pt(label),
    element: o.radio
      ? { type: 'radio_buttons', action_id: 'v', options: opts, ...(initial ? { initial_option: initial } : {}) }
      : { type: 'static_select', action_id: 'v', options: opts, ...(initial ? { initial_option: initial } : {}) },
  };
}

export function skipModal(meta: ModalMeta, stepTitle: string): types.ModalView {
  return modal(SKIP_MODAL, 'Skip a step', 'Skip it', meta, [
    intro(`Skip *${esc(stepTitle)}* (\`${meta.step}\`, incident #${meta.incident}). The reason goes to the journal and becomes an action item in the postmortem.`),
    textInput('reason', 'Why is it skipped?', { multiline: true, max: MAX_TEXT }),
  ]);
}

export function overrideModal(meta: ModalMeta, refused: string): types.ModalView {
  return modal(OVERRIDE_MODAL, 'Ask for override', 'Ask', meta, [
    intro(`Ask a second on-call person to let step \`${meta.step}\` past *${esc(meta.guardrail ?? '?')}* for 15 minutes.\n_Refused:_ ${fit(refused, 1500)}`),
    textInput('reason', 'Why is going past it right this time?', { multiline: true, max: MAX_TEXT }),
  ]);
}

function evidenceBlocks(spec: EvidenceSpec | undefined): KnownBlock[] {
  if (spec?.kind === 'yesno') return [choice('ev_yesno', spec.question, ['yes', 'no'], { radio: true })];
  if (spec?.kind === 'value') return [textInput('ev_value', spec.label, { max: 500, ...(spec.pattern ? { hint: `expected to match ${spec.pattern}` } : {}) })];
  const label = spec?.label ?? 'Evidence';
  const file: KnownBlock[] = [
    { type: 'input', block_id: 'ev_file', optional: true, label: pt(`${label}: upload the file`), hint: pt('The bot downloads it and records its size and sha256 as measured.'), element: { type: 'file_input', action_id: 'v', max_files: 1 } },
    textInput('ev_file_id', 'or: a file already in Slack (its link or F… id)', { optional: true, max: 300 }),
    textInput('ev_sha256', 'or: its sha256 as typed (64 hex digits)', { optional: true, max: 64, hint: 'A typed hash is recorded as declared, not measured.' }),
    textInput('ev_size', 'with its size in bytes', { optional: true, max: 15 }),
    textInput('ev_name', 'and its name', { optional: true, max: 200 }),
  ];
  if (spec) return file;
  return [...file, textInput('ev_value', 'or: a value (a count, a name)', { optional: true, max: 500 })];
}

function inputBlocks(action: StepAction | undefined, prefill: StepInput | undefined): KnownBlock[] {
  const fields = action ? (STEP_INPUTS[action] ?? []) : [];
  return fields.map((f) => {
    const initial = prefill?.[f] === undefined ? undefined : String(prefill[f]);
    const choices = CHOICES[f];
    if (choices) return choice(`in_${f}`, LABELS[f] ?? f, choices, { optional: true, ...(initial !== undefined ? { initial } : {}) });
    return textInput(`in_${f}`, LABELS[f] ?? f, { optional: true, max: 128, ...(initial !== undefined ? { initial } : {}), ...(NUMERIC_INPUTS.has(f) ? { placeholder: 'a whole number' } : {}) });
  });
}

/** Done on a step that needs evidence (none recorded yet) or the inputs of its move. */
export function doneModal(meta: ModalMeta, spec: StepSpec, o: { askEvidence: boolean; prefill?: StepInput }): types.ModalView {
  const blocks: KnownBlock[] = [intro(`Mark *${esc(spec.title)}* (\`${spec.id}\`, incident #${meta.incident}) done. Its guardrails are checked when you submit.`)];
  if (o.askEvidence && spec.evidence) blocks.push(...evidenceBlocks(spec.evidence));
  blocks.push(...inputBlocks(spec.action, o.prefill));
  return modal(DONE_MODAL, 'Step done', 'Done', meta, blocks);
}

export function evidenceModal(meta: ModalMeta, spec: StepSpec): types.ModalView {
  return modal(EVIDENCE_MODAL, 'Add evidence', 'Record it', meta, [
    intro(`Evidence for *${esc(spec.title)}* (\`${spec.id}\`, incident #${meta.incident}), recorded without finishing the step.`),
    ...evidenceBlocks(spec.evidence),
  ]);
}

// ---------------------------------------------------------------------------------------------
// Reading a submission

export type Values = Record<string, Record<string, ViewStateValue>>;
export type Errors = Record<string, string>;

/** Evidence ready to record, or a Slack file the bot still has to download and measure. */
export type EvidenceDraft = { kind: 'ready'; evidence: Evidence } | { kind: 'slack-file'; fileId: string; of: string };

const text = (v: Values, block: string): string => (v[block]?.v?.value ?? '').trim();
const picked = (v: Values, block: string): string | undefined => v[block]?.v?.selected_option?.value ?? undefined;

export function readReason(v: Values): { reason: string } | { errors: Errors } {
  const r = checkText(v.reason?.v?.value ?? '', 'a reason', MAX_TEXT);
  return typeof r === 'string' ? { reason: r } : { errors: { reason: r.error } };
}

/** The evidence the modal holds; nothing given is an error naming the first field. */
export function readEvidence(v: Values, spec: EvidenceSpec | undefined): { draft: EvidenceDraft } | { errors: Errors } {
  const of = spec?.of ?? 'evidence';
  if (spec?.kind === 'yesno') {
    const a = picked(v, 'ev_yesno');
    if (a !== 'yes' && a !== 'no') return { errors: { ev_yesno: 'answer yes or no' } };
    return { draft: { kind: 'ready', evidence: { kind: 'yesno', of, answer: a === 'yes' } } };
  }
  if (spec?.kind === 'value') {
    const value = text(v, 'ev_value');
    if (value === '') return { errors: { ev_value: `${spec.label}: a value is needed` } };
    if (spec.pattern && !new RegExp(spec.pattern).test(value)) return { errors: { ev_value: `this does not look like ${spec.label} (expected ${spec.pattern})` } };
    return { draft: { kind: 'ready', evidence: { kind: 'value', of, value } } };
  }
  const uploaded = v.ev_file?.v?.files?.[0]?.id;
  const named = text(v, 'ev_file_id');
  const sha = text(v, 'ev_sha256');
  const size = text(v, 'ev_size');
  const name = text(v, 'ev_name');
  if (uploaded) return { draft: { kind: 'slack-file', fileId: uploaded, of } };
  if (named) {
    const id = FILE_ID.exec(named)?.[1];
    if (!id) return { errors: { ev_file_id: 'expected a Slack file link or its id (F…)' } };
    return { draft: { kind: 'slack-file', fileId: id, of } };
  }
  if (sha || size) {
    if (!SHA256.test(sha)) return { errors: { ev_sha256: 'expected 64 hex digits (the output of sha256sum)' } };
    if (!/^\d{1,15}$/.test(size)) return { errors: { ev_size: 'expected the file’s size in bytes (a whole number)' } };
    return { draft: { kind: 'ready', evidence: { kind: 'file', of, name: name || spec?.label || of, size: Number(size), sha256: sha.toLowerCase(), measured: false } } };
  }
  const value = spec ? '' : text(v, 'ev_value');
  if (value) return { draft: { kind: 'ready', evidence: { kind: 'value', of, value } } };
  return { errors: { ev_file: `upload the file, name one already in Slack, or type its sha256 and size${spec ? '' : ', or give a value'}` } };
}

export function readInput(v: Values, action: StepAction | undefined): { input: StepInput } | { errors: Errors } {
  const fields = action ? (STEP_INPUTS[action] ?? []) : [];
  const input: Record<string, unknown> = {};
  const errors: Errors = {};
  for (const f of fields) {
    const block = `in_${f}`;
    if (CHOICES[f]) {
      const c = picked(v, block);
      if (c !== undefined) {
        if (CHOICES[f].includes(c)) input[f] = c;
        else errors[block] = `expected one of ${CHOICES[f].join(', ')}`;
      }
      continue;
    }
    const t = text(v, block);
    if (t === '') continue;
    if (NUMERIC_INPUTS.has(f)) {
      if (/^\d{1,12}$/.test(t)) input[f] = Number(t);
      else errors[block] = 'expected a whole number';
    } else if (WORD.test(t)) {
      input[f] = t;
    } else {
      errors[block] = 'expected a name: letters, digits and . _ : / - (no spaces)';
    }
  }
  return Object.keys(errors).length > 0 ? { errors } : { input: input as StepInput };
}
