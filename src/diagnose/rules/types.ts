import type { ProposedRunbook } from '../runbooks.ts';
import type { Summary } from '../facts.ts';

/** What a rule concludes: the runbook to start (or none: the conclusion is advice), and the sites it is
 * about. `Id`: the rule's id; index.ts narrows it to the registry's ids. */
export interface Proposal<Id extends string = string> {
  rule: Id;
  runbook: ProposedRunbook | null;
  sites: string[];
  /** Seats whose log decides it: `seat diagnose --seat <seat>` goes with the proposal. */
  logsOf?: string[];
}

/** One rule: facts in, a proposal or nothing out. Pure. `Id`: its own id, kept as its literal so the
 * registry (index.ts) is the one list of the rules' ids. */
export type Rule<Id extends string = string> = (facts: Summary) => Proposal<Id> | null;
