// The summed GPU draw beside the site UPS's rating from the inventory. Seed 002: a 1500 VA UPS
// gave out at two cards loaded; its rating, not the circuit's, is the first limit the load meets.
import type { Fleet } from '../inventory/fleet.ts';
import type { Ups } from '../inventory/schema.ts';
import type { PowerLogSummary } from './types.ts';

/** The UPS to compare with, or why there is none. */
export type UpsChoice = { site: string; ups: Ups } | { site: null; why: string };

/** `--site`, else the only site with a UPS, else none. An unknown site is an error. */
export function chooseUps(fleet: Fleet, site?: string): { ok: true; choice: UpsChoice } | { ok: false; error: string } {
  if (site !== undefined) {
    const s = fleet.site(site);
    if (!s) return { ok: false, error: `no site "${site}" in the inventory (its sites: ${fleet.siteNames.join(', ')})` };
    return { ok: true, choice: s.ups ? { site, ups: s.ups } : { site: null, why: `site ${site} has no UPS in the inventory` } };
  }
  const withUps = [...fleet.sites].filter(([, s]) => s.ups !== undefined);
  const only = withUps.length === 1 ? withUps[0] : undefined;
  if (only?.[1].ups) return { ok: true, choice: { site: only[0], ups: only[1].ups } };
  const why =
    withUps.length === 0
      ? 'no site of the inventory has a UPS'
      : `${withUps.length} sites have a UPS (${withUps.map(([n]) => n).join(', ')}): pass --site SITE to compare with one`;
  return { ok: true, choice: { site: null, why } };
}

export interface UpsComparison {
  site: string;
  ups: string;
  ratedW: number | null;
  ratedVA: number | null;
  peakW: number | null;
  /** The summed peak as a percentage of the watt rating; null without either. */
  peakPctOfW: number | null;
  lastWindowPctOfW: number | null;
  /** Watts are at most volt-amperes, so this is the least the peak loads the VA rating. */
  peakPctOfVAAtLeast: number | null;
  exceedsW: boolean;
  /** At or over the inventory's settings.upsLoadWarnPct (and not over the rating). */
  overWarnPct: boolean;
  warnPct: number;
}

export function compareWithUps(summary: PowerLogSummary, site: string, ups: Ups, warnPct: number): UpsComparison {
  const peakW = summary.sum.peak?.watts ?? null;
  const windowW = summary.sum.lastWindow?.meanW ?? null;
  const ratedW = ups.ratedW ?? null;
  const ratedVA = ups.ratedVA ?? null;
  const pct = (w: number | null, of: number | null): number | null => (w === null || of === null ? null : (w / of) * 100);
  const peakPctOfW = pct(peakW, ratedW);
  const exceedsW = peakW !== null && ratedW !== null && peakW > ratedW;
  return {
    site,
    ups: ups.name,
    ratedW,
    ratedVA,
    peakW,
    peakPctOfW,
    lastWindowPctOfW: pct(windowW, ratedW),
    peakPctOfVAAtLeast: pct(peakW, ratedVA),
    exceedsW,
    overWarnPct: !exceedsW && peakPctOfW !== null && peakPctOfW >= warnPct,
    warnPct,
  };
}
