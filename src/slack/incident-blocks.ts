// Block Kit for incidents: the parent message, one message per runbook step (title, why, body,
// what it needs, Done / Skip / Evidence), the static line a decided step becomes, a guardrail's
// refusal, an override request. Free text people typed (titles, reasons, notes, file names,
// values) only ever goes in plain_text objects: shown as typed, never formatting, never pinging.
import type { types } from '@slack/bolt';
import { GUARDRAILS } from '../guardrails/index.ts';
import type { Refusal } from '../incident/service.ts';
import type { IncidentView, OverrideRequest, StepView } from '../incident/engine.ts';
import type { Evidence, EvidenceSpec, Incident } from '../incident/types.ts';
import { fmtInt } from '../probes/edge/text.ts';
import { inputText } from '../render/journal.ts';
import { checklistLines } from './checklist.ts';
import { cutLine, esc, fit, packSections, section } from './mrkdwn.ts';
import { markdownToMrkdwn } from './runbook-mrkdwn.ts';
import { approvalLine, decidedInput, evidenceLine, inputsLine, isPowerStep, powerLine, refusedLines, type PowerFigures } from './step-lines.ts';
import { overrideState, standingApproval, waitingRequests } from '../incident/overrides.ts';
import { when, who } from './who.ts';

export { when, who };

type KnownBlock = types.KnownBlock;

export const STEP_DONE = 'seat_step_done';
export const STEP_SKIP = 'seat_step_skip';
export const STEP_EVIDENCE = 'seat_step_evidence';
export const OVERRIDE_ASK = 'seat_override_ask';
export const OVERRIDE_APPROVE = 'seat_override_approve';

/** What a step button carries: compare-and-set on the version the person saw. */
export interface StepRef {
  incident: number;
  step: string;
  version: number;
}

export interface Message {
  text: string;
  blocks: KnownBlock[];
}

/** Free text as typed: a plain_text object, never mrkdwn (no `*bold*`, no `<!channel>`, no `:emoji:` shortcodes). */
export function plain(text: string, max = 2900): types.PlainTextElement {
  const chars = [...text];
  return { type: 'plain_text', text: chars.length > max ? `${chars.slice(0, max - 1).join('')}…` : text || ' ', emoji: false };
}

function plainSection(text: string): KnownBlock {
  return { type: 'section', text: plain(text) };
}

function context(...elements: (string | types.PlainTextElement)[]): KnownBlock {
  return { type: 'context', elements: elements.map((e) => (typeof e === 'string' ? { type: 'mrkdwn', text: cutLine(e, 2900) } : e)) };
}

export function fmtBytes(n: number): string {
  if (n < 1000) return `${fmtInt(n)} bytes`;
  const units = ['kB', 'MB', 'GB', 'TB'];
  let v = n;
  let u = -1;
  while (v >= 1000 && u < units.length - 1) {
    v /= 1000;
    u++;
  }
  return `${v.toFixed(1)} ${units[u]}`;
}

/** Evidence as one plain line (it holds what people typed or named). */
export function evidenceText(e: Evidence): string {
  switch (e.kind) {
    case 'file':
      return `${e.name} ${fmtBytes(e.size)} sha256 ${e.sha256.slice(0, 12)}… (${e.measured ? 'measured by the bot' : 'declared, not measured'})`;
    case 'value':
      return e.value;
    case 'yesno':
      return e.answer ? 'yes' : 'no';
  }
}

export function evidenceAsk(e: EvidenceSpec): string {
  switch (e.kind) {
    case 'file':
      return `${esc(e.label)}: a file uploaded to this thread (the bot measures its size and sha256), or its sha256 and size as typed (recorded as declared, not measured)`;
    case 'value':
      return `${esc(e.label)}: a value`;
    case 'yesno':
      return `${esc(e.question)} (yes or no)`;
  }
}

// ---------------------------------------------------------------------------------------------
// The incident's parent message

