// A UPS on battery, low, overloaded or flagged: a power problem to act on before it trips.
import type { Reason } from '../../probes/types.ts';
import type { Rule } from './types.ts';

const POWER: ReadonlySet<Reason> = new Set(['on_battery', 'low_battery', 'overload', 'ups_flag']);

export const upsOverload: Rule<'ups-overload'> = (facts) => {
  const hit = facts.ups.filter((u) => facts.sites.some((s) => s.site === u.site && s.inScope) && u.reason !== null && POWER.has(u.reason));
  return hit.length > 0 ? { rule: 'ups-overload', runbook: 'ups-overload', sites: [...new Set(hit.map((u) => u.site))] } : null;
};
