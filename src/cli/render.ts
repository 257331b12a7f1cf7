// The report on a terminal: the shared plain text (src/render/), painted when stdout is a TTY.
import type { ProbeReport } from '../commands/probe.ts';
import type { Finding, FindingStatus } from '../probes/types.ts';
import { MARK_TEXT, PLAIN, type Mark, type Paint } from '../render/marks.ts';
import type { ProbeScope } from '../render/next.ts';
import { reportText } from '../render/report.ts';
import { findingLine as plainLine } from '../render/rows.ts';

export interface RenderOptions {
  colour: boolean;
  /** The findings by section; off when they were already streamed as plain lines. */
  sections?: boolean;
  /** Every finding; otherwise rows that are up fold into a count per section. */
  all?: boolean;
  /** The probe as asked (--only, --paid, --timeout), repeated in the commands the report suggests. */
  scope?: ProbeScope;
}

const COLOUR: Record<Mark, string> = { up: '32', down: '31', degraded: '33', unknown: '35', listed: '36' };

const ANSI: Paint = {
  mark: (m, t) => `\x1b[${COLOUR[m]}m${t}\x1b[0m`,
  strong: (t) => `\x1b[1m${t}\x1b[0m`,
  drill: (t) => `\x1b[1;36m${t}\x1b[0m`,
  alarm: (t) => `\x1b[31m${t}\x1b[0m`,
};

const paintFor = (o: Pick<RenderOptions, 'colour'>): Paint => (o.colour ? ANSI : PLAIN);

export function statusMark(status: FindingStatus, o: Pick<RenderOptions, 'colour'>): string {
  return paintFor(o).mark(status, MARK_TEXT[status]);
}

export function findingLine(f: Finding, o: Pick<RenderOptions, 'colour'>): string {
  return plainLine(f, paintFor(o));
}

export function renderReport(report: ProbeReport, o: RenderOptions): string {
  return reportText(report, {
    paint: paintFor(o),
    all: o.all === true,
    sections: o.sections !== false,
    ...(o.scope ? { scope: o.scope } : {}),
  });
}

/** One rewritable status line for a TTY. */
export function progressLine(site: string, done: number, total: number, bad: number): string {
  return `probing ${site}: ${done} of ${total} done${bad > 0 ? `, ${bad} down or degraded` : ''}`;
}
