// Every measured address of a site failed (BMC included) while something else answers — another
// site, the gateway, a seat elsewhere: a site gone dark, not a probe problem. Dark rests on measured
// failures only (facts.ts): a check not measured is neither an answer nor a failure.
// From two vantages or more (diagnose/vantage.ts), only where no vantage reached the site and at least
// two vantages at other sites, each reaching elsewhere, saw it dark; where only one of them could see
// anything at all, that one stands as a single vantage does (the verdict says "from one vantage point").
import type { Summary } from '../facts.ts';
import { somethingAnswered } from './answered.ts';
import type { Rule } from './types.ts';

export const siteDark: Rule<'site-dark'> = (facts) => {
  const dark = facts.sites.filter((s) => s.inScope && s.state === 'dark').map((s) => s.site);
  const agreed = facts.vantages.sites.length === 0 ? (dark.length > 0 && somethingAnswered(facts, dark) ? dark : []) : dark.filter((site) => seenDark(facts, site));
  return agreed.length > 0 ? { rule: 'site-dark', runbook: 'site-dark', sites: agreed } : null;
};

/** From several vantages: none reached the site, and the ones that can see elsewhere saw it dark. */
function seenDark(facts: Summary, site: string): boolean {
  const v = facts.vantages.sites.find((s) => s.site === site);
  return v !== undefined && v.reachedFrom.length === 0 && v.witnesses.length >= 1;
}
