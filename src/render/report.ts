// The probe report as plain text: what the terminal prints (painted there) and what the Slack bot
// attaches. The sections come first and the verdict last, so the last screen of a terminal shows
// the verdict, what to run next and where the details are.
import { format } from 'date-fns/format';
import { DRILL_SOURCE, waitAfterStartup, type ProbeReport } from '../commands/probe.ts';
import { fmtInt } from '../probes/edge/text.ts';
import { runbookWhy } from '../diagnose/runbooks.ts';
import { onePerSubject } from '../diagnose/vantage-subjects.ts';
import { PLAIN, type Paint } from './marks.ts';
import { gatewayViewNote, nextStep, nextText, probeCommand, startCommand, type ProbeScope } from './next.ts';
import { barLine, findingLine } from './rows.ts';
import { foldText, foldedCount, sectionViews, tally } from './sections.ts';
import { vantagesText } from './vantage.ts';

export interface ReportTextOptions {
  /** Every row; otherwise rows that are up fold into a count per section. */
  all?: boolean;
  /** The sections; off when every row was already streamed one a line (piped). */
  sections?: boolean;
  paint?: Paint;
  /** The probe as asked, so the suggested commands repeat its scope. */
  scope?: ProbeScope;
  /** How a person runs a command where this text is read. */
  program?: string;
}

export function reportText(report: ProbeReport, o: ReportTextOptions = {}): string {
  const paint = o.paint ?? PLAIN;
  const all = o.all === true;
  const withSections = o.sections !== false;
  const views = withSections ? sectionViews(report.findings, all) : [];
  const out: string[] = [];
  for (const v of views) {
    out.push(`${paint.strong(`${v.title}:`)}`);
    if (v.note) out.push(`  ${v.note}`);
    for (const f of v.shown) {
      out.push(`  ${findingLine(f, paint)}`);
      const bar = barLine(f, paint);
      if (bar) out.push(`         ${bar}`);
    }
    if (v.folds.length > 0) out.push(`  ${foldText(v.folds)}`);
    out.push('');
  }
  out.push(countLine(report), '');
  out.push(...verdictLines(report, paint));
  const program = o.program ?? 'seat';
  const again = probeCommand(program, report.site, o.scope);
  const next = nextStep(report);
  const start = next.kind === 'runbook' ? startCommand(program, next.runbook, next.site ?? report.site) : undefined;
  // Another site's fault: one line with its own command, never the probed site's next step.
  for (const p of report.verdict.elsewhere ?? []) {
    if (p.runbook && p.sites[0]) out.push(`elsewhere: ${startCommand(program, p.runbook, p.sites[0])} — ${runbookWhy(p.runbook)} (site ${p.sites[0]}, ${gatewayViewNote(probeCommand(program, p.sites[0]))})`);
  }
  out.push(`next:    ${nextText(next, again, start)}`);
  out.push(`details: ${detailsText(report, program, o.scope, withSections ? foldedCount(views) : 0, withSections)}`);
  return out.join('\n');
}

/** The DRILL notice, the verdict and its lines. */
export function verdictLines(report: ProbeReport, paint: Paint = PLAIN): string[] {
  const v = report.verdict;
  const head = v.status === 'ok' ? 'OK' : v.status === 'down' ? 'DOWN' : 'DEGRADED';
  const out: string[] = [];
  if (report.drill) out.push(`${paint.drill('DRILL')} fleet "${report.fleet}": ${DRILL_SOURCE}`);
  out.push(`${paint.strong(head)} ${report.site}: ${v.headline}`);
  for (const line of v.lines.slice(v.lines[0] === v.headline ? 1 : 0)) out.push(`  ${line}`);
  return out;
}

/** How many findings, their statuses, what was measured and how long it took. Merged from several
 * vantages, each subject counts once, as the summary's counts do; the measurements are said beside. */
export function countLine(report: ProbeReport): string {
  const c = report.summary.counts;
  const counted = onePerSubject(report.findings);
  const inferred = counted.filter((f) => f.provenance.kind === 'inferred').length;
  const what = tally(report.findings);
  const started = format(new Date(report.startedAt), "yyyy-MM-dd HH:mm:ss 'local'");
  const measurements = counted.length < report.findings.length ? ` (${fmtInt(report.findings.length)} measurements, each subject counted once)` : '';
  return (
    `${fmtInt(counted.length)} findings${measurements}: ${fmtInt(c.up)} up, ${fmtInt(c.down)} down, ${fmtInt(c.degraded)} degraded, ${fmtInt(c.unknown)} unknown — ` +
    `measured in ${fmtInt(report.durationMs)} ms${what ? `: ${what}` : ''}${inferred > 0 ? ` (${fmtInt(inferred)} not measured: inferred)` : ''}; ` +
    `started ${started} (per-probe timeout ${fmtInt(report.timeoutMs)} ms${startupWords(report)}, deadline ${fmtInt(report.deadlineMs)} ms)` +
    (vantagesText(report) ? `; ${vantagesText(report)}` : '')
  );
}

/** The start-up spent of each target's timeout, where there was one: what a target really waited. */
function startupWords(report: ProbeReport): string {
  const s = report.startupMs ?? 0;
  const first = report.askedFirst ?? 0;
  const asked = first > 0 ? `; ${fmtInt(first)} ${first === 1 ? 'target' : 'targets'} that cost the timeout last time asked first` : '';
  const wait = report.waitMs ?? waitAfterStartup(report.timeoutMs, s);
  const capped = s > 0 && wait > report.timeoutMs - s;
  const started = capped
    ? `: start-up took ${fmtInt(s)} ms, over half of it, so each target still waited ${fmtInt(wait)} ms (half the timeout) and the command took longer`
    : ` from the command's start: start-up took ${fmtInt(s)} ms, each target waited at most ${fmtInt(wait)} ms`;
  return (s > 0 ? started : '') + asked;
}

/** Where the rest is: every row with --all when some were folded, the facts with --json. */
function detailsText(report: ProbeReport, program: string, scope: ProbeScope | undefined, folded: number, sections: boolean): string {
  const json = `${probeCommand(program, report.site, scope, ['--json'])} for the facts`;
  if (folded > 0) return `${probeCommand(program, report.site, scope, ['--all'])} for every row (${fmtInt(folded)} up, folded above) · ${json}`;
  return sections ? json : `every finding is listed above · ${json}`;
}
