// Seed 002: the surge-only bank shares the UPS's one input cord and rating; never use it to exceed the rating, bypass the UPS instead.
import type { Guardrail } from '../incident/types.ts';
import { fmtInt } from '../probes/edge/text.ts';
import type { Finding } from '../probes/types.ts';
import { acts } from './facts.ts';

const WHY = 'the surge-only bank shares the UPS’s one input rating: it bypasses the inverter, not the current limit';
const INSTEAD = 'bypass the UPS entirely (the surge bank shares the one input cord: 12 A at 120 V for a 1500 VA unit)';

/** The rating upsd reported (ups.realpower.nominal), from the latest UPS reading of the site that has one. */
function measuredRatedW(findings: readonly Finding[], site: string): number | undefined {
  let rated: number | undefined;
  for (const f of findings) {
    if (f.subject.kind === 'ups' && f.subject.site === site && f.data.kind === 'ups' && f.data.ups.ratedW !== null) rated = f.data.ups.ratedW;
  }
  return rated;
}

export const noSurgeOutlets: Guardrail = {
  id: 'no-surge-outlets',
  lesson: 'the surge-only bank shares the UPS’s one input rating: never use it to exceed the rating',
  override: false,
  applies: (step, input) => acts(step, input, 'power-plan'),
  check({ input, incident, fleet, findings }) {
    if (input.bank !== 'surge') return { ok: true };
    const site = input.site ?? incident.site;
    const ups = fleet.site(site)?.ups;
    const bank = `the surge-only bank of ${ups ? `UPS ${ups.name}` : 'the UPS'} at site ${site}`;
    // The inventory's rating and the one upsd reports: the smaller one, when they differ.
    const ratings = [ups?.ratedW, measuredRatedW(findings, site)].filter((w): w is number => w !== undefined);
    const ratedW = ratings.length > 0 ? Math.min(...ratings) : undefined;
    const load = input.loadW;
    if (typeof load !== 'number' || !Number.isFinite(load) || load < 0) {
      return {
        ok: false,
        refused: `putting load on ${bank} with no load figure: it cannot be shown to stay within ${ratedW !== undefined ? `its ${fmtInt(ratedW)} W rating` : 'its rating'}`,
        why: WHY,
        instead: INSTEAD,
        waitsFor: 'the load in W (loadW) the UPS will carry, within its rating',
      };
    }
    if (ratedW === undefined) {
      return {
        ok: false,
        refused: `putting ${fmtInt(load)} W on ${bank}: its rating in W is not known (no ratedW in the inventory, none reported by upsd)`,
        why: WHY,
        instead: INSTEAD,
        waitsFor: `the UPS's ratedW in the inventory for site ${site}`,
      };
    }
    if (load <= ratedW) return { ok: true };
    return {
      ok: false,
      refused: `putting ${fmtInt(load)} W on ${bank}: over its ${fmtInt(ratedW)} W rating`,
      why: WHY,
      instead: INSTEAD,
    };
  },
};
