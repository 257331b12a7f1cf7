// The postmortem as Markdown: what the journal knows filled in, what only people know left as
// marked placeholders (never invented). Section order follows the usual templates (Google SRE,
// PagerDuty, Atlassian): summary and impact, the timeline, contributing factors, what was decided,
// lessons, action items. Every recorded text is escaped (escape.ts); times are UTC.
import type { IncidentView } from '../incident/engine.ts';
import { actorName } from '../incident/service.ts';
import type { JournalEvent } from '../incident/types.ts';
import type { Fleet } from '../inventory/fleet.ts';
import { BLAMELESS_HINT, blamelessFlags } from './blameless.ts';
import { code, hex, md } from './escape.ts';
import { describe, evidenceSource, evidenceWords, inputWords, type Source } from './events.ts';
import { factsOf, type Facts, type Snapshot } from './facts.ts';
import { snapshotTables } from './snapshots.ts';
import { powerSection } from './power.ts';
import { table } from './table.ts';
import { duration, offset, seconds, utc } from '../render/time.ts';

export const TO_WRITE = '**TO WRITE**';
const FILL = '*to write*';

export interface MarkdownOptions {
  head: string;
  now: Date;
  fleet?: Fleet;
  /** Where the HTML export puts its charts: a marker line per chart, in this section. */
  charts?: string[];
}

/** A person by name; the bot's own events as seatbelt's. */
const who = (a: JournalEvent['actor']): string => (a.kind === 'probe' ? 'seatbelt (probe)' : a.kind === 'system' ? 'seatbelt' : md(actorName(a)));
const events = (n: number): string => `${n.toLocaleString('en-US')} event${n === 1 ? '' : 's'}`;
const placeholder = (what: string): string => `> ${TO_WRITE} — ${what}`;

export function renderMarkdown(view: IncidentView, o: MarkdownOptions, facts: Facts = factsOf(view)): string {
  const start = view.incident.openedAt;
  const ctx: Ctx = { view, facts, start, o };
  const sections = [
    header(ctx),
    summary(),
    impact(ctx),
    verdict(ctx),
    phases(ctx),
    timeline(ctx),
    `## Contributing factors\n\n${placeholder('What made this possible, and what made it worse: conditions in the system, the tools and the runbooks, not people. Several factors, not one root cause.')}`,
    decisions(ctx),
    refusals(ctx),
    overrides(ctx),
    snapshots(ctx),
    evidence(ctx),
    powerSection(view, o.fleet),
    runbook(ctx),
    corrections(ctx),
    lessons(),
    actionItems(ctx),
    participants(ctx),
    blameless(ctx),
    journal(ctx),
  ];
  return `${sections.filter((s) => s !== '').join('\n\n')}\n`;
}

interface Ctx {
  view: IncidentView;
  facts: Facts;
  start: string;
  o: MarkdownOptions;
}

const tplus = (c: Ctx, iso: string): string => offset(c.start, iso);

function header(c: Ctx): string {
  const i = c.view.incident;
  const drill = i.drill ? 'DRILL — ' : '';
  const lines = [`# ${drill}Postmortem: ${md(i.title)}`];
  if (i.drill) lines.push('', '> **DRILL** — this incident was opened as a drill: its probes ran against stand-ins, and nothing in it happened to the real fleet.');
  const site = c.o.fleet?.site(i.site);
  const closed = i.status === 'closed' && i.closedAt;
  const length = closed ? seconds(i.openedAt, i.closedAt!) : seconds(i.openedAt, c.o.now.toISOString());
  const rows = [
    ['Incident', `#${i.id}${i.drill ? ' (DRILL)' : ''}`],
    ['Site', `${code(i.site)}${site?.description ? ` — ${md(site.description)}` : ''}`],
    ['Status', i.status],
    ['Start', `${utc(i.openedAt)} UTC, opened by ${who(i.openedBy)}`],
    ['End', closed ? `${utc(i.closedAt!)} UTC, closed by ${i.closedBy ? who(i.closedBy) : '?'}` : `still open at export (${utc(c.o.now.toISOString())} UTC)`],
    ['Duration', length === null ? '—' : `${duration(length)}${closed ? '' : ' so far'}`],
    ['Runbook', c.view.pin ? `${code(c.view.pin.runbook)}, sha256 ${hex(c.view.pin.sha256)}` : 'none pinned'],
    ['Journal head', `${hex(c.o.head)} (${events(c.view.events.length)})`],
    ['Exported', `${utc(c.o.now.toISOString())} UTC`],
  ];
  lines.push('', table(['', ''], rows.map(([k, v]) => [`**${k}**`, v ?? ''])));
  lines.push('', `Times are UTC; T+ is the time since the incident was opened. Each timeline entry says how it is known: *measured* (read by seatbelt itself: probe reports, files it hashed), *declared* (typed or chosen by a person) or *inferred* (concluded by seatbelt from what was recorded). Sections marked ${TO_WRITE} are for the people who were there: seatbelt does not guess them.`);
  return lines.join('\n');
}

