// What the read commands show, privately: the incidents, one incident's journal, the runbooks.
// Journal lines hold what people typed, so they go out as plain_text: shown as typed, never pinging.
import type { types } from '@slack/bolt';
import { actorName } from '../incident/service.ts';
import type { Incident, JournalEvent, Runbook } from '../incident/types.ts';
import { clean } from '../probes/edge/text.ts';
import { eventSummary } from '../render/journal.ts';
import { evidenceText, plain, type Message } from './incident-blocks.ts';
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

export function eventLine(e: JournalEvent): string {
  const w = eventSummary(e, evidenceText);
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
