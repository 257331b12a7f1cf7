// The power log's figures in the postmortem: the peak the log measured (and when), its last
// window, against the site's UPS rating, with how far over the rating the peak went. Read from the
// power-log evidence the journal holds (the bytes seatbelt read and hashed), never from prose; the
// rating from the inventory when the export has it. No power log recorded: no section.
import type { IncidentView } from '../incident/engine.ts';
import type { Evidence, PowerLogFacts } from '../incident/types.ts';
import type { Fleet } from '../inventory/fleet.ts';
import { fmtInt } from '../probes/edge/text.ts';
import { code, md } from './escape.ts';

const watts = (w: number): string => `${fmtInt(Math.round(w))} W`;

/** `## Power`, or '' when no power log was recorded in this incident. */
export function powerSection(view: IncidentView, fleet?: Fleet): string {
  let found: { log: PowerLogFacts; seq: number; step: string | undefined } | undefined;
  for (const e of view.events) {
    const ev = e.payload.evidence as Evidence | undefined;
    if (ev?.kind === 'file' && ev.powerlog) found = { log: ev.powerlog, seq: e.seq, step: e.step };
  }
  if (!found) return '';
  const { log } = found;
  const ups = fleet?.site(view.incident.site)?.ups;
  const ratedW = ups?.ratedW;
  const ratedVA = ups?.ratedVA;
  const rating = ratedW !== undefined || ratedVA !== undefined ? `UPS rating ${[ratedW !== undefined ? watts(ratedW) : null, ratedVA !== undefined ? `${fmtInt(ratedVA)} VA` : null].filter((x) => x !== null).join(' / ')}` : 'UPS rating: not in the inventory given to the export';
  const lines = ['## Power', ''];
  const from = `the power log recorded at #${found.seq}${found.step ? ` (step ${code(found.step)})` : ''}, ${log.gpus} GPU${log.gpus === 1 ? '' : 's'}, ${fmtInt(log.samples)} samples, measured: read and hashed by seatbelt`;
  if (log.peakW === null) {
    lines.push(`- ${from}: no load figure in it.`, `- ${rating}.`);
    return lines.join('\n');
  }
  const over = ratedW !== undefined ? (log.peakW > ratedW ? ` — the peak is **${watts(log.peakW - ratedW)} over** the rating` : ` — the peak is within the rating (${watts(ratedW - log.peakW)} under)`) : '';
  lines.push(
    `- Measured peak ${watts(log.peakW)}${log.peakAt ? ` at ${md(log.peakAt)}` : ''}; last window mean ${log.lastWindowMeanW !== null ? watts(log.lastWindowMeanW) : 'not measured'}${log.last ? ` (last row ${md(log.last)})` : ''}.`,
    `- Against the ${rating}${over}.`,
    `- From ${from}. The log measured the GPUs alone: the chassis draws more.`,
  );
  return lines.join('\n');
}
