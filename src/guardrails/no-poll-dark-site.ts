// Seed 002: a site dark at every address, BMC included, is not polled: an overload-tripped UPS needs a human to reset it.
// Per site, for every vantage (issue 33): the hold is the site's, whichever replica asks, and it names
// the vantages the darkness was measured from. A report whose findings come from several vantages holds
// the site only when it was dark from every one of them: one that reached it makes it another vantage's path.
import type { Fleet } from '../inventory/fleet.ts';
import type { Guardrail, JournalEvent } from '../incident/types.ts';
import { vantageNames } from '../diagnose/vantage-facts.ts';
import { acts, evidenceIn, incidentEvents, isoSecond, reportsIn, siteIn, type SiteLook } from './facts.ts';

/** How long after a dark report a re-probe of the site is refused. */
export const DARK_SITE_QUIET_MS = 15 * 60_000;

export const noPollDarkSite: Guardrail<'no-poll-dark-site'> = {
  id: 'no-poll-dark-site',
  lesson: 'a site whose every address (BMC included) is dark is not re-probed in a loop: an overload-tripped UPS needs a human',
  override: true,
  // A probe of the aliases only goes through the gateway, not to the dark site's addresses.
  applies: (step, input) => (acts(step, input, 'probe') || step.kind === 'probe') && !(step.probe?.only && step.probe.only.every((g) => g === 'aliases')),
  check(ctx) {
    const site = ctx.input.site ?? ctx.incident.site;
    const hold = darkHold(incidentEvents(ctx), site, ctx.fleet, ctx.now);
    if (!hold) return { ok: true };
    const { hasBmc, at: lastAt, until, from } = hold;
    const last = { look: { at: lastAt } };
    const now = ctx.now.getTime();
    const minutes = Math.max(0, Math.floor((now - last.look.at) / 60_000));
    return {
      ok: false,
      refused: `probing site ${site} again${from.length > 0 ? ', from any vantage,' : ''} ${minutes} min after every address of it${hasBmc ? ' (BMC included)' : ''} went unanswered${fromWords(from)} at ${isoSecond(last.look.at)}`,
      why: 'a site dark at every address, BMC included, is not polled: an overload-tripped UPS does not come back by itself, a human must reset it',
      instead: `ask a person at site ${site} to reset (or replace) the UPS, and work from what the last probe found meanwhile`,
      waitsFor: `a person at the site says the UPS is reset, or 15 minutes (${isoSecond(until)})`,
    };
  },
};

/** A site held dark by one incident's journal: the report that found every address dark, and until when. */
export interface DarkHold {
  /** The probe.report event that found the site dark. */
  seq: number;
  /** When its addresses went unanswered (ms since the epoch). */
  at: number;
  /** When re-probing is allowed again without a reset (ms since the epoch). */
  until: number;
  hasBmc: boolean;
  /** The vantages the dark report measured the site from, in the order first seen; empty when its
   * findings name none (a report before schemaVersion 3). The hold is the same from every vantage. */
  from: string[];
}

/** ` from hq`, ` from hq and irv`, ` from hq, irv and ana`; empty when no vantage is named. */
export function fromWords(from: readonly string[]): string {
  if (from.length === 0) return '';
  return ` from ${from.length <= 2 ? from.join(' and ') : `${from.slice(0, -1).join(', ')} and ${from[from.length - 1]}`}`;
}

/**
 * Whether one incident's events hold the site dark now: the last report that measured the site's own
 * addresses found none answering from any vantage (its BMC too, where it has one), no person has said
 * the UPS is reset since, and the quiet window has not passed. Facts only: findings' subjects,
 * statuses, reasons, times and vantages.
 */
export function darkHold(events: readonly JournalEvent[], site: string, fleet: Pick<Fleet, 'site'>, now: Date): DarkHold | null {
  // The last report that measured the site's own addresses decides; one of aliases only says nothing of them.
  let last: { seq: number; look: SiteLook } | undefined;
  for (const r of reportsIn(events)) {
    const look = siteIn(r.findings, site);
    if (look.addresses.length > 0) last = { seq: r.seq, look };
  }
  if (!last?.look.dark) return null;
  // A site with a BMC is dark only when the BMC was measured and did not answer either.
  const hasBmc = Object.keys(fleet.site(site)?.bmc ?? {}).length > 0;
  if (hasBmc && !last.look.bmcDark) return null;
  const after = last.seq;
  const reset = evidenceIn(events, 'ups-reset').some((e) => e.seq > after && e.evidence.kind === 'yesno' && e.evidence.answer === true);
  if (reset) return null;
  const until = last.look.at + DARK_SITE_QUIET_MS;
  if (!(now.getTime() < until)) return null;
  return { seq: last.seq, at: last.look.at, until, hasBmc, from: vantageNames(last.look.addresses) };
}
