// The gateway answers but refuses every key probed: check the keys before blaming the gateway.
import type { Rule } from './types.ts';

export const keysRejected: Rule<'keys-rejected'> = (facts) => (facts.gateway.rejected ? { rule: 'keys-rejected', runbook: null, sites: [] } : null);
