// Seed 002: nothing is done to the hosts of a dark site until a probe after the dark one reaches it.
import type { Guardrail, StepAction } from '../incident/types.ts';
import type { Finding } from '../probes/types.ts';
import { acts, incidentEvents, isDarkAddress, isoSecond, reportsIn, siteIn } from './facts.ts';

/** The moves made on a site's hosts (containers, seats, env files): none can land while nothing there answers. */
export const ON_SITE_ACTIONS: readonly StepAction[] = ['container-change', 'seat-move', 'seat-resize', 'env-edit'];

/** An address that was measured and answered (a refusal is an answer too); a finding not measured is neither. */
function answered(f: Finding): boolean {
  return !isDarkAddress(f) && (f.status === 'up' || f.status === 'down' || f.status === 'degraded');
}

/** The last report that measured the site: dark (every address unanswered) or reached (one answered); null when none did. */
function lastSiteLook(events: Parameters<typeof reportsIn>[0], site: string): { seq: number; dark: boolean; at: number; unanswered: Finding[] } | null {
  let last: { seq: number; dark: boolean; at: number; unanswered: Finding[] } | null = null;
  for (const r of reportsIn(events)) {
    const look = siteIn(r.findings, site);
    if (look.dark) last = { seq: r.seq, dark: true, at: look.at, unanswered: look.addresses };
    else if (look.addresses.some(answered)) last = { seq: r.seq, dark: false, at: look.at, unanswered: look.addresses.filter(isDarkAddress) };
  }
  return last;
}

function named(f: Finding): string {
  const s = f.subject;
  return s.kind === 'address' ? `${s.name} (${s.role}${f.reason ? `: ${f.reason}` : ''})` : s.kind;
}

export const siteAnswersFirst: Guardrail<'site-answers-first'> = {
  id: 'site-answers-first',
  lesson: 'a dark site is not acted on: a probe after the dark one must reach the site before its hosts are touched',
  override: true,
  applies: (step, input) => ON_SITE_ACTIONS.some((a) => acts(step, input, a)),
  check(ctx) {
    const site = ctx.input.site ?? ctx.incident.site;
    const last = lastSiteLook(incidentEvents(ctx), site);
    if (!last?.dark) return { ok: true };
    const shown = last.unanswered.slice(0, 6).map(named);
    const more = last.unanswered.length - shown.length;
    return {
      ok: false,
      refused: `step ${ctx.step.id} on site ${site} while it is still dark: the last probe of it (report #${last.seq}${Number.isFinite(last.at) ? `, at ${isoSecond(last.at)}` : ''}) had no answer from ${shown.join(', ')}${more > 0 ? ` and ${more} more` : ''}`,
      why: 'nothing done to the hosts of a dark site can land: containers, seats and files there are out of reach until the power is back',
      instead: `once someone at site ${site} has reset (or replaced) the UPS, probe the site again; a probe that reaches any of its addresses lets this step through`,
      waitsFor: `a probe of site ${site} that reaches it`,
    };
  },
};
