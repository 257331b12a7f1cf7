// Every measured address of a site failed (BMC included) while something else answers — another
// site, the gateway, a seat elsewhere: a site gone dark, not a probe problem. Dark rests on measured
// failures only (facts.ts): a check not measured is neither an answer nor a failure.
import { somethingAnswered } from './answered.ts';
import type { Rule } from './types.ts';

export const siteDark: Rule<'site-dark'> = (facts) => {
  const dark = facts.sites.filter((s) => s.inScope && s.state === 'dark').map((s) => s.site);
  return dark.length > 0 && somethingAnswered(facts, dark) ? { rule: 'site-dark', runbook: 'site-dark', sites: dark } : null;
};
