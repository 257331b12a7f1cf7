// no-poll-dark-site for a probe asked outside the runbook (`seat probe`, `/seat probe`, Probe again):
// the open incidents' journals say which sites were found dark at every address, when, and by whom;
// such a site is not re-probed inside the guardrail's window. The override path is the guardrail's
// own: a second person approves an override on the runbook's step, which then runs the probe.
import { project } from '../incident/engine.ts';
import { actorKey, type Actor, type Incident, type JournalEvent } from '../incident/types.ts';
import type { Fleet } from '../inventory/fleet.ts';
import { isoSecond } from '../render/time.ts';
import { darkHold, fromWords, noPollDarkSite } from './no-poll-dark-site.ts';

/** What the journal the check reads needs to give. */
export interface OpenIncidents {
  incidents(o?: { status?: 'open' | 'closed' }): Promise<Incident[]>;
  events(incident: number): Promise<JournalEvent[]>;
}

export interface DarkSite {
  site: string;
  incident: number;
  /** When every address of it went unanswered (ISO, to the second). */
  at: string;
  /** When a re-probe is allowed again without a reset (ISO, to the second). */
  until: string;
  /** The person whose decision recorded the dark report (the probe step's doer), else the bot. */
  by: Actor;
  /** The runbook step gated by no-poll-dark-site in that incident, if one is pinned. */
  step: string | null;
  /** The vantages it was found dark from (empty: the report named none). Held from every vantage alike. */
  from: string[];
}

export type ProbeGate =
  | { ok: true; skipped: DarkSite[] }
  | { ok: false; dark: DarkSite };

/**
 * Whether a probe of `site` (a site or `all`) may run now: refused when the site is held dark by an
 * open incident; for `all`, the dark sites are skipped (and named) and the rest run.
 */
export async function gateProbe(journal: OpenIncidents, fleet: Pick<Fleet, 'site' | 'siteNames'>, site: string, now: Date): Promise<ProbeGate> {
  const sites = site === 'all' ? fleet.siteNames : [site];
  const held: DarkSite[] = [];
  for (const incident of await journal.incidents({ status: 'open' })) {
    const events = await journal.events(incident.id);
    for (const s of sites) {
      if (held.some((h) => h.site === s)) continue;
      const hold = darkHold(events, s, fleet, now);
      if (hold) held.push({ site: s, incident: incident.id, at: isoSecond(hold.at), until: isoSecond(hold.until), by: declaredBy(events, hold.seq), step: guardedStep(incident, events), from: hold.from });
    }
  }
  if (site !== 'all' && held[0]) return { ok: false, dark: held[0] };
  return { ok: true, skipped: held };
}

/** Who recorded the report that found the site dark: the person whose step event names it, else one on its step, else its actor. */
function declaredBy(events: readonly JournalEvent[], seq: number): Actor {
  const report = events.find((e) => e.seq === seq);
  const person = (e: JournalEvent): boolean => e.actor.kind === 'slack' || e.actor.kind === 'local';
  const naming = events.find((e) => person(e) && e.payload.report === seq);
  if (naming) return naming.actor;
  const onStep = report?.step ? events.find((e) => person(e) && e.seq > seq && e.step === report.step && e.kind === 'step.done') : undefined;
  return onStep?.actor ?? report?.actor ?? { kind: 'probe' };
}

function guardedStep(incident: Incident, events: readonly JournalEvent[]): string | null {
  const view = project(incident, events);
  return view.steps.find((s) => s.spec.guardrails.includes(noPollDarkSite.id))?.spec.id ?? null;
}

export function byName(a: Actor): string {
  return a.kind === 'slack' ? a.name || a.id : a.kind === 'local' ? a.name : actorKey(a);
}

/** The refusal as one line for a person; `cmd` is the front end's command prefix (`seat` or `/seat`). */
export function darkRefusal(d: DarkSite, cmd: string, who: (a: Actor) => string = byName): string {
  const any = d.from.length > 0 ? ' from any vantage' : '';
  return `refused by no-poll-dark-site: site ${d.site} was found dark at every address${fromWords(d.from)} at ${d.at} (incident #${d.incident}, by ${who(d.by)}); it is not re-probed${any} before ${d.until} unless a person at the site says the UPS is reset. ${overridePath(d, cmd)}`;
}

/** The guardrail's own way past it, with the commands. */
export function overridePath(d: DarkSite, cmd: string): string {
  if (!d.step) return `Override: pin the runbook and ask for an override of no-poll-dark-site on its probe step (${cmd} override request <step> no-poll-dark-site <reason> --incident ${d.incident}).`;
  return (
    `Once reset: ${cmd} step evidence ${d.step} --yes --incident ${d.incident}. ` +
    `Override: ${cmd} override request ${d.step} no-poll-dark-site <reason> --incident ${d.incident}, approved by a second on-call person; then ${cmd} step done ${d.step} --incident ${d.incident} runs the probe.`
  );
}

/** For `all`: the sites left out, one line; empty when none was. */
export function skippedLine(skipped: readonly DarkSite[], who: (a: Actor) => string = byName): string {
  if (skipped.length === 0) return '';
  return `skipped (no-poll-dark-site): ${skipped.map((d) => `${d.site}, dark${fromWords(d.from)} since ${d.at} (incident #${d.incident}, by ${who(d.by)}; until ${d.until})`).join('; ')}`;
}