function summary(): string {
  return `## Summary\n\n${placeholder('What happened, in two or three sentences: what users saw, what broke, how it was brought back.')}`;
}

function impact(c: Ctx): string {
  const lines = ['## Impact', '', placeholder('Who was affected and how (which callers, which aliases, how many requests), for how long, and what it cost.')];
  const worst = worstAliases(c.facts.snapshots);
  const known: string[] = [];
  if (worst) known.push(`- At worst (probe report #${worst.s.seq}, ${utc(worst.s.at)} UTC, ${tplus(c, worst.s.at)}): ${worst.down} of ${worst.total} aliases not up.`);
  const p = c.facts.phases;
  if (p.mitigated) known.push(`- Measured impact from ${utc(p.impact.at)} to ${utc(p.mitigated.at)} UTC (${duration(seconds(p.impact.at, p.mitigated.at) ?? 0)}), by the probe reports.`);
  else known.push('- No probe report after the impact began came back ok: the end of the impact is not measured.');
  if (known.length > 0) lines.push('', 'What the journal measured:', '', ...known);
  return lines.join('\n');
}

function worstAliases(snaps: Snapshot[]): { s: Snapshot; down: number; total: number } | null {
  let best: { s: Snapshot; down: number; total: number } | null = null;
  for (const s of snaps) {
    const aliases = s.findings.filter((f) => f.subject.kind === 'alias');
    if (aliases.length === 0) continue;
    const down = aliases.filter((f) => f.status !== 'up').length;
    if (!best || down > best.down) best = { s, down, total: aliases.length };
  }
  return best;
}

function verdict(c: Ctx): string {
  const last = c.facts.snapshots.at(-1);
  if (!last) return '## Verdict\n\nNo probe report was recorded in this incident: there is no measured verdict.';
  const lines = [
    '## Verdict',
    '',
    `From the latest probe report (#${last.seq}, ${utc(last.at)} UTC, ${tplus(c, last.at)}, measured): **${md(last.status)}** — ${md(last.headline)}`,
    '',
    `Runbook it proposes: ${last.runbook ? code(last.runbook) : 'none'}.`,
  ];
  const rest = last.lines.filter((l) => l !== last.headline);
  if (rest.length > 0) lines.push('', ...rest.map((l) => `- ${md(l)}`));
  return lines.join('\n');
}

