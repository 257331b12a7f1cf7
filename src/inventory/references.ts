// Rules across the parts of a schema-valid inventory: every reference points at something that
// exists. Lookups go through Maps, so a seat named "constructor" is found only if it is there.
import type { Inventory } from './schema.ts';
import { cardBudgetText, sharedCards } from './shared-cards.ts';

const known = (names: Iterable<string>): string => [...names].join(', ') || 'none';

export function crossReferences(inv: Inventory): string[] {
  const errors: string[] = [];
  const hosts = new Map<string, { site: string; gpus: Set<number> }>();
  for (const [siteName, site] of Object.entries(inv.sites)) {
    for (const [hostName, host] of Object.entries(site.hosts)) {
      const taken = hosts.get(hostName);
      if (taken) errors.push(`sites.${siteName}.hosts.${hostName}: host name already used at site ${taken.site}`);
      hosts.set(hostName, { site: siteName, gpus: new Set(host.gpus.map((g) => g.index)) });
    }
  }
  const seats = new Map(Object.entries(inv.seats));
  for (const [seatName, seat] of seats) {
    const host = hosts.get(seat.host);
    if (!host) {
      errors.push(`seats.${seatName}.host: no host ${JSON.stringify(seat.host)} in any site (known: ${known(hosts.keys())})`);
      continue;
    }
    seat.gpus.forEach((g, i) => {
      if (!host.gpus.has(g)) errors.push(`seats.${seatName}.gpus.${i}: host ${seat.host} has no GPU ${g}`);
    });
    if (seat.gpuMemoryUtilization === undefined && seat.kvCacheMemoryBytes === undefined && seat.engine === 'vllm') {
      errors.push(`seats.${seatName}: declare gpuMemoryUtilization or kvCacheMemoryBytes (the budget the margin is judged against)`);
    }
  }
  const keys = new Set(Object.keys(inv.gateway.keys));
  for (const [aliasName, alias] of Object.entries(inv.aliases)) {
    alias.seats.forEach((s, i) => {
      if (!seats.has(s)) errors.push(`aliases.${aliasName}.seats.${i}: no seat ${JSON.stringify(s)} (known: ${known(seats.keys())})`);
    });
    alias.keys?.forEach((k, i) => {
      if (!keys.has(k)) errors.push(`aliases.${aliasName}.keys.${i}: no key ${JSON.stringify(k)} in gateway.keys (known: ${known(keys)})`);
    });
  }
  return errors;
}

export function warnings(inv: Inventory): string[] {
  const out: string[] = [];
  for (const [seatName, seat] of Object.entries(inv.seats)) {
    if (seat.gpuMemoryUtilization !== undefined && seat.kvCacheMemoryBytes !== undefined) {
      out.push(`seats.${seatName}: kvCacheMemoryBytes makes vLLM skip profiling and ignore gpuMemoryUtilization; the bytes are used as the budget`);
    }
  }
  for (const c of sharedCards(inv)) {
    if (c.over) out.push(`${c.host} GPU${c.index}: the seats sharing it declare more than the whole card (${cardBudgetText(c)}): they cannot all start`);
  }
  return out;
}
