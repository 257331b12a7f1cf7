// What the read commands show, privately: the incidents, one incident's journal, the runbooks.
// Journal lines hold what people typed, so they go out as plain_text: shown as typed, never pinging.
import type { types } from '@slack/bolt';
import { actorName } from '../incident/service.ts';
import type { Evidence, Incident, JournalEvent, Runbook } from '../incident/types.ts';
import { clean } from '../probes/edge/text.ts';
import { evidenceText, inputText, plain, type Message } from './incident-blocks.ts';
import { esc, fit, section } from './mrkdwn.ts';

type KnownBlock = types.KnownBlock;

/** Past this many events the oldest are counted, not listed: `seat journal N` in a terminal has all. */
const MAX_EVENTS = 60;
const MAX_PLAIN = 2900;

/** Lines packed into plain_text sections, whole lines only. */
function plainSections(lines: string[]): KnownBlock[] {
  const out: KnownBlock[] = [];
  let cur = '';
  for (const raw of lines) {
    const line = [...raw].length > 600 ? `${[...raw].slice(0, 599).join('')}…` : raw;
    if (cur && cur.length + 1 + line.length > MAX_PLAIN) {
      out.push({ type: 'section', text: plain(cur) });
      cur = line;
    } else {
      cur = cur ? `${cur}\n${line}` : line;
    }
  }
  if (cur) out.push({ type: 'section', text: plain(cur) });
  return out.slice(0, 45);
}

const hhmm = (iso: string): string => `${iso.slice(0, 10)} ${iso.slice(11, 19)}Z`;

export function incidentLine(i: Incident): string {
  const closed = i.status === 'closed' && i.closedAt ? ` · closed ${hhmm(i.closedAt)} by ${actorName(i.closedBy!)}` : '';
  return `#${i.id} [${i.status}]${i.drill ? ' DRILL' : ''} ${i.site} · ${clean(i.title)} · opened ${hhmm(i.openedAt)} by ${actorName(i.openedBy)}${closed}`;
}

export function incidentListMessage(list: Incident[], all: boolean): Message {
  if (list.length === 0) {
    const text = all ? 'No incidents in the journal.' : 'No open incidents (`/seat incident list --all` for closed ones).';
    return { text, blocks: [section(text)] };
  }
  const head = `*${all ? 'Incidents' : 'Open incidents'}* (${list.length})`;
  return { text: `${list.length} incident${list.length === 1 ? '' : 's'}`, blocks: [section(head), ...plainSections(list.map(incidentLine))] };
}

function what(e: JournalEvent): string {
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
      return `${String(p.guardrail)} for ${clean(inputText((p.input ?? {}) as never))} until ${String(p.expiresAt)}: ${clean(String(p.reason ?? ''))}`;
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

export function eventLine(e: JournalEvent): string {
  const w = what(e);
  return `${String(e.seq).padStart(3)} ${hhmm(e.happenedAt)} ${clean(actorName(e.actor)).slice(0, 24)} ${e.kind}${e.step ? ` ${e.step}` : ''}${w ? ` — ${w}` : ''}`;
}

export function journalMessage(incident: Incident, events: JournalEvent[]): Message {
  const shown = events.slice(-MAX_EVENTS);
  const left = events.length - shown.length;
  const head = `*Journal of incident #${incident.id}* — ${events.length} event${events.length === 1 ? '' : 's'}${left ? ` (the first ${left} are left out here: \`seat journal ${incident.id}\` in a terminal has every one)` : ''}`;
  return { text: `Journal of incident #${incident.id}`, blocks: [section(head), ...plainSections([incidentLine(incident), ...shown.map(eventLine)])] };
}

export function runbookListMessage(runbooks: ReadonlyMap<string, Runbook>): Message {
  if (runbooks.size === 0) return { text: 'No runbooks loaded.', blocks: [section('No runbooks loaded: `seat runbook check` in a terminal says why.')] };
  const lines = [...runbooks.values()].map((r) => `• *${esc(r.id)}* — ${fit(r.title, 120)} (${r.steps.length} step${r.steps.length === 1 ? '' : 's'}): ${fit(r.summary, 300)}`);
  return { text: `${runbooks.size} runbooks`, blocks: [section('*Runbooks* — start one with `/seat runbook start <runbook> [incident]`'), section(lines.join('\n'))] };
}