function phases(c: Ctx): string {
  const p = c.facts.phases;
  const rows = [
    ['IMPACT BEGINS', utc(p.impact.at), tplus(c, p.impact.at), p.impact.from === 'report' ? `first probe report not ok (#${p.impact.seq})` : p.impact.from === 'alert' ? `the alert that opened the incident began firing (#${p.impact.seq})` : `no probe report was not ok: taken as the opening (#${p.impact.seq})`],
    ['DECLARED', utc(p.declared.at), tplus(c, p.declared.at), `incident opened (#${p.declared.seq}) by ${who(c.view.incident.openedBy)}`],
    p.mitigated ? ['MITIGATED', utc(p.mitigated.at), tplus(c, p.mitigated.at), `first probe report ok after the impact began (#${p.mitigated.seq})`] : ['MITIGATED', '', '', 'no probe report came back ok after the impact began'],
    p.resolved ? ['RESOLVED', utc(p.resolved.at), tplus(c, p.resolved.at), `incident closed (#${p.resolved.seq})${c.view.incident.closedBy ? ` by ${who(c.view.incident.closedBy)}` : ''}`] : ['RESOLVED', '', '', 'still open'],
  ];
  const t = c.facts.times;
  // A span that would run backwards was not measured: never a negative time (the impact's start is unknown).
  const span = (s: number | null, what: string): string => (s === null ? '—' : s < 0 ? `not measured (${what})` : duration(s));
  const times = [
    ['Time to detect (impact begins → declared)', span(t.detect, 'declared before any probe measured the impact')],
    ['Time to mitigate (impact begins → mitigated)', span(t.mitigate, '')],
    ['Time to resolve (impact begins → resolved)', span(t.resolve, '')],
  ];
  return ['## Phases and times', '', table(['Phase', 'UTC', 'T+', 'From'], rows.map((r) => [`**${r[0]}**`, ...r.slice(1)])), '', table(['Time to', ''], times, ['l', 'r'])].join('\n');
}

interface Row {
  at: string;
  seq: number;
  rank: number;
  cells: string[];
}

function timeline(c: Ctx): string {
  const rows: Row[] = [];
  const p = c.facts.phases;
  const marker = (name: string, iso: string, seq: number, why: string): void => {
    rows.push({ at: iso, seq, rank: 0, cells: ['', utc(iso), tplus(c, iso), 'seatbelt', `**${name}** — ${why}`, 'inferred'] });
  };
  marker('IMPACT BEGINS', p.impact.at, p.impact.seq, p.impact.from === 'report' ? 'first probe report not ok' : p.impact.from === 'alert' ? 'the alert began firing' : 'no probe report was not ok: the opening');
  marker('DECLARED', p.declared.at, p.declared.seq, 'the incident is opened');
  if (p.mitigated) marker('MITIGATED', p.mitigated.at, p.mitigated.seq, 'first probe report ok after the impact began');
  if (p.resolved) marker('RESOLVED', p.resolved.at, p.resolved.seq, 'the incident is closed');
  for (const e of c.view.events) {
    const said = describe(e, c.view);
    let what = said.what;
    const amended = c.facts.corrections.get(e.seq);
    if (amended) what = `~~${what}~~ → corrected at ${amended.map((x) => `#${x.seq} by ${who(x.actor)}: ${md(String(x.payload.text ?? ''))}`).join('; ')}`;
    const late = seconds(e.happenedAt, e.recordedAt);
    if (late !== null && late >= 60) what += ` (recorded ${duration(late)} later)`;
    rows.push({ at: e.happenedAt, seq: e.seq, rank: 1, cells: [`#${e.seq}`, utc(e.happenedAt), tplus(c, e.happenedAt), who(e.actor), what, sourceWord(said.source)] });
  }
  rows.sort((a, b) => (a.at < b.at ? -1 : a.at > b.at ? 1 : a.seq - b.seq || a.rank - b.rank));
  return ['## Timeline', '', table(['#', 'UTC', 'T+', 'Who', 'What', 'How known'], rows.map((r) => r.cells), ['r', 'l', 'r', 'l', 'l', 'l'])].join('\n');
}

const sourceWord = (s: Source): string => s;

