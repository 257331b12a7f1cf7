// Dark means something else still answers: only when everything was measured and failed — every
// site's addresses and the other sites' control checks, the gateway, every seat — is the fault on our
// side. A check not measured (ping missing) is no failure: with one, or with anything answering, this
// never fires.
import { everythingFailed } from './answered.ts';
import type { Rule } from './types.ts';

export const noNetwork: Rule<'no-network'> = (facts) => {
  const dark = facts.sites.filter((s) => s.inScope && s.state === 'dark');
  return dark.length > 0 && everythingFailed(facts) ? { rule: 'no-network', runbook: null, sites: dark.map((s) => s.site) } : null;
};
