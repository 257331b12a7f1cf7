// The short lines a step's message and the incident's checklist are made of: what a decision
// entered (bank and watts, alias → backend, method, backup), a refused attempt in one line, the
// power log's figures beside the rating, an approval standing on the step. Values people typed are
// shown as inline code (never formatting, never a mention).
import type { IncidentView, StepView } from '../incident/engine.ts';
import { standingApproval, waitingRequests } from '../incident/overrides.ts';
import type { Evidence, PowerLogFacts, StepInput } from '../incident/types.ts';
import type { Fleet } from '../inventory/fleet.ts';
import { clean, fmtInt } from '../probes/edge/text.ts';
import { esc, fit } from './mrkdwn.ts';
import { when, who } from './who.ts';

/** Typed text as inline code: shown as typed, no formatting, no mention; at most `max` characters. */
export function literal(s: string, max = 80): string {
  const t = clean(s).replace(/`/g, 'ʼ');
  return `\`${fit(t, max)}\``;
}

const watts = (w: number): string => `${fmtInt(Math.round(w))} W`;

/** What a decision entered, in words ("bank battery · 800 W", "gen-paid → openrouter"); empty when nothing. */
export function inputsLine(input: StepInput | undefined): string {
  if (!input) return '';
  const parts: string[] = [];
  if (input.alias !== undefined || input.backend !== undefined) parts.push(`${literal(input.alias ?? '?')} → ${literal(input.backend ?? '?')}`);
  if (input.bank !== undefined) parts.push(`bank ${literal(input.bank)}`);
  if (input.loadW !== undefined) parts.push(`load ${watts(input.loadW)}`);
  if (input.method !== undefined) parts.push(`method ${literal(input.method)}`);
  if (input.backup !== undefined) parts.push(`backup ${literal(input.backup, 120)}`);
  if (input.seat !== undefined) parts.push(`seat ${literal(input.seat)}${input.host !== undefined ? ` on ${literal(input.host)}` : ''}${input.gpu !== undefined ? ` GPU ${input.gpu}` : ''}${input.wantMiB !== undefined ? `, ${fmtInt(input.wantMiB)} MiB` : ''}`);
  else if (input.host !== undefined) parts.push(`host ${literal(input.host)}`);
  if (input.action === 'probe' && input.site !== undefined) parts.push(`site ${literal(input.site)}`);
  return parts.join(' · ');
}

/** Evidence in one mrkdwn line (a yes/no says its question). */
export function evidenceLine(e: Evidence, step: StepView): string {
  switch (e.kind) {
    case 'file':
      return `${literal(e.name, 120)} ${e.size} bytes, sha256 \`${e.sha256.slice(0, 12)}…\` (${e.measured ? 'measured by the bot' : 'declared, not measured'})`;
    case 'value':
      return literal(e.value, 200);
    case 'yesno': {
      const spec = step.spec.evidence;
      return `${spec?.kind === 'yesno' ? `${esc(spec.question)} ` : ''}*${e.answer ? 'yes' : 'no'}*`;
    }
  }
}

/** The step.done payload's input (what was decided), read from the journal. */
export function decidedInput(view: IncidentView, step: StepView): StepInput | undefined {
  if (step.state.state !== 'done') return undefined;
  const seq = step.state.seq;
  return view.events.find((e) => e.seq === seq)?.payload.input as StepInput | undefined;
}

/** Every refused attempt on a step, oldest first, in one line each. */
export function refusedLines(view: IncidentView, step: string): string[] {
  const out: string[] = [];
  for (const e of view.events) {
    if (e.kind !== 'step.blocked' || e.step !== step) continue;
    const p = e.payload;
    if (p.guardrail === 'person') {
      out.push(`:construction: blocked by ${who(e.actor)} ${when(e.happenedAt)}: ${literal(String(p.why ?? ''), 200)}`);
      continue;
    }
    const input = inputsLine(p.input as StepInput | undefined);
    out.push(`:no_entry_sign: refused ${when(e.happenedAt)} for ${who(e.actor)}${input ? ` (${input})` : ''}: ${fit(String(p.refused ?? ''), 160)} — ${fit(String(p.instead || p.why || ''), 160)} _(${esc(String(p.guardrail))})_`);
  }
  return out;
}

export interface PowerFigures {
  log?: PowerLogFacts;
  ratedW?: number;
  ratedVA?: number;
}

/** The power log's figures (the newest power-log evidence in the journal) and the site's UPS rating. */
export function powerFigures(view: IncidentView, fleet: Fleet): PowerFigures {
  let log: PowerLogFacts | undefined;
  for (const e of view.events) {
    const ev = e.payload.evidence as Evidence | undefined;
    if (ev?.kind === 'file' && ev.powerlog) log = ev.powerlog;
  }
  const ups = fleet.site(view.incident.site)?.ups;
  return { ...(log ? { log } : {}), ...(ups?.ratedW !== undefined ? { ratedW: ups.ratedW } : {}), ...(ups?.ratedVA !== undefined ? { ratedVA: ups.ratedVA } : {}) };
}

/** Whether a step decides on power (its figures are shown on it, its load pre-filled). */
export function isPowerStep(step: StepView): boolean {
  return step.spec.action === 'power-sizing' || step.spec.action === 'power-plan';
}

export function powerLine(p: PowerFigures): string {
  const rating = p.ratedW !== undefined || p.ratedVA !== undefined ? `UPS rating ${[p.ratedW !== undefined ? watts(p.ratedW) : null, p.ratedVA !== undefined ? `${fmtInt(p.ratedVA)} VA` : null].filter(Boolean).join(' / ')}` : 'UPS rating not in the inventory';
  const log = p.log;
  if (!log || log.peakW === null) return `:electric_plug: *power log:* not recorded yet (no measured load) · ${rating}`;
  const peak = `peak *${watts(log.peakW)}*${log.peakAt ? ` at ${esc(log.peakAt)}` : ''}`;
  const last = log.lastWindowMeanW !== null ? `last window mean ${watts(log.lastWindowMeanW)}` : 'no last window';
  const over = p.ratedW !== undefined && log.peakW > p.ratedW ? ` — the peak is *${watts(log.peakW - p.ratedW)} over* the rating` : '';
  return `:electric_plug: *power log:* ${peak} · ${last} (${log.gpus} GPU${log.gpus === 1 ? '' : 's'}, ${fmtInt(log.samples)} samples) · ${rating}${over}`;
}

/** The approval standing on a step, as the step shows it; or the requests waiting. */
export function approvalLine(view: IncidentView, step: StepView, now: Date): string | null {
  const standing = standingApproval(view, step.spec.id, now);
  if (standing) {
    const doer = actorsBut(standing.req.by, standing.by);
    return `:unlock: override of *${esc(standing.req.guardrail)}* approved by ${who(standing.by)} until ${when(standing.until)} — ${doer} may press *Done* (request #${standing.req.seq})`;
  }
  const waiting = waitingRequests(view, step.spec.id, now);
  if (waiting.length > 0) {
    const r = waiting[waiting.length - 1]!;
    return `:hourglass: override of *${esc(r.guardrail)}* asked by ${who(r.by)} ${when(r.at)}: waiting for a second on-call person (request #${r.seq})`;
  }
  return null;
}

/** Who may act on an approval: the requester by name (the approver may not). */
function actorsBut(requester: Parameters<typeof who>[0], approver: Parameters<typeof who>[0]): string {
  return who(requester) === who(approver) ? `anyone on call but ${who(approver)}` : `${who(requester)} (or anyone on call but ${who(approver)})`;
}