export function parentMessage(incident: Incident, view?: IncidentView, runbooks: readonly string[] = [], now: Date = new Date()): Message {
  const state = incident.status === 'closed' ? ':white_check_mark: *closed*' : ':rotating_light:';
  const head = `${state} *Incident #${incident.id}* · site *${esc(incident.site)}*${incident.drill ? ' · :test_tube: DRILL' : ''}`;
  const blocks: KnownBlock[] = [section(head), plainSection(incident.title)];
  const lines = [`opened by ${who(incident.openedBy)} ${when(incident.openedAt)}`];
  if (incident.status === 'closed' && incident.closedBy && incident.closedAt) lines.push(`closed by ${who(incident.closedBy)} ${when(incident.closedAt)}`);
  if (view?.pin) lines.push(`runbook *${esc(view.pin.runbook)}* (sha256 ${view.pin.sha256.slice(0, 12)}), steps in this thread`);
  else if (incident.status === 'open') lines.push(`start a runbook: \`/seat runbook start <runbook> ${incident.id}\`${runbooks.length ? ` (${runbooks.map(esc).join(', ')})` : ''}`);
  blocks.push(context(lines.join(' · ')));
  if (view?.pin && view.steps.length > 0) blocks.push(...packSections(checklistLines(view, now)));
  return { text: `Incident #${incident.id} at ${esc(incident.site)}: ${fit(untitled(incident), 200)}`, blocks };
}

/** The title without the site it starts with ("fv: DOWN …" at fv): the text names the site already. */
function untitled(incident: Incident): string {
  const t = incident.title.trim();
  const prefix = `${incident.site}:`;
  return t.toLowerCase().startsWith(prefix.toLowerCase()) && t.length > prefix.length ? t.slice(prefix.length).trim() : t;
}

// ---------------------------------------------------------------------------------------------
// One step

const MAX_BODY = 2600;

