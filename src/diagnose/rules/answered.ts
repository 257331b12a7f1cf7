// What tells a dark site from this machine's own network: something else answered in the same run
// (another site's address, the gateway, a seat elsewhere). A check that measured nothing (a missing
// tool) is neither an answer nor a failure here.
import { answersElsewhere, type Summary } from '../facts.ts';

/** Something outside the dark sites `dark` answered: a site up or partial, the gateway, or a seat not at one of them. */
export function somethingAnswered(facts: Pick<Summary, 'sites' | 'gateway' | 'seats'>, dark: readonly string[]): boolean {
  return answersElsewhere(facts, dark);
}

/** Every check that could have answered was measured and failed: each site probed is dark with no check
 * left unmeasured (the control checks of the others included), the gateway and every seat silent. */
export function everythingFailed(facts: Summary): boolean {
  const probed = facts.sites.filter((s) => s.state !== 'not probed' || s.unmeasured > 0);
  return (
    probed.length > 0 &&
    probed.every((s) => s.state === 'dark' && s.unmeasured === 0) &&
    !facts.gateway.answered &&
    facts.seats.answered.length === 0
  );
}
