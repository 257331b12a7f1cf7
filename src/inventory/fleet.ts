// Lookups over a validated inventory: site → hosts → GPUs → seats → aliases. Every lookup by
// name goes through a Map: a site named "constructor" is found only when the inventory has one.
import type { Alias, Host, Inventory, Seat, Site } from './schema.ts';

export interface HostRef { name: string; site: string; host: Host }
export interface SeatRef { name: string; seat: Seat; host: HostRef; url: string }
export interface AliasRef {
  name: string;
  alias: Alias;
  seats: SeatRef[];
  paid: boolean;
  /** The gateway keys (names from gateway.keys) this alias is meant for; null: every key. */
  forKeys: string[] | null;
}

export class Fleet {
  readonly sites = new Map<string, Site>();
  readonly hosts = new Map<string, HostRef>();
  readonly seats = new Map<string, SeatRef>();
  readonly aliases = new Map<string, AliasRef>();

  constructor(readonly inventory: Inventory) {
    for (const [site, s] of Object.entries(inventory.sites)) {
      this.sites.set(site, s);
      for (const [name, host] of Object.entries(s.hosts)) this.hosts.set(name, { name, site, host });
    }
    for (const [name, seat] of Object.entries(inventory.seats)) {
      const host = this.hosts.get(seat.host);
      if (!host) continue; // the loader refuses such an inventory; this keeps the type honest
      this.seats.set(name, { name, seat, host, url: `http://${bracket(host.host.address)}:${seat.port}` });
    }
    for (const [name, alias] of Object.entries(inventory.aliases)) {
      const seats = alias.seats.flatMap((s) => this.seats.get(s) ?? []);
      this.aliases.set(name, { name, alias, seats, paid: alias.backend?.paid ?? false, forKeys: alias.keys ? [...alias.keys] : null });
    }
  }

  get siteNames(): string[] {
    return [...this.sites.keys()];
  }

  site(name: string): Site | undefined {
    return this.sites.get(name);
  }

  hostsAt(site: string): HostRef[] {
    return [...this.hosts.values()].filter((h) => h.site === site);
  }

  seatsAt(site: string): SeatRef[] {
    return [...this.seats.values()].filter((s) => s.host.site === site);
  }

  seatsOnGpu(host: string, index: number): SeatRef[] {
    return [...this.seats.values()].filter((s) => s.host.name === host && s.seat.gpus.includes(index));
  }

  /** The hosts an alias's traffic lands on; empty for an alias served by an outside backend. */
  aliasHosts(alias: string): string[] {
    return [...new Set(this.aliases.get(alias)?.seats.map((s) => s.host.name) ?? [])];
  }
}

function bracket(address: string): string {
  return address.includes(':') ? `[${address}]` : address;
}
