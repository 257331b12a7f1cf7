// One vantage fails to reach a site that another reaches: the failing vantage's own path (its
// firewall, its uplink), not the site. Never a dark verdict, never a runbook for the site: advice only.
// Read from the vantage facts (diagnose/vantage.ts), which exist only with two vantages or more.
import type { Rule } from './types.ts';

export const unreachableFrom: Rule<'unreachable-from'> = (facts) => {
  const hit = facts.vantages.sites.filter((s) => s.darkFrom.length > 0 && s.reachedFrom.length > 0);
  return hit.length > 0 ? { rule: 'unreachable-from', runbook: null, sites: hit.map((s) => s.site) } : null;
};
