// An alert's labels to what the inventory holds: a site, a host (Prometheus's `instance`, with or
// without its port), an alias, a GPU. The label names come from the inventory's `alerts.labels`
// (defaults site, instance, alias, gpu). A value the inventory does not hold maps to nothing, and
// says which label it was: a peer's string is never taken for a site.
import type { Fleet } from '../inventory/fleet.ts';
import type { AlertsSettings } from '../inventory/schema.ts';
import { PROBE_GROUPS, type ProbeGroup } from '../probes/types.ts';
import { clean } from './alert-payload.ts';

export const DEFAULT_LABELS: AlertsSettings['labels'] = { site: 'site', host: 'instance', alias: 'alias', gpu: 'gpu' };

export interface AlertTarget {
  site: string;
  /** The probe groups to run: `gpus` for a GPU alert, `aliases` for an alias's, every group otherwise. */
  only: ProbeGroup[];
  /** What the alert is about, in the inventory's words: `site fv`, `host fv-ml1 GPU 2`, `alias gen`. */
  what: string;
}

export type MapResult = { ok: true; value: AlertTarget } | { ok: false; why: string };

/** The host an `instance` names: its name, its address, or its name as the first label of a FQDN; the port dropped. */
export function hostOf(fleet: Fleet, instance: string): string | null {
  const m = /^\[([^\]]+)\](?::\d+)?$/.exec(instance) ?? /^([^:]+)(?::\d+)?$/.exec(instance);
  const bare = m?.[1] ?? instance; // an IPv6 without brackets has colons: taken whole
  if (fleet.hosts.has(bare)) return bare;
  for (const h of fleet.hosts.values()) if (h.host.address === bare || h.host.address === instance) return h.name;
  const first = bare.split('.')[0] ?? '';
  if (first !== bare && fleet.hosts.has(first)) return first;
  return null;
}

const shown = (v: string): string => JSON.stringify(clean(v, 80));

export function mapAlert(fleet: Fleet, labels: Readonly<Record<string, string>>, names: AlertsSettings['labels'] = DEFAULT_LABELS): MapResult {
  const get = (n: string): string | undefined => (Object.hasOwn(labels, n) ? labels[n] : undefined);
  const siteV = get(names.site);
  const hostV = get(names.host);
  const aliasV = get(names.alias);
  const gpuV = get(names.gpu);
  let site: string | undefined;
  if (siteV !== undefined) {
    if (!fleet.sites.has(siteV)) return { ok: false, why: `${names.site}=${shown(siteV)} is no site of the inventory (${fleet.siteNames.join(', ')})` };
    site = siteV;
  }
  let host: string | undefined;
  if (hostV !== undefined) {
    const h = hostOf(fleet, hostV);
    // An instance that is no host (a Prometheus target of something else) is not a mapping failure when the site is named.
    if (h === null && site === undefined) return { ok: false, why: `${names.host}=${shown(hostV)} is no host of the inventory (by name or address)` };
    if (h !== null) {
      const at = fleet.hosts.get(h)!.site;
      if (site !== undefined && at !== site) return { ok: false, why: `${names.host}=${shown(hostV)} is host ${h}, at site ${at}, not ${site}` };
      site = at;
      host = h;
    }
  }
  if (gpuV !== undefined && host !== undefined) {
    const index = /^\d{1,3}$/.test(gpuV) ? Number(gpuV) : NaN;
    const gpus = fleet.hosts.get(host)!.host.gpus;
    if (!gpus.some((g) => g.index === index || g.uuid === gpuV)) return { ok: false, why: `${names.gpu}=${shown(gpuV)} is no GPU of host ${host} (${gpus.map((g) => g.index).join(', ') || 'none listed'})` };
    return { ok: true, value: { site: site!, only: ['gpus'], what: `host ${host} GPU ${gpuV}` } };
  }
  if (aliasV !== undefined && host === undefined) {
    const alias = fleet.aliases.get(aliasV);
    if (!alias) {
      if (site === undefined) return { ok: false, why: `${names.alias}=${shown(aliasV)} is no alias of the inventory` };
    } else {
      const sites = [...new Set(alias.seats.map((s) => s.host.site))];
      const at = site ?? (sites.length === 1 ? sites[0] : undefined) ?? 'all';
      return { ok: true, value: { site: at, only: ['aliases'], what: `alias ${alias.name}` } };
    }
  }
  if (site === undefined) return { ok: false, why: `no label names a site, host or alias of the inventory (looked at ${[names.site, names.host, names.alias, names.gpu].join(', ')})` };
  return { ok: true, value: { site, only: [...PROBE_GROUPS], what: host ? `host ${host}` : `site ${site}` } };
}
