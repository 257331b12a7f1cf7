// The diagnosis rules in their order of precedence: the first that matches decides the proposal.
// A site's own darkness outranks its UPS; the gateway outranks the hosts behind it (every alias is
// cut off there); a seat running inside its container but unreachable outside is the most specific
// cause of a backend failing, so it comes next; a GPU under its floor explains a backend failing on
// it, so it comes before that one; a down seat whose budget cannot fit its card comes before the
// backend it leaves down. A site one vantage cannot reach while another does comes last: it is the
// failing vantage's own path, advice with no runbook, and every fault found at the site outranks it.
// A proposal is about the probed sites only: a rule's sites outside the scope become a proposal of
// their own for `elsewhere` (one line, with its own command), never the probed site's next step.
import type { Summary } from '../facts.ts';
import { backendDown } from './backend-down.ts';
import { gatewayDown } from './gateway-down.ts';
import { keysRejected } from './keys-rejected.ts';
import { noNetwork } from './no-network.ts';
import { gpuOomCotenant } from './gpu-oom-cotenant.ts';
import { kvBootRace } from './kv-boot-race.ts';
import { seatUnreachable } from './seat-unreachable.ts';
import { siteDark } from './site-dark.ts';
import { unreachableFrom } from './unreachable-from.ts';
import type { Proposal as ProposalOf, Rule } from './types.ts';
import { upsOverload } from './ups-overload.ts';

// The registry: a rule is its file here and its line in this list, which is also the one list of the
// rules' ids (RuleId is read from it).
export const RULES = [noNetwork, siteDark, upsOverload, keysRejected, gatewayDown, seatUnreachable, gpuOomCotenant, kvBootRace, backendDown, unreachableFrom] as const;

type IdOf<R> = R extends Rule<infer Id> ? Id : never;
export type RuleId = IdOf<(typeof RULES)[number]>;
export type Proposal = ProposalOf<RuleId>;

export function propose(facts: Summary): Proposal | null {
  return proposals(facts).proposal;
}

/** The probed sites' proposal (the first rule with facts there, or about no site), and one per other
 * site whose facts a rule matched, each with that site alone. */
export function proposals(facts: Summary): { proposal: Proposal | null; elsewhere: Proposal[] } {
  const scope = new Set(facts.sites.filter((s) => s.inScope).map((s) => s.site));
  let proposal: Proposal | null = null;
  const elsewhere = new Map<string, Proposal>();
  for (const rule of RULES) {
    const p = rule(facts);
    if (!p) continue;
    const mine = p.sites.filter((s) => scope.has(s));
    if (!proposal && (p.sites.length === 0 || mine.length > 0)) proposal = { ...p, sites: mine };
    if (p.runbook === null) continue;
    for (const site of p.sites) if (!scope.has(site) && !elsewhere.has(site)) elsewhere.set(site, { ...p, sites: [site] });
  }
  return { proposal, elsewhere: [...elsewhere.values()] };
}
