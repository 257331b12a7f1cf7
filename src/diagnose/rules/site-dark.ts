// Every address of a site failed (BMC included) while others answer: a site gone dark, not a probe problem.
import type { Rule } from './types.ts';

export const siteDark: Rule = (facts) => {
  const dark = facts.sites.filter((s) => s.inScope && s.state === 'dark');
  const anyAnswered = facts.sites.some((s) => s.state === 'up' || s.state === 'partial');
  return dark.length > 0 && anyAnswered ? { rule: 'site-dark', runbook: 'site-dark', sites: dark.map((s) => s.site) } : null;
};
