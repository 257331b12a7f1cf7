import type { RunbookId } from '../runbooks.ts';
import type { Summary } from '../facts.ts';

/** What a rule concludes: the runbook to start (or none: the conclusion is advice), and the sites it is about. */
export interface Proposal {
  rule: RuleId;
  runbook: RunbookId | null;
  sites: string[];
}

export type RuleId = 'no-network' | 'site-dark' | 'ups-overload' | 'keys-rejected' | 'gateway-down' | 'gpu-oom-cotenant' | 'backend-down' | 'seat-unreachable';

/** One rule: facts in, a proposal or nothing out. Pure. */
export type Rule = (facts: Summary) => Proposal | null;