function decisions(c: Ctx): string {
  const specs = new Map(c.view.steps.map((s) => [s.spec.id, s.spec]));
  const requests = new Map(c.view.overrides.map((r) => [r.seq, r]));
  const rows: string[][] = [];
  for (const e of c.view.events) {
    const p = e.payload;
    const step = e.step ? code(e.step) : '—';
    let decision: string;
    let why: string;
    switch (e.kind) {
      case 'step.done': {
        const ev = typeof p.evidence === 'object' && p.evidence !== null ? (p.evidence as Parameters<typeof evidenceWords>[0]) : undefined;
        const input = inputWords(p.input);
        decision = ['done', input ? `with ${input}` : '', ev ? `evidence ${evidenceWords(ev, c.view, e.step)}` : '', typeof p.override === 'number' ? `through override approval #${p.override}` : ''].filter(Boolean).join('; ');
        const spec = e.step ? specs.get(e.step) : undefined;
        why = spec ? `runbook: ${md(spec.why)}` : '—';
        break;
      }
      case 'step.skipped':
        decision = 'skipped';
        why = md(String(p.reason ?? ''));
        break;
      case 'override.requested':
        decision = `asked to go past ${code(String(p.guardrail))}${inputWords(p.input) ? ` with ${inputWords(p.input)}` : ''}`;
        why = md(String(p.reason ?? ''));
        break;
      case 'override.approved': {
        const req = requests.get(Number(p.request));
        decision = `approved override #${md(String(p.request))} past ${code(String(p.guardrail))}`;
        why = req ? `asked by ${who(req.by)}: ${md(req.reason)}` : '—';
        break;
      }
      case 'override.refused':
        decision = `refused override #${md(String(p.request))}`;
        why = md(String(p.why ?? ''));
        break;
      case 'incident.closed':
        decision = 'closed the incident';
        why = typeof p.reason === 'string' && p.reason ? md(p.reason) : '—';
        break;
      default:
        continue;
    }
    rows.push([`#${e.seq}`, utc(e.happenedAt), tplus(c, e.happenedAt), who(e.actor), step, decision, why]);
  }
  if (rows.length === 0) return '## Decisions\n\nNo decision was recorded.';
  return ['## Decisions', '', table(['#', 'UTC', 'T+', 'Who', 'Step', 'Decision', 'Why'], rows, ['r', 'l', 'r', 'l', 'l', 'l', 'l'])].join('\n');
}

function refusals(c: Ctx): string {
  const rows: string[][] = [];
  for (const e of c.view.events) {
    if (e.kind !== 'step.blocked') continue;
    const p = e.payload;
    const list = Array.isArray(p.refusals) && p.refusals.length > 0 ? (p.refusals as Record<string, unknown>[]) : [p];
    for (const r of list) {
      const waits = typeof r.waitsFor === 'string' && r.waitsFor ? ` Waits for: ${md(r.waitsFor)}.` : '';
      const over = r.guardrail === 'person' ? 'a person’s block' : r.override === true ? 'yes, by a second person' : r.override === false ? 'none' : '—';
      rows.push([`#${e.seq}`, utc(e.happenedAt), tplus(c, e.happenedAt), who(e.actor), e.step ? code(e.step) : '—', code(String(r.guardrail)), md(String(r.refused ?? '')), md(String(r.why ?? '')), `${md(String(r.instead ?? ''))}${waits}`, over]);
    }
  }
  if (rows.length === 0) return '## Guardrail refusals\n\nNo move was refused.';
  return ['## Guardrail refusals', '', table(['#', 'UTC', 'T+', 'Tried by', 'Step', 'Guardrail', 'Refused', 'Why', 'Instead', 'Override'], rows, ['r', 'l', 'r'])].join('\n');
}

function overrides(c: Ctx): string {
  if (c.view.overrides.length === 0) return '## Overrides\n\nNo override was asked for.';
  const used = new Map<number, JournalEvent>();
  for (const e of c.view.events) if (e.kind === 'step.done' && typeof e.payload.override === 'number') used.set(e.payload.override, e);
  const rows = c.view.overrides.map((r) => {
    let outcome: string;
    if (r.approved) {
      const u = used.get(r.approved.seq);
      outcome = u ? `used: step done at #${u.seq} by ${who(u.actor)}` : 'approved, not used';
    } else if (r.refused) outcome = `refused by ${who(r.refused.by)} (#${r.refused.seq}): ${md(r.refused.why)}`;
    else outcome = c.o.now.getTime() > Date.parse(r.expiresAt) ? 'expired without approval' : 'waiting for approval';
    const approved = r.approved ? `${who(r.approved.by)} at ${utc(r.approved.at)} (#${r.approved.seq})` : '—';
    return [`#${r.seq}`, code(r.guardrail), code(r.step), inputWords(r.input) || '—', `${who(r.by)} at ${utc(r.at)}`, md(r.reason), approved, utc(r.expiresAt), outcome];
  });
  return ['## Overrides', '', 'An override lets one exact move past one guardrail for 15 minutes; a second on-call person, not the one who asked, must approve it.', '', table(['Request', 'Guardrail', 'Step', 'Move', 'Asked by', 'Reason', 'Approved by', 'Expires', 'Outcome'], rows)].join('\n');
}

