// What one journal event says, in a line, for every front end: free text cleaned of control
// characters here; each front end escapes for its own medium and renders evidence its own way.
import type { Evidence, JournalEvent, StepInput } from '../incident/types.ts';
import { clean } from '../probes/edge/text.ts';

export function eventSummary(e: JournalEvent, evidenceText: (e: Evidence) => string): string {
  const p = e.payload;
  switch (e.kind) {
    case 'incident.opened':
      return clean(String(p.title ?? ''));
    case 'incident.closed':
      return p.reason === undefined ? '' : clean(String(p.reason));
    case 'note':
      return clean(String(p.text ?? ''));
    case 'step.skipped':
      return `skipped: ${clean(String(p.reason ?? ''))}`;
    case 'step.blocked':
      return `refused by ${String(p.guardrail)}: ${clean(String(p.refused ?? ''))}`;
    case 'step.done':
      return [p.evidence ? `evidence: ${clean(evidenceText(p.evidence as Evidence))}` : '', typeof p.override === 'number' ? `by override #${p.override}` : ''].filter(Boolean).join(' · ');
    case 'evidence':
      return p.evidence ? clean(evidenceText(p.evidence as Evidence)) : '';
    case 'runbook.pinned':
      return `${String(p.runbook)} sha256 ${String(p.sha256).slice(0, 12)}`;
    case 'override.requested':
      return `${String(p.guardrail)} for ${clean(inputText((p.input ?? {}) as StepInput))} until ${String(p.expiresAt)}: ${clean(String(p.reason ?? ''))}`;
    case 'override.approved':
      return `request #${String(p.request)}`;
    case 'override.refused':
      return `request #${String(p.request)}: ${clean(String(p.why ?? ''))}`;
    case 'probe.report': {
      const v = (p.report as { verdict?: { status?: string; headline?: string } } | undefined)?.verdict;
      return v ? `${String(v.status ?? '').toUpperCase()} ${clean(v.headline ?? '')}` : '';
    }
    case 'correction':
      return `amends #${String(e.amends)}: ${clean(String(p.text ?? ''))}`;
  }
}

/** `seat=gen host=ana-ml2 gpu=0`, or `no inputs`. */
export function inputText(input: StepInput): string {
  const parts = Object.entries(input).filter(([, v]) => v !== undefined).map(([k, v]) => `${k}=${String(v)}`);
  return parts.length > 0 ? parts.join(' ') : 'no inputs';
}
