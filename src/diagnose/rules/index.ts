// The diagnosis rules in their order of precedence: the first that matches decides the proposal.
// A site's own darkness outranks its UPS; the gateway outranks the hosts behind it (every alias is
// cut off there); a seat running inside its container but unreachable outside is the most specific
// cause of a backend failing, so it comes next; a GPU under its floor explains a backend failing on
// it, so it comes before that one.
import type { Summary } from '../facts.ts';
import { backendDown } from './backend-down.ts';
import { gatewayDown } from './gateway-down.ts';
import { keysRejected } from './keys-rejected.ts';
import { noNetwork } from './no-network.ts';
import { gpuOomCotenant } from './gpu-oom-cotenant.ts';
import { seatUnreachable } from './seat-unreachable.ts';
import { siteDark } from './site-dark.ts';
import type { Proposal as ProposalOf, Rule } from './types.ts';
import { upsOverload } from './ups-overload.ts';

// The registry: a rule is its file here and its line in this list, which is also the one list of the
// rules' ids (RuleId is read from it).
export const RULES = [noNetwork, siteDark, upsOverload, keysRejected, gatewayDown, seatUnreachable, gpuOomCotenant, backendDown] as const;

type IdOf<R> = R extends Rule<infer Id> ? Id : never;
export type RuleId = IdOf<(typeof RULES)[number]>;
export type Proposal = ProposalOf<RuleId>;

export function propose(facts: Summary): Proposal | null {
  for (const rule of RULES) {
    const p = rule(facts);
    if (p) return p;
  }
  return null;
}