function snapshots(c: Ctx): string {
  const out = ['## Probe snapshots'];
  if (c.o.charts && c.o.charts.length > 0) out.push('', '### Charts', '', ...c.o.charts.flatMap((m) => [m, '']));
  else if (c.facts.snapshots.length > 0) out.push('', 'Charts of each GPU’s memory and of the UPS load over the incident are in the HTML export (`seat export --format html`).');
  if (c.facts.snapshots.length === 0) out.push('', 'No probe report was recorded in this incident.');
  for (const s of c.facts.snapshots) {
    out.push('', `### Report #${s.seq} — ${utc(s.at)} UTC (${tplus(c, s.at)}), ${s.site ? `site ${code(s.site)}, ` : ''}${s.step ? `step ${code(s.step)}, ` : ''}**${md(s.status)}**`, '', md(s.headline));
    for (const part of snapshotTables(s)) out.push('', part);
  }
  return out.join('\n').replace(/\n{3,}/g, '\n\n');
}

function evidence(c: Ctx): string {
  if (c.facts.evidence.length === 0) return '## Evidence\n\nNo evidence was recorded besides the probe reports.';
  const rows = c.facts.evidence.map((r) => [`#${r.seq}`, utc(r.at), who(r.by), r.step ? code(r.step) : '—', evidenceWords(r.evidence, c.view, r.step), evidenceSource(r.evidence), r.finished ? 'finished the step' : 'added to the step']);
  const reports = c.facts.snapshots.map((s) => `#${s.seq}`);
  return ['## Evidence', '', table(['#', 'UTC', 'By', 'Step', 'Evidence', 'How known', ''], rows, ['r']), '', `Probe reports stored as evidence: ${reports.length > 0 ? reports.join(', ') : 'none'} (see Probe snapshots).`].join('\n');
}

