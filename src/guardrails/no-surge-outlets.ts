// Seed 002: both banks of a UPS sit behind its one input cord and rating; never use either to exceed
// the rating (the surge bank bypasses the inverter, not the current limit), bypass the UPS instead.
// The load is the plan's figure, and at least what the recovered power log measured.
import type { Guardrail } from '../incident/types.ts';
import { fmtInt } from '../probes/edge/text.ts';
import type { Finding } from '../probes/types.ts';
import { acts, belowLoggedPeak, incidentEvents, loggedPeak, typedLoad } from './facts.ts';

const WHY_SURGE = 'the surge-only bank shares the UPS’s one input rating: it bypasses the inverter, not the current limit';
const WHY_BATTERY = 'a UPS carries at most its rating on its battery and surge banks together: past it, it trips and takes everything on it down — the firewall and BMC with the GPUs';
const INSTEAD = 'bypass the UPS entirely (the surge bank shares the one input cord: 12 A at 120 V for a 1500 VA unit)';
const INSTEAD_BATTERY = 'put the GPU chassis on a raw PDU (bank bypass) and keep only what fits the rating on the UPS (the firewall and the BMC), or a UPS rated above the load';

/** The rating upsd reported (ups.realpower.nominal), from the latest UPS reading of the site that has one. */
function measuredRatedW(findings: readonly Finding[], site: string): number | undefined {
  let rated: number | undefined;
  for (const f of findings) {
    if (f.subject.kind === 'ups' && f.subject.site === site && f.data.kind === 'ups' && f.data.ups.ratedW !== null) rated = f.data.ups.ratedW;
  }
  return rated;
}

export const noSurgeOutlets: Guardrail<'no-surge-outlets'> = {
  id: 'no-surge-outlets',
  lesson: 'the surge-only bank shares the UPS’s one input rating: no bank carries more than the rating, and the load is at least what the power log measured',
  override: false,
  applies: (step, input) => acts(step, input, 'power-plan'),
  check(ctx) {
    const { input, incident, fleet, findings } = ctx;
    const peak = loggedPeak(incidentEvents(ctx));
    const lower = belowLoggedPeak(ctx, peak);
    if (lower) return lower;
    if (input.bank !== 'surge' && input.bank !== 'battery') return { ok: true };
    const surge = input.bank === 'surge';
    const why = surge ? WHY_SURGE : WHY_BATTERY;
    const instead = surge ? INSTEAD : INSTEAD_BATTERY;
    const site = input.site ?? incident.site;
    const ups = fleet.site(site)?.ups;
    const bank = `the ${surge ? 'surge-only' : 'battery'} bank of ${ups ? `UPS ${ups.name}` : 'the UPS'} at site ${site}`;
    // The inventory's rating and the one upsd reports: the smaller one, when they differ.
    const ratings = [ups?.ratedW, measuredRatedW(findings, site)].filter((w): w is number => w !== undefined);
    const ratedW = ratings.length > 0 ? Math.min(...ratings) : undefined;
    // The plan's load: what was typed, and never less than the power log's GPUs alone drew.
    const typed = typedLoad(input.loadW);
    const fromLog = peak !== null && (typed === undefined || peak.peakW > typed);
    const load = fromLog ? peak.peakW : typed;
    if (load === undefined) {
      return {
        ok: false,
        refused: `putting load on ${bank} with no load figure: it cannot be shown to stay within ${ratedW !== undefined ? `its ${fmtInt(ratedW)} W rating` : 'its rating'}`,
        why,
        instead,
        waitsFor: 'the load in W (loadW) the UPS will carry, within its rating, or the power log recorded with its figures',
      };
    }
    const what = fromLog ? `${fmtInt(load)} W (the power log's GPU peak${peak.peakAt ? ` at ${peak.peakAt}` : ''}; the chassis draws more)` : `${fmtInt(load)} W`;
    if (ratedW === undefined) {
      return {
        ok: false,
        refused: `putting ${what} on ${bank}: its rating in W is not known (no ratedW in the inventory, none reported by upsd)`,
        why,
        instead,
        waitsFor: `the UPS's ratedW in the inventory for site ${site}`,
      };
    }
    if (load <= ratedW) return { ok: true };
    return {
      ok: false,
      refused: `putting ${what} on ${bank}: over its ${fmtInt(ratedW)} W rating`,
      why,
      instead,
    };
  },
};