function bodyText(step: StepView, file: string): string {
  const md = markdownToMrkdwn(step.spec.body.trim());
  if (md.length <= MAX_BODY) return md;
  let out = '';
  for (const line of md.split('\n')) {
    if (out.length + line.length + 1 > MAX_BODY) break;
    out = out ? `${out}\n${line}` : line;
  }
  if ((out.match(/```/g)?.length ?? 0) % 2 === 1) out += '\n```';
  return `${out}\n… the rest is in ${esc(file)} (line ${step.spec.line})`;
}

export interface StepExtras {
  /** The last attempt's refusals (a fresh Done), else the refusal the journal holds. */
  refusals?: Refusal[];
  /** A line in place of the buttons while the bot works (a probe running). */
  working?: string;
  /** A line under the step (an override approved). */
  note?: string;
  /** The clock the approvals are read against. */
  now?: Date;
  /** The power log's figures and the UPS rating (shown on power steps). */
  power?: PowerFigures;
}

/** Guardrail wording holds times as ISO-8601: shown as Slack dates, like every other time. */
export function slackDates(text: string): string {
  return text.replace(/\b\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?Z\b/g, (iso) => when(iso));
}

export function stepMessage(view: IncidentView, step: StepView, extras: StepExtras = {}): Message {
  const n = view.steps.indexOf(step) + 1;
  const spec = step.spec;
  const file = view.pin?.file ?? 'the runbook';
  const now = extras.now ?? new Date();
  const blocks: KnownBlock[] = [
    section(`*Step ${n} of ${view.steps.length} · ${esc(spec.title)}*  \`${spec.id}\``),
    context(`_${esc(spec.why)}_`),
  ];
  const body = bodyText(step, file);
  if (body.trim()) blocks.push(section(body));
  if (extras.power && isPowerStep(step)) blocks.push(section(powerLine(extras.power)));
  if (spec.evidence) blocks.push(section(`:paperclip: *Needs:* ${evidenceAsk(spec.evidence)}`));
  if (step.evidence.length > 0) blocks.push(context(plain(`evidence so far: ${step.evidence.map(evidenceText).join('; ')}`)));
  const refusals = extras.refusals ?? journalRefusal(view, step);
  // Earlier refused attempts, one line each; the newest in full while it stands.
  const earlier = refusedLines(view, spec.id).slice(0, refusals.length > 0 ? -1 : undefined).slice(-3);
  if (earlier.length > 0) blocks.push(context(earlier.join('\n')));
  const approval = approvalLine(view, step, now);
  const standing = standingApproval(view, spec.id, now);
  for (const r of refusals) blocks.push(section(refusalText(r, standing !== undefined || waitingRequests(view, spec.id, now).length > 0)));
  if (approval) blocks.push(section(approval));
  if (extras.note) blocks.push(section(extras.note));
  const gates = spec.guardrails.length ? ` · gated by ${spec.guardrails.map(esc).join(', ')}` : '';
  blocks.push(context(`incident #${view.incident.id} · runbook ${esc(view.pin?.runbook ?? '?')} · ${spec.kind}${spec.action ? ` (${spec.action})` : ''}${gates}`));
  if (view.incident.status === 'closed') blocks.push(context(`not decided: the incident was closed${view.incident.closedBy ? ` by ${who(view.incident.closedBy)}` : ''}`));
  else if (extras.working) blocks.push(context(extras.working));
  else blocks.push(stepButtons(view, step, standing || waitingRequests(view, spec.id, now).length > 0 ? [] : refusals));
  return { text: `Step ${n} of ${view.steps.length}: ${esc(spec.title)} (incident #${view.incident.id})`, blocks };
}

/** The refusals of the attempt the step is blocked by, as the journal holds them (every guardrail that refused). */
function journalRefusal(view: IncidentView, step: StepView): Refusal[] {
  const s = step.state;
  if (s.state !== 'blocked') return [];
  const all = view.events.find((e) => e.seq === s.seq)?.payload.refusals;
  if (Array.isArray(all) && all.length > 0) return all as Refusal[];
  return [{ guardrail: s.guardrail, override: GUARDRAILS.get(s.guardrail)?.override ?? false, refused: s.refused, why: s.why, instead: s.instead, ...(s.waitsFor ? { waitsFor: s.waitsFor } : {}) }];
}

export function refusalText(r: Refusal, asked = false): string {
  const lines = [`:no_entry: *Refused by ${esc(r.guardrail)}:* ${slackDates(fit(r.refused, 600))}`, `*Why:* ${slackDates(fit(r.why, 600))}`];
  if (r.instead) lines.push(`*Instead:* ${slackDates(fit(r.instead, 600))}`);
  if (r.waitsFor) lines.push(`*Waits for:* ${slackDates(fit(r.waitsFor, 300))}`);
  if (r.override && !asked) lines.push('_A second on-call person may approve going past it: *Ask for override*._');
  return lines.join('\n');
}

function stepButtons(view: IncidentView, step: StepView, refusals: Refusal[]): KnownBlock {
  const ref = (): string => JSON.stringify({ incident: view.incident.id, step: step.spec.id, version: step.version } satisfies StepRef);
  const elements: types.Button[] = [
    { type: 'button', action_id: STEP_DONE, text: { type: 'plain_text', text: step.spec.kind === 'probe' ? 'Done (runs the probe)' : 'Done' }, style: 'primary', value: ref() },
    { type: 'button', action_id: STEP_SKIP, text: { type: 'plain_text', text: 'Skip' }, value: ref() },
    { type: 'button', action_id: STEP_EVIDENCE, text: { type: 'plain_text', text: 'Evidence' }, value: ref() },
  ];
  const overridable = refusals.find((r) => r.override);
  if (overridable) {
    elements.push({
      type: 'button',
      action_id: OVERRIDE_ASK,
      text: { type: 'plain_text', text: 'Ask for override' },
      style: 'danger',
      value: JSON.stringify({ incident: view.incident.id, step: step.spec.id, guardrail: overridable.guardrail }),
    });
  }
  return { type: 'actions', block_id: `step:${step.spec.id}`, elements };
}

/** What a decided step's message becomes: static lines, no buttons: who, when, what was decided. */
export function decidedMessage(view: IncidentView, step: StepView, extra?: string, power?: PowerFigures): Message {
  const n = view.steps.indexOf(step) + 1;
  const s = step.state;
  const title = `*Step ${n} of ${view.steps.length} · ${esc(step.spec.title)}*`;
  const blocks: KnownBlock[] = [];
  let text: string;
  if (s.state === 'done') {
    text = `:white_check_mark: ${title} — done by ${who(s.by)} ${when(s.at)}${s.override !== undefined ? ` · past a guardrail by override (journal #${s.override}${approverOf(view, s.override)})` : ''}`;
    blocks.push(section(text));
    const lines: string[] = [];
    const input = inputsLine(decidedInput(view, step));
    if (input) lines.push(`decided: ${input}`);
    if (s.evidence) lines.push(`evidence: ${evidenceLine(s.evidence, step)}`);
    if (lines.length > 0) blocks.push(context(lines.join('\n')));
  } else if (s.state === 'skipped') {
    text = `:fast_forward: ${title} — skipped by ${who(s.by)} ${when(s.at)}`;
    blocks.push(section(text), context(plain(`reason: ${s.reason}`)));
  } else {
    text = `${title} — ${s.state}`;
    blocks.push(section(text));
  }
  if (power && isPowerStep(step)) blocks.push(context(powerLine(power)));
  const refused = refusedLines(view, step.spec.id).slice(-3);
  if (refused.length > 0) blocks.push(context(refused.join('\n')));
  if (extra) blocks.push(context(extra));
  // The decision's short head hash: kept by whoever reads it, checked later with `seat journal verify --head`.
  const head = s.state === 'pending' ? undefined : view.events.find((e) => e.seq === s.seq)?.hash;
  if (head && s.state !== 'pending') blocks.push(context(`journal head \`${head.slice(0, 12)}\` (event #${s.seq})`));
  return { text: `Step ${n} ${s.state}: ${esc(step.spec.title)}`, blocks };
}

function approverOf(view: IncidentView, seq: number): string {
  const e = view.events.find((x) => x.seq === seq);
  return e ? `, approved by ${who(e.actor)}` : '';
}

export function finishedMessage(view: IncidentView): Message {
  const skipped = view.steps.filter((s) => s.state.state === 'skipped').length;
  const text = `:checkered_flag: Every step of *${esc(view.pin?.runbook ?? 'the runbook')}* is decided${skipped ? ` (${skipped} skipped: action items in the postmortem)` : ''}. Close it with \`/seat incident close ${view.incident.id}\`.`;
  return { text: `Every step of incident #${view.incident.id} is decided`, blocks: [section(text)] };
}

// ---------------------------------------------------------------------------------------------
// Overrides

export function overrideMessage(view: IncidentView, req: OverrideRequest, now: Date = new Date()): Message {
  const step = view.steps.find((s) => s.spec.id === req.step);
  const blocks: KnownBlock[] = [
    section(
      `:raised_hand: ${who(req.by)} asks to go past *${esc(req.guardrail)}* for step *${esc(step?.spec.title ?? req.step)}* \`${esc(req.step)}\`` +
        `\n*Exact action:* step \`${esc(req.step)}\` with \`${esc(inputText(req.input))}\` · expires ${when(req.expiresAt)} · request #${req.seq}`,
    ),
    context(plain(`reason: ${req.reason}`)),
  ];
  const st = overrideState(view, req, now);
  switch (st.state) {
    case 'approved':
      blocks.push(section(`:white_check_mark: approved by ${who(st.by)} ${when(st.at)}: anyone on call but ${who(st.by)} may now press *Done* on the step, until ${when(st.until)}`));
      break;
    case 'refused':
      blocks.push(section(`:no_entry: refused: ${fit(st.why, 500)}`));
      break;
    case 'closed': {
      const was = req.approved ? `approved by ${who(req.approved.by)}; ` : '';
      const why = st.why === 'step-decided' ? `the step was decided${st.by ? ` by ${who(st.by)}` : ''}${st.at ? ` ${when(st.at)}` : ''}` : st.why === 'expired' ? `it expired ${when(req.expiresAt)}` : `the incident was closed${st.by ? ` by ${who(st.by)}` : ''}`;
      blocks.push(section(`:lock: *closed:* ${was}${why}. Nothing more can be approved on this request.`));
      break;
    }
    case 'waiting':
      blocks.push(context(`Only another on-call person may approve it (not ${who(req.by)}).`), {
        type: 'actions',
        block_id: `override:${req.seq}`,
        elements: [{ type: 'button', action_id: OVERRIDE_APPROVE, style: 'primary', text: { type: 'plain_text', text: 'Approve' }, value: JSON.stringify({ incident: view.incident.id, request: req.seq }) }],
      });
  }
  return { text: `Override request #${req.seq}: ${esc(req.guardrail)} for step ${esc(req.step)} (${st.state})`, blocks };
}
