// The report's rows as mrkdwn lines, each bounded so a section never has to cut one: what is not
// up, with how it was measured; what is up only as a count (the attached report has every row).
import type { ProbeReport } from '../commands/probe.ts';
import { fmtInt } from '../probes/edge/text.ts';
import type { Finding, FindingStatus } from '../probes/types.ts';
import { cannotFitText, floorOf, gpuBar, gpuFigures, gpuOf, seatFigures } from '../render/gpu.ts';
import { rowText } from '../render/rows.ts';
import { foldText, type SectionView } from '../render/sections.ts';
import { esc, fit } from './mrkdwn.ts';

export const ICON: Record<FindingStatus, string> = { up: ':large_green_circle:', down: ':red_circle:', degraded: ':large_orange_circle:', unknown: ':white_circle:' };
/** Not-up aliases shown with their detail; past that, by name only. */
export const MAX_DETAILED_ALIASES = 25;

const SLACK_BAR = { used: '█', free: '░', floor: '│' };

/** A row: icon, target, what was seen; a problem also says how it was measured (the command or URL). */
export function findingLine(f: Finding): string {
  const ms = f.latencyMs === null ? '' : ` (${fmtInt(Math.round(f.latencyMs))} ms)`;
  return `${ICON[f.status]} *${fit(f.target, 120)}* ${fit(rowText(f), 700)}${ms}${howLine(f)}`;
}

function howLine(f: Finding): string {
  if (f.status === 'up') return '';
  // "inferred: …" already says it was not measured; anything else is the command or URL used.
  if (f.provenance.kind === 'inferred') return `\n        ${fit(f.measuredBy, 300)}`;
  return `\n        measured: \`${fit(f.measuredBy, 300).replace(/`/g, "'")}\``;
}

function gpuLine(f: Finding): string {
  const g = gpuOf(f);
  const bar = g ? gpuBar(g, 20, SLACK_BAR) : null;
  if (!g || !bar) return findingLine(f);
  const seats = seatFigures(g);
  const cannotFit = cannotFitText(g);
  return (
    `${ICON[f.status]} \`${fit(f.target, 120)}\` \`${bar.cells}\` ${gpuFigures(g, true)}${bar.under ? ' — *under the floor*' : ''}` +
    `${seats ? `\n      seats (measured/declared MiB): ${fit(seats, 600)}` : ''}${cannotFit ? `\n      ${fit(cannotFit, 600)}` : ''}${howLine(f)}`
  );
}

function notUp(rows: Finding[]): string {
  const by = (s: FindingStatus): number => rows.filter((f) => f.status === s).length;
  const parts = (['down', 'degraded', 'unknown'] as const).filter((s) => by(s) > 0).map((s) => `${fmtInt(by(s))} ${s === 'unknown' ? 'not measured' : s}`);
  return parts.length > 0 ? parts.join(', ') : 'nothing down';
}

function header(title: string, v: SectionView, what: string): string {
  const folded = foldText(v.folds);
  return `*${title}* — ${what}${folded ? ` · ${folded}` : ''}`;
}

/** One section of the report as items: its header line, then what is not up. */
export function sectionItems(report: ProbeReport, v: SectionView): string[] {
  switch (v.id) {
    case 'aliases':
      return aliasItems(report, v);
    case 'seats':
      return [header('Backend seats, probed directly', v, notUp(v.shown)), ...v.shown.map(findingLine)];
    case 'gpus': {
      const floor = floorOf(v.findings);
      const under = report.summary.gpus.underFloor.length;
      const what = v.note ?? (floor === null ? notUp(v.shown) : `${under === 0 ? 'none' : fmtInt(under)} under the ${fmtInt(floor)} MiB free floor`);
      return [header('GPU memory', v, esc(what)), ...v.shown.map(gpuLine)];
    }
    case 'power':
      return [header('Power and out-of-band', v, notUp(v.shown)), ...v.shown.map(findingLine)];
  }
}

/** Down aliases grouped by where they route, then the rest not up; past a screenful, names only. */
function aliasItems(report: ProbeReport, v: SectionView): string[] {
  const items = [header('Gateway and aliases', v, notUp(v.shown))];
  const left = new Set(v.shown);
  for (const f of v.shown.filter((x) => x.subject.kind === 'gateway')) {
    items.push(findingLine(f));
    left.delete(f);
  }
  const byName = new Map(v.shown.flatMap((f) => (f.subject.kind === 'alias' ? [[f.subject.name, f] as const] : [])));
  let detailed = 0;
  const byRoute = (route: string, rows: Finding[], down: number): void => {
    const shown = rows.slice(0, Math.max(0, MAX_DETAILED_ALIASES - detailed));
    const named = rows.slice(shown.length).map((f) => f.target);
    const head = `*${fit(route, 120)}* (${fmtInt(down)} down)`;
    items.push(shown.length === 0 ? `${head}: ${fit(named.join(', '), 2000)}` : head, ...shown.map(findingLine));
    if (shown.length > 0 && named.length > 0) items.push(`${ICON.down} also down on ${fit(route, 120)}: ${fit(named.join(', '), 2000)}`);
    detailed += shown.length;
  };
  for (const route of report.summary.aliases.downByRoute) {
    const rows = route.aliases.flatMap((a) => {
      const f = byName.get(a);
      return f && left.has(f) ? [f] : [];
    });
    rows.forEach((f) => left.delete(f));
    if (rows.length > 0) byRoute(route.route, rows, route.aliases.length);
  }
  const rest = [...left];
  const shown = rest.slice(0, Math.max(0, MAX_DETAILED_ALIASES - detailed));
  items.push(...shown.map(findingLine));
  const named = rest.slice(shown.length).map((f) => `${f.target} (${f.status === 'unknown' ? 'not measured' : f.status})`);
  if (named.length > 0) items.push(`${ICON.degraded} also not up: ${fit(named.join(', '), 2000)}`);
  return items;
}
