// Where a report was measured from, in words, for the terminal and Slack: `measured from hq`, or
// `measured from 2 vantage points: hq, irv`. Names may come from another replica's report: control
// characters are stripped and each is capped before anything shows them.
import type { ProbeReport } from '../commands/probe.ts';

export function vantagesText(report: Pick<ProbeReport, 'vantages'>): string {
  const names = (report.vantages ?? []).map((v) => v.replace(/\p{Cc}/gu, '').slice(0, 63)).filter((v) => v !== '');
  if (names.length === 0) return '';
  const shown = names.length > 8 ? [...names.slice(0, 8), `${names.length - 8} more`] : names;
  return names.length === 1 ? `measured from ${shown[0]}` : `measured from ${names.length} vantage points: ${shown.join(', ')}`;
}
