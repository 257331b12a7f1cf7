// The incident's parent message as a checklist: one line per runbook step with its state (done,
// skipped, refused, waiting for approval, approved, blocked, current, to do), who, and what was
// decided. Read from the journal's view and the clock alone, so it always equals the journal.
import { currentStep, type IncidentView, type StepView } from '../incident/engine.ts';
import { standingApproval, waitingRequests } from '../incident/overrides.ts';
import type { Actor } from '../incident/types.ts';
import { esc, fit } from './mrkdwn.ts';
import { decidedInput, evidenceLine, inputsLine, literal } from './step-lines.ts';
import { when, who } from './who.ts';

export type ChecklistState = 'done' | 'skipped' | 'refused' | 'waiting for approval' | 'override approved' | 'blocked' | 'current' | 'to do';

export interface StepStatus {
  state: ChecklistState;
  by?: Actor;
  at?: string;
}

export function stepStatus(view: IncidentView, step: StepView, now: Date): StepStatus {
  const s = step.state;
  if (s.state === 'done' || s.state === 'skipped') return { state: s.state, by: s.by, at: s.at };
  const standing = standingApproval(view, step.spec.id, now);
  if (standing) return { state: 'override approved', by: standing.by, at: standing.req.approved?.at ?? standing.req.at };
  const waiting = waitingRequests(view, step.spec.id, now).at(-1);
  if (waiting) return { state: 'waiting for approval', by: waiting.by, at: waiting.at };
  if (s.state === 'blocked') return { state: s.guardrail === 'person' ? 'blocked' : 'refused', by: s.by, at: s.at };
  return { state: currentStep(view) === step ? 'current' : 'to do' };
}

const ICON: Record<ChecklistState, string> = {
  done: ':white_check_mark:',
  skipped: ':fast_forward:',
  refused: ':no_entry:',
  'waiting for approval': ':hourglass:',
  'override approved': ':unlock:',
  blocked: ':construction:',
  current: ':arrow_forward:',
  'to do': ':white_small_square:',
};

/** One line per step: `✅ 3. Recover the power log — done by @ana 21:40 · power.log 312 bytes …`. */
export function checklistLines(view: IncidentView, now: Date): string[] {
  return view.steps.map((step, i) => {
    const st = stepStatus(view, step, now);
    const head = `${ICON[st.state]} ${i + 1}. ${esc(step.spec.title)} — *${st.state}*${st.by ? ` ${st.state === 'override approved' ? 'by' : st.state === 'refused' ? 'for' : st.state === 'waiting for approval' ? 'asked by' : 'by'} ${who(st.by)}` : ''}${st.at ? ` ${when(st.at)}` : ''}`;
    return `${head}${detail(view, step)}`;
  });
}

function detail(view: IncidentView, step: StepView): string {
  const s = step.state;
  if (s.state === 'skipped') return ` · ${literal(s.reason, 80)}`;
  if (s.state === 'blocked') return ` · ${s.guardrail === 'person' ? literal(s.why, 80) : `${esc(s.guardrail)}: ${fit(s.refused, 90)}`}`;
  if (s.state !== 'done') return '';
  const parts: string[] = [];
  const input = inputsLine(decidedInput(view, step));
  if (input) parts.push(input);
  if (s.evidence) parts.push(evidenceLine(s.evidence, step));
  const verdict = view.events.find((e) => e.seq === s.seq)?.payload.verdict as { status?: unknown } | undefined;
  if (typeof verdict?.status === 'string') parts.push(`probe: *${esc(verdict.status.toUpperCase())}*`);
  if (s.override !== undefined) parts.push('by override');
  return parts.length > 0 ? ` · ${parts.join(' · ')}` : '';
}
