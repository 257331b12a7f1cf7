// Turns facts into a verdict a tired person can act on. The rules decide (rules/); the words are
// drawn from the facts last, the probed site's own faults first. Pure: the same facts, the same words.
import type { Summary } from './facts.ts';
import { proposals, type Proposal } from './rules/index.ts';
import type { ProposedRunbook } from './runbooks.ts';
import { ownLines, conclusionLine, elsewhereLines, fleetLines } from './words.ts';
import { outOfBandLines } from './vantage-words.ts';

export { summarize, type Summary } from './facts.ts';
export { crossCheck } from './cross-check.ts';

export interface Verdict {
  status: 'ok' | 'degraded' | 'down';
  headline: string;
  lines: string[];
  runbook: ProposedRunbook | null;
  /** Which rule decided, and the sites it is about: the probed ones only. */
  proposal: Proposal | null;
  /** Other sites' faults a rule matched, one per site: each its own command, never the next step here. */
  elsewhere: Proposal[];
}

export function decide(sites: string[], facts: Summary): Verdict {
  const { proposal, elsewhere } = proposals(facts);
  const lines: string[] = [];
  const conclusion = proposal ? conclusionLine(proposal, facts) : null;
  if (conclusion) lines.push(conclusion);
  if (proposal) lines.push(...outOfBandLines(proposal, facts));
  lines.push(...ownLines(sites, facts), ...fleetLines(facts), ...elsewhereLines(sites, facts));

  // A seat that answers is not down because no process was seen on its declared card: the cross-check
  // (cross-check.ts) made that row degraded, a question of which GPU it really uses; the counts are the rows'.
  // A site one vantage cannot reach while another does is that vantage's path: its subjects count
  // once, up (summarize), and the run is degraded for the vantage's path, neither down nor OK.
  const split = facts.vantages.sites.some((s) => s.darkFrom.length > 0 && s.reachedFrom.length > 0);
  // An alias down behind another site's seat is that site's fault (an elsewhere: line): the sites
  // probed are not DOWN for it; it still counts against them as degraded (the exit code stays 1).
  const away = facts.gateway.listingFailed ? 0 : facts.aliases.downByRoute.filter((r) => r.site !== null && !sites.includes(r.site)).reduce((n, r) => n + r.aliases.length, 0);
  const shifted = Math.min(away, facts.counts.down);
  const { up, unknown } = facts.counts;
  const down = facts.counts.down - shifted;
  const degraded = facts.counts.degraded + shifted;
  const total = up + down + degraded + unknown;
  // Not measured is not up: an unknown finding never reads as OK.
  const status: Verdict['status'] = down > 0 ? 'down' : split || degraded + unknown > 0 || total === 0 ? 'degraded' : 'ok';
  const headline =
    lines[0] ??
    (total === 0
      ? 'nothing to probe: no target in this scope'
      : status === 'ok'
        ? `all ${total} checks up`
        : down + degraded > 0
          ? `${down + degraded} of ${total} checks down or degraded${unknown ? `, ${unknown} not measured` : ''}`
          : `${unknown} of ${total} checks not measured`);
  // What to do next is the front ends' `next:` line, drawn from `runbook`: not repeated here.
  const runbook = proposal?.runbook ?? null;
  return { status, headline, lines, runbook, proposal, elsewhere };
}

