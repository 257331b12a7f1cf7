// Every measured key's listing failed without a rejection: the gateway itself, fleet-wide.
import type { Rule } from './types.ts';

export const gatewayDown: Rule<'gateway-down'> = (facts) => (facts.gateway.unreachable ? { rule: 'gateway-down', runbook: 'gateway-down', sites: [] } : null);
