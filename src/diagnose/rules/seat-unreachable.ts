// A seat's container runs (healthy, often) but the seat cannot be reached from outside: no host port
// bound to the seat's port (seed 002: `Up 4 minutes (healthy)` with `PORTS=[]`), or the port is bound
// and nothing answers it. The healthcheck runs inside; the binding is what to check.
import type { Rule } from './types.ts';

export const seatUnreachable: Rule<'seat-unreachable'> = (facts) => {
  const hit = facts.containers.unreachable;
  if (hit.length === 0) return null;
  return { rule: 'seat-unreachable', runbook: 'seat-unreachable', sites: [...new Set(hit.flatMap((c) => (c.site ? [c.site] : [])))] };
};
