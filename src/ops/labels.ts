// Label values for /metrics: only names the inventory holds, capped and reduced to a safe alphabet.
// A peer's string (an alias the gateway lists that the inventory does not, an error body) never
// becomes a label: a value not in the allowed set is refused, and the sample is left out.
import type { Fleet } from '../inventory/fleet.ts';

export const MAX_LABEL_CHARS = 64;

/** The alphabet the inventory's names use; anything else is replaced. */
export function cleanLabel(s: string): string {
  return s.replace(/[^A-Za-z0-9_.:@/-]/g, '_').slice(0, MAX_LABEL_CHARS);
}

export interface LabelNames {
  sites: ReadonlySet<string>;
  hosts: ReadonlySet<string>;
  seats: ReadonlySet<string>;
  aliases: ReadonlySet<string>;
  /** The gateway keys' names (never their values: those live in the environment). */
  keys: ReadonlySet<string>;
  ups: ReadonlySet<string>;
  addresses: ReadonlySet<string>;
}

export function labelNames(fleet: Fleet): LabelNames {
  const inv = fleet.inventory;
  const ups = new Set<string>();
  const addresses = new Set<string>();
  for (const site of Object.values(inv.sites)) {
    if (site.ups) ups.add(site.ups.name);
    for (const n of Object.keys(site.bmc)) addresses.add(n);
    for (const n of Object.keys(site.hosts)) addresses.add(n);
  }
  return {
    sites: new Set(Object.keys(inv.sites)),
    hosts: new Set(fleet.hosts.keys()),
    seats: new Set(fleet.seats.keys()),
    aliases: new Set(fleet.aliases.keys()),
    keys: new Set(Object.keys(inv.gateway.keys)),
    ups,
    addresses,
  };
}

/** The value as a label when the inventory names it, else null (the sample is left out). */
export function known(set: ReadonlySet<string>, value: string | undefined): string | null {
  if (value === undefined || !set.has(value)) return null;
  return cleanLabel(value);
}
