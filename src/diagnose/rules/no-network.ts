// Dark means something else still answers: when nothing anywhere does, the fault is on our side.
import type { Rule } from './types.ts';

export const noNetwork: Rule = (facts) => {
  const dark = facts.sites.filter((s) => s.inScope && s.state === 'dark');
  const anyAnswered = facts.sites.some((s) => s.state === 'up' || s.state === 'partial');
  return dark.length > 0 && !anyAnswered ? { rule: 'no-network', runbook: null, sites: dark.map((s) => s.site) } : null;
};
