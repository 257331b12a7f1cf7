// Block Kit rendering of the core's probe data. Leads with the verdict and what to do, lists what
// is not up, folds the rest into counts; the whole plain-text report goes in the thread. Stays
// inside Slack's limits: 50 blocks a message, 3000 characters a section, sections end on lines.
import type { types } from '@slack/bolt';
import { DRILL_SOURCE, type ProbeReport, type ProbeRequest } from '../commands/probe.ts';
import { vantagesText } from '../render/vantage.ts';
import { fmtInt } from '../probes/edge/text.ts';
import type { Finding } from '../probes/types.ts';
import { gatewayViewNote, nextStep, probeCommand } from '../render/next.ts';
import { runbookWhy } from '../diagnose/runbooks.ts';
import { foldedCount, sectionViews, tally } from '../render/sections.ts';
import { MAX_SECTION, esc, fit, packSections, section } from './mrkdwn.ts';
import { PHONE_CHARS, PHONE_ROWS, phoneLines, shownChars } from './phone-report.ts';
import { findingLine, sectionItems } from './rows.ts';

export { MAX_SECTION, esc } from './mrkdwn.ts';

export const MAX_BLOCKS = 50;
export const PROBE_AGAIN = 'probe_again';
/** The probe report's offer of the runbook it proposes. */
export const START_RUNBOOK = 'seat_runbook_start';
export const ATTACHED_NOTE_START = ':paperclip:';
/** Verdict lines get at most this many sections; the attached report has the rest. */
const MAX_VERDICT_SECTIONS = 3;

type KnownBlock = types.KnownBlock;
type Button = types.Button;

export interface Rendered {
  text: string; // the notification / fallback text
  blocks: KnownBlock[];
  /** True when something was folded or left out: the full report goes in the thread. */
  attach: boolean;
}

export function renderProgress(site: string, done: number, total: number, findings: Finding[], askedBy?: string): Rendered {
  const bad = findings.filter((f) => f.status === 'down' || f.status === 'degraded');
  const text = esc(`probing ${site}: ${done} of ${total}${bad.length ? `, ${bad.length} down or degraded so far` : ''} …`);
  const lines = bad.slice(0, 15).map(findingLine);
  if (bad.length > 15) lines.push(`… and ${bad.length - 15} more`);
  const blocks: KnownBlock[] = [section(`:hourglass_flowing_sand: *${text}*${askedBy ? `  (asked by <@${askedBy}>)` : ''}`)];
  if (lines.length) blocks.push(...packSections(lines));
  return { text, blocks, attach: false };
}

export function renderReport(report: ProbeReport, req: ProbeRequest, askedBy?: string): Rendered {
  const verdict = verdictBlocks(report);
  const footer = footerBlocks(report, req, askedBy);
  const views = sectionViews(report.findings, false);
  const budget = MAX_BLOCKS - verdict.blocks.length - footer.length - 1; // one for the attachment note
  const middle: KnownBlock[] = [];
  let leftOut = 0;
  for (const v of views) {
    for (const block of packSections(sectionItems(report, v))) {
      if (middle.length < budget) middle.push(block);
      else leftOut += 1;
    }
    if (middle.length < budget) middle.push({ type: 'divider' });
  }
  if (middle.at(-1)?.type === 'divider') middle.pop();
  const folded = foldedCount(views);
  const attach = folded > 0 || leftOut > 0 || verdict.cut;
  if (attach) middle.push(section(attachmentNote(folded, leftOut > 0 || verdict.cut)));
  const full = [...verdict.blocks, ...middle, ...footer];
  // A few rows are shown as rows; more than a phone takes are folded by host and cause.
  const notUp = report.findings.filter((f) => f.status === 'down' || f.status === 'degraded').length;
  if (notUp <= PHONE_ROWS && shownChars(full) <= PHONE_CHARS) return { text: headlineText(report), blocks: full, attach };
  return { text: headlineText(report), blocks: phoneBlocks(report, footer), attach: true };
}

/** Too much for a phone: the verdict, at most three folded lines, what to do, the attached report. */
function phoneBlocks(report: ProbeReport, footer: KnownBlock[]): KnownBlock[] {
  const v = report.verdict;
  const blocks: KnownBlock[] = [];
  if (report.drill) blocks.push({ type: 'context', elements: [{ type: 'mrkdwn', text: `:test_tube: *DRILL* — fleet “${fit(report.fleet, 80)}”: ${DRILL_SOURCE}` }] });
  blocks.push(section(`${verdictHead(report)} *${fit(report.site, 80)}*: ${fit(v.headline, 600)}`));
  const lines = phoneLines(report.findings, v.lines.filter((l) => l !== v.headline));
  if (lines.length > 0) blocks.push(section(lines.join('\n')));
  blocks.push(section(nextText(report)), section(`${ATTACHED_NOTE_START} The full report is attached in the thread, every row and command line whole.`));
  return [...blocks, ...footer];
}

function verdictHead(report: ProbeReport): string {
  const s = report.verdict.status;
  return s === 'ok' ? ':white_check_mark: *OK*' : s === 'down' ? ':rotating_light: *DOWN*' : ':warning: *DEGRADED*';
}

/** The verdict, what to do, the footer and the button only: for when Slack refuses the full message. */
export function renderVerdictOnly(report: ProbeReport, req: ProbeRequest, askedBy?: string): Rendered {
  const note = section(`${ATTACHED_NOTE_START} The full report is attached in the thread.`);
  return { text: headlineText(report), blocks: [...verdictBlocks(report).blocks, note, ...footerBlocks(report, req, askedBy)], attach: true };
}

