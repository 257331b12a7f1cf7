// Block Kit rendering of the core's probe data. Stays inside Slack's limits (50 blocks a message,
// 3000 characters a section); what does not fit is summarised here and attached as a file.
import type { types } from '@slack/bolt';
import { DRILL_SOURCE, type ProbeReport, type ProbeRequest } from '../commands/probe.ts';
import { declaredText, declaredTotalText } from '../probes/gpu.ts';
import type { Finding, FindingStatus } from '../probes/types.ts';

export const MAX_BLOCKS = 50;
export const MAX_SECTION = 3000;
export const PROBE_AGAIN = 'probe_again';
/** Down aliases shown with their detail; the rest by name, the full report attached. */
export const MAX_DETAILED_ALIASES = 25;
export const ATTACHED_NOTE_START = ':paperclip:';

type KnownBlock = types.KnownBlock;

const ICON: Record<FindingStatus, string> = { up: ':large_green_circle:', down: ':red_circle:', degraded: ':large_orange_circle:', unknown: ':white_circle:' };

export interface Rendered {
  text: string; // the notification / fallback text
  blocks: KnownBlock[];
  /** True when some lines did not fit and the full report should be attached. */
  truncated: boolean;
}

/** Slack mrkdwn needs &, < and > escaped; everything we show comes from probes, so escape it all. */
export function esc(s: string): string {
  return s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

export function renderProgress(site: string, done: number, total: number, findings: Finding[], askedBy?: string): Rendered {
  const bad = findings.filter((f) => f.status === 'down' || f.status === 'degraded');
  const text = esc(`probing ${site}: ${done} of ${total}${bad.length ? `, ${bad.length} down or degraded so far` : ''} …`);
  const lines = bad.slice(0, 15).map(findingLine);
  if (bad.length > 15) lines.push(`… and ${bad.length - 15} more`);
  const blocks: KnownBlock[] = [section(`:hourglass_flowing_sand: *${text}*${askedBy ? `  (asked by <@${askedBy}>)` : ''}`)];
  if (lines.length) blocks.push(...sections(lines));
  return { text, blocks, truncated: false };
}

export function renderReport(report: ProbeReport, req: ProbeRequest, askedBy?: string): Rendered {
  const top = verdictBlocks(report);
  const footer = footerBlocks(report, req, askedBy);
  const aliases = aliasLines(report);
  const body: string[][] = [aliases.lines, seatLines(report), gpuLines(report), powerLines(report)].filter((g) => g.length > 0);

  // Fill the middle with what fits; down and degraded come first inside each group already.
  const budget = MAX_BLOCKS - top.length - footer.length - 1; // one spare for the "more attached" note
  const middle: KnownBlock[] = [];
  let truncated = aliases.shortened;
  for (const group of body) {
    for (const block of sections(group)) {
      if (middle.length < budget) middle.push(block);
      else truncated = true;
    }
    if (middle.length < budget) middle.push({ type: 'divider' });
  }
  if (middle.at(-1)?.type === 'divider') middle.pop();
  if (truncated) middle.push(section(`${ATTACHED_NOTE_START} The report is longer than one Slack message: the full report is attached in the thread.`));
  return { text: headlineText(report), blocks: [...top, ...middle, ...footer], truncated };
}

/** The verdict, the footer and the button only: for when Slack refuses the full message. */
export function renderVerdictOnly(report: ProbeReport, req: ProbeRequest, askedBy?: string): Rendered {
  const note = section(`${ATTACHED_NOTE_START} The full report is attached in the thread.`);
  return { text: headlineText(report), blocks: [...verdictBlocks(report), note, ...footerBlocks(report, req, askedBy)], truncated: true };
}

export function headlineText(report: ProbeReport): string {
  return esc(`${report.drill ? 'DRILL ' : ''}${report.verdict.status.toUpperCase()} ${report.site}: ${report.verdict.headline}`);
}

function verdictBlocks(report: ProbeReport): KnownBlock[] {
  const v = report.verdict;
  const head = v.status === 'ok' ? ':white_check_mark: *OK*' : v.status === 'down' ? ':rotating_light: *DOWN*' : ':warning: *DEGRADED*';
  const top: KnownBlock[] = [section(`${head} *${esc(report.site)}*: ${esc(v.headline)}`)];
  if (report.drill) top.unshift(section(`:test_tube: *DRILL* — fleet “${esc(report.fleet)}”: ${DRILL_SOURCE}`));
  const rest = v.lines.filter((l) => l !== v.headline);
  if (rest.length) top.push(section(rest.map((l) => `• ${esc(l)}`).join('\n')));
  return top;
}

function footerBlocks(report: ProbeReport, req: ProbeRequest, askedBy?: string): KnownBlock[] {
  const measured = esc(`${report.findings.length} findings measured in ${n(report.durationMs)} ms (per-probe timeout ${report.timeoutMs} ms) · started ${report.startedAt}`);
  return [
    ...(report.verdict.runbook ? [section(`:arrow_right: Proposed runbook: *${esc(report.verdict.runbook)}*`)] : []),
    { type: 'context', elements: [{ type: 'mrkdwn', text: measured + (askedBy ? ` · asked by <@${askedBy}>` : '') }] },
    {
      type: 'actions',
      elements: [{ type: 'button', action_id: PROBE_AGAIN, text: { type: 'plain_text', text: 'Probe again' }, value: JSON.stringify(req).slice(0, 2000) }],
    },
  ];
}

function aliasLines(report: ProbeReport): { lines: string[]; shortened: boolean } {
  const aliases = report.findings.filter((f) => f.probe === 'alias' || f.probe === 'gateway');
  if (aliases.length === 0) return { lines: [], shortened: false };
  const s = report.summary.aliases;
  const lines = [`*Aliases* — ${s.down} down, ${s.degraded} degraded, ${s.up} up of ${s.total}`];
  for (const g of aliases.filter((f) => f.probe === 'gateway' && f.status !== 'up')) lines.push(findingLine(g));
  // Down ones first, grouped by the host they route to; past a screenful, names only (the
  // attached full report has every detail).
  let detailed = 0;
  let shortened = false;
  for (const [host, names] of Object.entries(s.downByHost)) {
    lines.push(`*${esc(host)}* (${names.length} down)`);
    const rest: string[] = [];
    for (const name of names) {
      const f = aliases.find((a) => a.probe === 'alias' && a.target === name);
      if (!f) continue;
      if (detailed < MAX_DETAILED_ALIASES) {
        lines.push(findingLine(f));
        detailed += 1;
      } else rest.push(name);
    }
    if (rest.length) {
      lines.push(`${ICON.down} also down: ${esc(rest.join(', '))}`);
      shortened = true;
    }
  }
  for (const f of aliases.filter((a) => a.probe === 'alias' && (a.status === 'degraded' || a.status === 'unknown'))) lines.push(findingLine(f));
  const up = aliases.filter((a) => a.probe === 'alias' && a.status === 'up').map((a) => a.target);
  if (up.length) lines.push(`${ICON.up} up: ${esc(up.join(', '))}`);
  return { lines, shortened };
}

function seatLines(report: ProbeReport): string[] {
  const seats = report.findings.filter((f) => f.probe === 'seat');
  if (seats.length === 0) return [];
  const bad = seats.filter((f) => f.status !== 'up');
  const lines = [`*Backend seats, probed directly* — ${bad.length} of ${seats.length} not up`];
  lines.push(...bad.map(findingLine));
  const up = seats.filter((f) => f.status === 'up').map((f) => f.target);
  if (up.length) lines.push(`${ICON.up} up: ${esc(up.join(', '))}`);
  return lines;
}

function gpuLines(report: ProbeReport): string[] {
  const gpus = report.findings.filter((f) => f.probe === 'gpu');
  if (gpus.length === 0) return [];
  const floor = gpus.find((f) => f.data?.kind === 'gpu')?.data;
  const floorMiB = floor?.kind === 'gpu' ? floor.gpu.floorMiB : 0;
  const under = report.summary.gpus.underFloor.length;
  const lines = [`*GPU memory* — ${under || 'none'} under the ${n(floorMiB)} MiB free floor`];
  for (const f of gpus) {
    const g = f.data?.kind === 'gpu' ? f.data.gpu : null;
    const total = g?.totalMiB ?? null;
    const free = g?.freeMiB ?? null;
    if (!g || total === null || free === null) {
      lines.push(findingLine(f));
      continue;
    }
    const declared = g.seats.length ? ` · declared ${declaredTotalText(g.seats)}` : '';
    const width = 20;
    const usedCells = total > 0 ? Math.min(width, Math.max(0, Math.round(((total - free) / total) * width))) : 0;
    const bar = '█'.repeat(usedCells) + '░'.repeat(Math.max(0, width - usedCells));
    const seats = g.seats.map((s) => `${s.seat} ${s.measuredMiB === null ? '?' : n(s.measuredMiB)}/${declaredText(s)}`).join(', ');
    lines.push(
      `${ICON[f.status]} \`${esc(f.target)}\` \`${bar}\` used ${g.usedMiB === null ? '?' : n(g.usedMiB)}${declared} · free ${n(free)} of ${n(total)} MiB${g.marginMiB !== null && g.marginMiB < 0 ? ' — *under the floor*' : ''}${seats ? `\n      seats (measured/declared MiB): ${esc(seats)}` : ''}`,
    );
  }
  return lines;
}

function powerLines(report: ProbeReport): string[] {
  const power = report.findings.filter((f) => ['ups', 'bmc', 'firewall', 'host'].includes(f.probe));
  if (power.length === 0) return [];
  return ['*Power and out-of-band*', ...power.map(findingLine)];
}

/** A problem says how it was measured (the command or URL), so nobody has to take it on faith. */
function findingLine(f: Finding): string {
  const ms = f.latencyMs === null ? '' : ` (${Math.round(f.latencyMs)} ms)`;
  // "inferred: …" already says it was not measured; anything else is the command or URL used.
  const how = f.status === 'up' ? '' : f.measuredBy.startsWith('inferred:') ? `\n        ${esc(shorten(f.measuredBy, 300))}` : `\n        measured: \`${esc(shorten(f.measuredBy, 300)).replace(/`/g, "'")}\``;
  return `${ICON[f.status]} *${esc(f.target)}* ${esc(f.detail)}${ms}${how}`;
}

function shorten(s: string, max: number): string {
  return s.length > max ? `${s.slice(0, max - 1)}…` : s;
}

function n(x: number): string {
  return Math.round(x).toLocaleString('en-US');
}

function section(text: string): KnownBlock {
  return { type: 'section', text: { type: 'mrkdwn', text: text.length > MAX_SECTION ? `${text.slice(0, MAX_SECTION - 1)}…` : text } };
}

/** Packs lines into as few sections as fit 3000 characters each; a single huge line is cut. */
export function sections(lines: string[]): KnownBlock[] {
  const out: KnownBlock[] = [];
  let cur = '';
  for (const raw of lines) {
    const line = raw.length > MAX_SECTION ? `${raw.slice(0, MAX_SECTION - 1)}…` : raw;
    if (cur && cur.length + 1 + line.length > MAX_SECTION) {
      out.push(section(cur));
      cur = line;
    } else {
      cur = cur ? `${cur}\n${line}` : line;
    }
  }
  if (cur) out.push(section(cur));
  return out;
}
