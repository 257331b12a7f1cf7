// Where a report was measured from, in words, for the terminal and Slack: `measured from hq`, or
// `measured from 2 vantage points: hq, irv`, and what became of each other vantage asked (vantage/
// ask.ts): answered, or why its findings are not in the report. Names may come from another
// replica's report: control characters are stripped and each is capped before anything shows them.
import type { ProbeReport } from '../commands/probe.ts';
import type { AskedVantage } from '../vantage/types.ts';

const shownName = (v: string): string => v.replace(/\p{Cc}/gu, '').slice(0, 63);

export function vantagesText(report: Pick<ProbeReport, 'vantages' | 'asked'>): string {
  const names = (report.vantages ?? []).map(shownName).filter((v) => v !== '');
  if (names.length === 0) return '';
  const shown = names.length > 8 ? [...names.slice(0, 8), `${names.length - 8} more`] : names;
  const from = names.length === 1 ? `measured from ${shown[0]}` : `measured from ${names.length} vantage points: ${shown.join(', ')}`;
  const asked = report.asked ?? [];
  if (asked.length === 0) return from;
  return `${from}; asked ${asked.length} other vantage${asked.length === 1 ? '' : 's'}: ${asked.slice(0, 8).map(askedWords).join('; ')}${asked.length > 8 ? `; ${asked.length - 8} more` : ''}`;
}

/** One vantage asked, in words: who answered and how fast, or why its findings are not in the report. */
export function askedWords(a: AskedVantage): string {
  const who = `${shownName(a.vantage)} (${(a.answeredBy ? [a.answeredBy] : a.replicas).map((r) => r.replace(/\p{Cc}/gu, '').slice(0, 120)).slice(0, 3).join(', ')})`;
  const why = (a.why ?? '').replace(/\p{Cc}/gu, '').slice(0, 300);
  switch (a.outcome) {
    case 'answered':
      return `${who} answered in ${a.ms ?? '?'} ms`;
    case 'no_answer':
      return `${who} did not answer (${why}): not in this report`;
    case 'failed':
      return `${who}: ${why}; not in this report`;
    case 'unfinished':
      return `${who} took the request but ${why}: not in this report`;
    case 'refused':
      return `${who}'s answer was left out: ${why}`;
  }
}
