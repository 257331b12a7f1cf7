// Facts of vantage points: where each finding was measured from (its provenance's `vantage`), and what
// each vantage saw of each site (facts.ts acrossVantages puts them together). With two vantages or
// more, a site is dark only when the vantages that can see elsewhere agree; one that fails where
// another succeeds is its own path's fault. And each site's out-of-band paths. Read from structured
// fields only: subject, status, provenance.
import type { Fleet } from '../inventory/fleet.ts';
import { oobRoutes } from '../inventory/oob-paths.ts';
import type { Finding, FindingStatus } from '../probes/types.ts';
import { vantageOf } from '../probes/vantage.ts';

export interface SiteVantages {
  site: string;
  /** Vantages from which every measured address of the site failed. */
  darkFrom: string[];
  /** Of those, the ones not at this site from which something elsewhere answered (another site, the
   * gateway, a seat): witnesses that the site itself is dark, not their own path. */
  witnesses: string[];
  /** Vantages from which something at the site answered. */
  reachedFrom: string[];
}

export interface VantageFacts {
  /** The vantages the findings were measured from, in the order first seen; empty when none names one
   * (a report made before schemaVersion 3). */
  names: string[];
  /** Where each vantage stands in the inventory: a site's name, a host's site, or null. */
  at: { vantage: string; site: string | null }[];
  /** Per site, with two vantages or more (empty with one). */
  sites: SiteVantages[];
}

export interface OobFacts {
  site: string;
  /** Out-of-band devices (BMCs, the UPS) reached only through the site's own firewall. */
  viaFirewall: string[];
  /** Every BMC of the site rides the site's firewall (false when it has none). */
  bmcViaFirewall: boolean;
  /** Each separate path probed (`via: separate`): its status, and the vantages it answered from. */
  paths: { device: string; path: string; status: FindingStatus; answeredFrom: string[] }[];
}

/** The vantages findings name, in the order first seen. */
export function vantageNames(findings: readonly Finding[]): string[] {
  const seen = new Set<string>();
  for (const f of findings) {
    const v = vantageOf(f);
    if (v !== null) seen.add(v);
  }
  return [...seen];
}

/** A vantage's site: a site of that name, else the site of a host of that name, else null. */
export function vantageSite(fleet: Fleet, vantage: string): string | null {
  if (fleet.site(vantage)) return vantage;
  return fleet.hosts.get(vantage)?.site ?? null;
}

const answered = (s: FindingStatus): boolean => s === 'up' || s === 'degraded';

/** Each site's out-of-band paths: what rides its firewall (inventory), what each separate path answered (findings). */
export function oobFacts(fleet: Fleet, findings: readonly Finding[]): OobFacts[] {
  const paths = findings.filter((f) => f.subject.kind === 'address' && f.subject.role === 'oob-path');
  return fleet.siteNames.flatMap((site) => {
    const s = fleet.site(site);
    if (!s) return [];
    const routes = oobRoutes(s);
    const bmcs = routes.filter((r) => r.kind === 'bmc');
    const mine = new Map<string, OobFacts['paths'][number]>();
    for (const f of paths) {
      if (f.subject.kind !== 'address' || f.subject.site !== site) continue;
      const route = routes.find((r) => r.device === (f.subject.kind === 'address' ? f.subject.name : ''));
      const p = mine.get(f.subject.name) ?? { device: f.subject.name, path: route?.path?.name ?? route?.path?.address ?? f.subject.name, status: f.status, answeredFrom: [] };
      if (answered(f.status)) {
        p.status = f.status;
        p.answeredFrom.push(vantageOf(f) ?? 'here');
      }
      mine.set(f.subject.name, p);
    }
    return [{ site, viaFirewall: routes.filter((r) => r.via === 'firewall').map((r) => r.device), bmcViaFirewall: bmcs.length > 0 && bmcs.every((r) => r.via === 'firewall'), paths: [...mine.values()] }];
  });
}

