// How each out-of-band device of a site (its BMCs, its UPS) is reached: through the site's own firewall
// (`via: firewall`, the default where the site names one), or a separate path of its own (`via:
// separate`, an LTE router). Seed 002: the BMC rode the firewall the site's loss took down.
import type { OobPath, Site } from './schema.ts';

export interface OobRoute {
  device: string;
  kind: 'bmc' | 'ups';
  /** `unknown`: the inventory does not say and the site names no firewall. */
  via: 'firewall' | 'separate' | 'unknown';
  path?: OobPath;
}

export function oobRoutes(site: Site): OobRoute[] {
  const dflt = site.firewall ? 'firewall' : 'unknown';
  const out: OobRoute[] = Object.entries(site.bmc).map(([device, b]) => ({ device, kind: 'bmc' as const, via: b.via ?? dflt, ...(b.path ? { path: b.path } : {}) }));
  if (site.ups) out.push({ device: site.ups.name, kind: 'ups', via: site.ups.via ?? dflt, ...(site.ups.path ? { path: site.ups.path } : {}) });
  return out;
}

/** Every out-of-band device of the site reaches out through its own firewall (false when it has none). */
export function ridesFirewall(site: Site): boolean {
  const routes = oobRoutes(site);
  return routes.length > 0 && routes.every((r) => r.via === 'firewall');
}

/** What `seat check` says, once per site, when every out-of-band device rides the site's firewall. */
export function ridesFirewallWarning(siteName: string, site: Site): string | null {
  if (!ridesFirewall(site)) return null;
  const devices = oobRoutes(site).map((r) => r.device);
  return (
    `warning: every out-of-band device of ${siteName} (${devices.join(', ')}) is reached through the site's own firewall: ` +
    'a site-wide loss takes the BMC with it: power the firewall and BMC from the UPS, or give the BMC a separate path (via: separate, path: { address: … })'
  );
}