export function headlineText(report: ProbeReport): string {
  return fit(`${report.drill ? 'DRILL ' : ''}${report.verdict.status.toUpperCase()} ${report.site}: ${report.verdict.headline}`, MAX_SECTION);
}

/** An ephemeral reply has no thread to attach to: the note says where else to look. */
export function withoutAttachment(blocks: KnownBlock[], site: string): KnownBlock[] {
  return blocks.map((b) =>
    b.type === 'section' && b.text?.text.startsWith(ATTACHED_NOTE_START)
      ? section(`${ATTACHED_NOTE_START} Rows that are up are folded into counts here: for every row, run \`${esc(probeCommand('seat', site, {}, ['--all']))}\` in a terminal.`)
      : b,
  );
}

function attachmentNote(folded: number, leftOut: boolean): string {
  const what = [folded > 0 ? `${fmtInt(folded)} up, folded into counts` : '', leftOut ? 'what did not fit here' : ''].filter(Boolean).join(', and ');
  return `${ATTACHED_NOTE_START} Every row (${what}) is in the full report attached in the thread.`;
}

function verdictBlocks(report: ProbeReport): { blocks: KnownBlock[]; cut: boolean } {
  const v = report.verdict;
  const head = v.status === 'ok' ? ':white_check_mark: *OK*' : v.status === 'down' ? ':rotating_light: *DOWN*' : ':warning: *DEGRADED*';
  const blocks: KnownBlock[] = [];
  if (report.drill) blocks.push(section(`:test_tube: *DRILL* — fleet “${fit(report.fleet, 80)}”: ${DRILL_SOURCE}`));
  blocks.push(section(`${head} *${fit(report.site, 80)}*: ${fit(v.headline, 1500)}`));
  const rest = packSections(v.lines.filter((l) => l !== v.headline).map((l) => `• ${fit(l, 700)}`));
  blocks.push(...rest.slice(0, MAX_VERDICT_SECTIONS), section(nextText(report)));
  return { blocks, cut: rest.length > MAX_VERDICT_SECTIONS };
}

/** What to do now: another site's fault first, one line each with its own command (never the next step
 * here), then the proposed runbook, else probe again, else nothing. */
function nextText(report: ProbeReport): string {
  const elsewhere = (report.verdict.elsewhere ?? []).flatMap((p) =>
    p.runbook && p.sites[0] ? [`:arrow_upper_right: *Elsewhere:* \`/seat runbook start ${esc(p.runbook)} --site ${esc(p.sites[0])}\` — ${esc(runbookWhy(p.runbook))} (site *${esc(p.sites[0])}*, ${gatewayViewNote(`/seat probe ${esc(p.sites[0])}`)})\n`] : [],
  );
  return `${elsewhere.join('')}${nextLine(report)}`;
}

function nextLine(report: ProbeReport): string {
  const step = nextStep(report);
  switch (step.kind) {
    case 'runbook':
      return `:arrow_right: *Next:* start runbook *${esc(step.runbook)}*${step.site && step.site !== report.site ? ` at *${esc(step.site)}*` : ''} — ${esc(step.why)}${step.logsOf.length > 0 ? `; its log: ${step.logsOf.map((x) => `\`/seat diagnose --seat ${esc(x)}\``).join(', ')}` : ''}`;
    case 'reprobe':
      return ':arrow_right: *Next:* no runbook fits: deal with what is not up below, then press *Probe again*';
    case 'nothing':
      return ':arrow_right: *Next:* nothing: every check is up';
  }
}

/** "Start runbook site-dark": opens an incident at the probed site (titled by the verdict) and posts its first step. */
function startButton(report: ProbeReport): Button[] {
  const next = nextStep(report);
  if (next.kind !== 'runbook') return [];
  // The site the proposal's facts are about (a probe of all sites may propose for one of them).
  const site = next.site ?? report.site;
  const value = { runbook: next.runbook, site, title: cutText(`${site}: ${report.verdict.headline}`, 190) };
  return [{ type: 'button', action_id: START_RUNBOOK, style: 'primary', text: { type: 'plain_text', text: `Start runbook ${next.runbook}` }, value: JSON.stringify(value) }];
}

function cutText(s: string, max: number): string {
  const chars = [...s];
  return chars.length <= max ? s : `${chars.slice(0, max - 1).join('')}…`;
}

function footerBlocks(report: ProbeReport, req: ProbeRequest, askedBy?: string): KnownBlock[] {
  const what = tally(report.findings);
  const measured = fit(
    `${fmtInt(report.findings.length)} findings measured in ${fmtInt(report.durationMs)} ms${what ? ` (${what})` : ''}, per-probe timeout ${fmtInt(report.timeoutMs)} ms${(report.askedFirst ?? 0) > 0 ? ` (${fmtInt(report.askedFirst ?? 0)} that cost it last time asked first)` : ''} · started ${report.startedAt}${vantagesText(report) ? ` · ${esc(vantagesText(report))}` : ''}`,
    2000,
  );
  return [
    { type: 'context', elements: [{ type: 'mrkdwn', text: measured + (askedBy ? ` · asked by <@${askedBy}>` : '') }] },
    {
      type: 'actions',
      elements: [
        ...startButton(report),
        { type: 'button', action_id: PROBE_AGAIN, text: { type: 'plain_text', text: 'Probe again' }, value: JSON.stringify(req).slice(0, 2000) },
      ],
    },
  ];
}
