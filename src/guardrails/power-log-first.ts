// Seed 002: after a site goes dark, recover the power log (the only load figures) and record its size and sha256 before sizing power.
import type { Evidence, Guardrail } from '../incident/types.ts';
import { acts, belowLoggedPeak, evidenceIn, incidentEvents, isoSecond, loggedPeak, pinnedRunbooks, reportsIn, siteIn } from './facts.ts';

const SHA256 = /^[0-9a-f]{64}$/i;

/** Why a recorded power log does not count; null when it does (measured or declared, both count). */
export function powerLogProblem(e: Evidence): string | null {
  if (e.kind !== 'file') return `it was recorded as a ${String(e.kind)}, not a file`;
  if (typeof e.size !== 'number' || !Number.isFinite(e.size) || e.size <= 0) return 'it is empty';
  if (typeof e.sha256 !== 'string' || !SHA256.test(e.sha256)) return 'its sha256 is not 64 hex digits';
  return null;
}

export const powerLogFirst: Guardrail<'power-log-first'> = {
  id: 'power-log-first',
  lesson: 'after a site goes dark, its power log is recovered and its size and sha256 recorded before any power sizing: it holds the only load figures, and nothing is sized below its peak',
  override: true,
  applies: (step, input) => acts(step, input, 'power-sizing'),
  check(ctx) {
    const events = incidentEvents(ctx);
    // Sizing from a figure lower than the log measured is refused wherever the log came from (a
    // power plan's load is no-surge-outlets' to check).
    if (acts(ctx.step, ctx.input, 'power-sizing')) {
      const lower = belowLoggedPeak(ctx, loggedPeak(events));
      if (lower) return lower;
    }
    const sites = [...new Set([ctx.incident.site, ...(ctx.input.site ? [ctx.input.site] : [])])];
    const reports = reportsIn(events);
    // The first report that found a site dark; or the runbook the incident runs says so.
    let dark: string | null = null;
    for (const site of sites) {
      const seen = reports.map((r) => siteIn(r.findings, site)).find((s) => s.dark);
      if (seen) {
        dark = `site ${site} went dark (no address answered at ${isoSecond(seen.at)})`;
        break;
      }
    }
    if (dark === null && pinnedRunbooks(events).includes('site-dark')) dark = `the incident runs runbook site-dark for site ${ctx.incident.site}`;
    if (dark === null) return { ok: true };

    const logs = evidenceIn(events, 'power-log');
    if (logs.some((l) => powerLogProblem(l.evidence) === null)) return { ok: true };
    const last = logs[logs.length - 1];
    const recorded = last ? `; the power log recorded at #${last.seq} does not count: ${powerLogProblem(last.evidence) ?? ''}` : '';
    return {
      ok: false,
      refused: `power sizing (step ${ctx.step.id}) before the power log is recorded: ${dark}${recorded}`,
      why: 'after a site goes dark, the power log holds the only load figures (all else is idle draw): nothing is sized on power until it is read',
      instead: "recover the power log first (the load samples written up to the cut, e.g. a benchmark's power.log), record it as a file so its size and sha256 go to the journal, then size from its figures",
      waitsFor: "the power log's size and sha256",
    };
  },
};
