// One journal event in words for the timeline and the decision tables: what happened, in Markdown
// with every recorded text escaped, and how it is known (measured by the bot, declared by a person,
// or inferred by the bot from what was recorded).
import type { IncidentView } from '../incident/engine.ts';
import type { Evidence, JournalEvent, StepInput } from '../incident/types.ts';
import { code, hex, md } from './escape.ts';
import { snapshotOf } from './facts.ts';
import { num } from './table.ts';

export type Source = 'measured' | 'declared' | 'inferred';

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const text = (v: unknown): string => md(typeof v === 'string' ? v : v === undefined || v === null ? '' : JSON.stringify(v));

export function evidenceWords(e: Evidence, view?: IncidentView, step?: string): string {
  switch (e.kind) {
    case 'file':
      return `file ${md(String(e.name))}, ${num(Number(e.size))} bytes, sha256 ${hex(String(e.sha256))} (${e.measured ? 'measured: read and hashed by seatbelt' : 'declared: typed, not measured'})`;
    case 'value':
      return `${md(String(e.of))}: ${md(String(e.value))}`;
    case 'yesno': {
      const spec = view?.steps.find((s) => s.spec.id === step)?.spec.evidence;
      const question = spec?.kind === 'yesno' ? spec.question : String(e.of);
      return `${md(question)} **${e.answer ? 'yes' : 'no'}**`;
    }
    default:
      return text((e as { kind?: unknown }).kind);
  }
}

export function evidenceSource(e: Evidence | undefined): Source {
  return e?.kind === 'file' && e.measured === true ? 'measured' : 'declared';
}

/** The facts a move was recorded with: `bank battery, loadW 600`. */
export function inputWords(input: unknown): string {
  if (!isObject(input)) return '';
  const parts = Object.entries(input as StepInput)
    .filter(([k, v]) => k !== 'action' && v !== undefined && v !== null)
    .map(([k, v]) => `${md(k)} ${typeof v === 'number' ? num(v) : text(v)}`);
  return parts.join(', ');
}

export interface Said {
  what: string;
  source: Source;
}

export function describe(e: JournalEvent, view: IncidentView): Said {
  const p = e.payload;
  const step = e.step ? ` ${code(e.step)}` : '';
  switch (e.kind) {
    case 'incident.opened':
      return { what: `Incident opened at site ${code(String(p.site ?? view.incident.site))}: ${text(p.title ?? view.incident.title)}${p.drill === true ? ' (DRILL)' : ''}`, source: 'declared' };
    case 'incident.closed':
      return { what: `Incident closed${typeof p.reason === 'string' && p.reason ? `: ${text(p.reason)}` : ''}`, source: 'declared' };
    case 'runbook.pinned':
      return { what: `Runbook ${code(String(p.runbook))} pinned, sha256 ${hex(String(p.sha256))}`, source: 'measured' };
    case 'step.done': {
      const ev = isObject(p.evidence) ? (p.evidence as unknown as Evidence) : undefined;
      const input = inputWords(p.input);
      const extra = [
        ev ? `evidence: ${evidenceWords(ev, view, e.step)}` : '',
        input ? `with ${input}` : '',
        typeof p.report === 'number' ? `probe report #${p.report}` : '',
        typeof p.override === 'number' ? `through the override approved at #${p.override}` : '',
      ].filter(Boolean);
      return { what: `Step${step} done${extra.length ? ` — ${extra.join('; ')}` : ''}`, source: evidenceSource(ev) };
    }
    case 'step.skipped':
      return { what: `Step${step} skipped: ${text(p.reason)}`, source: 'declared' };
    case 'step.blocked': {
      if (p.guardrail === 'person') return { what: `Step${step} blocked by a person, waiting for: ${text(p.why)}`, source: 'declared' };
      const input = inputWords(p.input);
      return { what: `Step${step} refused by guardrail ${code(String(p.guardrail))}: ${text(p.refused)}${input ? ` (with ${input})` : ''}`, source: 'inferred' };
    }
    case 'evidence': {
      const ev = isObject(p.evidence) ? (p.evidence as unknown as Evidence) : undefined;
      return { what: `Evidence for step${step}: ${ev ? evidenceWords(ev, view, e.step) : '?'}`, source: evidenceSource(ev) };
    }
    case 'override.requested':
      return { what: `Override #${e.seq} asked: step${step} past ${code(String(p.guardrail))} until ${md(String(p.expiresAt))} — ${text(p.reason)}`, source: 'declared' };
    case 'override.approved':
      return { what: `Override #${text(p.request)} approved (step${step} past ${code(String(p.guardrail))})`, source: 'declared' };
    case 'override.refused':
      return { what: `Override #${text(p.request)} refused: ${text(p.why)}`, source: 'declared' };
    case 'probe.report': {
      const s = snapshotOf(e);
      if (!s) return { what: 'Probe report (unreadable)', source: 'measured' };
      const inferred = s.findings.filter((f) => f.provenance.kind !== 'measured').length;
      const runbook = s.runbook ? `; proposes ${code(s.runbook)}` : '';
      return { what: `Probe report${step ? ` for step${step}` : ''}: **${md(s.status)}** — ${md(s.headline)}${runbook} (${s.findings.length} findings${inferred ? `, ${inferred} inferred` : ''})`, source: 'measured' };
    }
    case 'note':
      return { what: `Note: ${text(p.text)}`, source: 'declared' };
    case 'correction':
      return { what: `Correction of #${e.amends ?? '?'}: ${text(p.text)}`, source: 'declared' };
    default:
      return { what: md(String(e.kind)), source: 'declared' };
  }
}