function runbook(c: Ctx): string {
  const pin = c.view.pin;
  if (!pin) return '## Runbook\n\nNo runbook was pinned to this incident.';
  const pins = c.view.events.filter((e) => e.kind === 'runbook.pinned');
  const first = pins[0];
  const lines = [
    '## Runbook',
    '',
    `${code(pin.runbook)} — ${md(pin.spec.title)} (${code(pin.file)}), pinned at #${first?.seq ?? pin.seq}${first ? ` by ${who(first.actor)}` : ''}. The incident followed the text as pinned, whose sha256 is ${hex(pin.sha256)}: \`sha256sum ${pin.file.replace(/[^\w./-]/g, '')}\` shows whether the file of today is still that text.`,
  ];
  if (pins.length > 1) lines.push('', `Re-pinned ${pins.length - 1} time(s): ${pins.slice(1).map((e) => `#${e.seq} (sha256 ${hex(String(e.payload.sha256))})`).join(', ')}.`);
  const rows = c.view.steps.map((s, i) => {
    const st = s.state;
    const state = st.state === 'pending' ? 'not done' : st.state === 'blocked' ? `refused by ${code(st.guardrail)} (last try)` : st.state;
    const by = st.state === 'pending' ? '—' : `${who(st.by)} (#${st.seq})`;
    const when = st.state === 'pending' ? '—' : utc(st.at);
    return [String(i + 1), code(s.spec.id), md(s.spec.title), state, by, when];
  });
  lines.push('', table(['', 'Step', 'Title', 'State', 'By', 'UTC'], rows, ['r']));
  return lines.join('\n');
}

function corrections(c: Ctx): string {
  if (c.facts.corrections.size === 0) return '## Corrections\n\nNothing recorded was corrected.';
  const lines = ['## Corrections', '', 'The journal never changes an event: a correction is a new event that amends an old one. The amended text is struck through.', ''];
  const list = [...c.facts.corrections.entries()].flatMap(([seq, cs]) => cs.map((x) => ({ seq, x })));
  list.sort((a, b) => a.x.seq - b.x.seq);
  for (const { seq, x } of list) {
    const old = c.facts.bySeq.get(seq);
    const was = old ? `~~${describe(old, c.view).what}~~ (#${seq}, ${who(old.actor)}, ${utc(old.happenedAt)} UTC)` : `#${seq} (not in this incident)`;
    lines.push(`- #${x.seq} by ${who(x.actor)} at ${utc(x.happenedAt)} UTC: ${was} → ${md(String(x.payload.text ?? ''))}`);
  }
  return lines.join('\n');
}

function lessons(): string {
  return [
    '## Lessons',
    '',
    '### What went well',
    '',
    placeholder('What helped: tools, runbook steps, guardrails, people, luck of timing that is worth keeping.'),
    '',
    '### What went wrong',
    '',
    placeholder('What made it harder or longer: gaps in tools, alerts, runbooks or the fleet’s design (not people).'),
    '',
    '### Where we got lucky',
    '',
    placeholder('What could have been worse, and what would have made it so.'),
  ].join('\n');
}

function actionItems(c: Ctx): string {
  const rows: string[][] = [];
  for (const s of c.view.steps) {
    const st = s.state;
    if (st.state === 'skipped') rows.push([FILL, `Step ${code(s.spec.id)} (${md(s.spec.title)}) was skipped by ${who(st.by)} at ${utc(st.at)} UTC: ${md(st.reason)}`, FILL, FILL, FILL, `#${st.seq}`]);
    else if (st.state === 'pending' || st.state === 'blocked') rows.push([FILL, `Step ${code(s.spec.id)} (${md(s.spec.title)}) was left ${st.state === 'blocked' ? `refused by ${code(st.guardrail)}` : 'not done'}`, FILL, FILL, FILL, st.state === 'blocked' ? `#${st.seq}` : '—']);
  }
  rows.push([FILL, `${TO_WRITE} — each fix that would make this less likely or less harmful`, FILL, FILL, FILL, '—']);
  return ['## Action items', '', `Type is one of: prevent, mitigate, detect, process. Skipped and unfinished steps are listed first; owner, priority and due are ${TO_WRITE}.`, '', table(['Type', 'Item', 'Owner', 'Priority', 'Due', 'From'], rows)].join('\n');
}

function participants(c: Ctx): string {
  if (c.facts.participants.length === 0) return '## Participants\n\nNo person recorded anything.';
  const rows = c.facts.participants.map((p) => [who(p.actor), utc(p.first), utc(p.last), [...p.did.entries()].map(([k, n]) => `${k} ${n}`).join(', ')]);
  return ['## Participants', '', table(['Person', 'First', 'Last', 'Recorded'], rows)].join('\n');
}

function blameless(c: Ctx): string {
  const flags = blamelessFlags(c.view);
  const head = '## Blameless language check\n\nPhrases that put the weight on a person rather than on the system (“should have”, “failed to”, “human error”), in what people wrote.';
  if (flags.length === 0) return `${head} None found.`;
  const rows = flags.map((f) => [`#${f.seq}`, who(f.by), md(f.field), `“${md(f.phrase)}”`, md(f.text), md(BLAMELESS_HINT[f.phrase] ?? '')]);
  return [head, '', table(['#', 'Who', 'Field', 'Phrase', 'Text', 'Try instead'], rows, ['r'])].join('\n');
}

function journal(c: Ctx): string {
  const last = c.view.events.at(-1);
  return [
    '## Journal',
    '',
    `This document was made from the ${events(c.view.events.length)} of incident #${c.view.incident.id}${last ? ` (#1 to #${last.seq})` : ''}. The hash of the last one, which chains every event before it, is:`,
    '',
    `    ${/^[0-9a-f]{64}$/.test(c.o.head) ? c.o.head : md(c.o.head)}`,
    '',
    `\`seat journal verify ${c.view.incident.id}\` recomputes every hash and prints the first 12 characters of this one (\`${/^[0-9a-f]{12}/.test(c.o.head) ? c.o.head.slice(0, 12) : '?'}\`): if they differ, the journal changed after this export.`,
    ...(last && last.hash !== c.o.head ? ['', `**Note:** this head is not the hash of event #${last.seq}, the last one shown here (${hex(last.hash)}): the journal moved while this was exported. Export again.`] : []),
  ].join('\n');
}
