// `seat check`: what a valid inventory describes, as the probes will read it. Names of key
// variables and whether they are set, never their values; the base URL cannot hold a password
// (the schema refuses one).
import type { Fleet } from '../inventory/fleet.ts';
import type { Seat } from '../inventory/schema.ts';
import { cardBudgetText, sharedCards } from '../inventory/shared-cards.ts';
import { oobRoutes, ridesFirewallWarning, type OobRoute } from '../inventory/oob-paths.ts';
import { memoryPath } from './probe-memory.ts';
import { resolveVantage } from '../probes/vantage.ts';

const n = (x: number): string => x.toLocaleString('en-US');
const plural = (count: number, one: string, many = `${one}s`): string => `${n(count)} ${count === 1 ? one : many}`;

export function describeFleet(fleet: Fleet, path: string, env: NodeJS.ProcessEnv): string {
  const inv = fleet.inventory;
  const gpus = [...fleet.hosts.values()].reduce((sum, h) => sum + h.host.gpus.length, 0);
  const out: string[] = [
    `${path}: a valid inventory`,
    `fleet ${JSON.stringify(inv.fleet)}${inv.drill ? ' (DRILL: stand-ins, not the real fleet)' : ''}: ${plural(fleet.sites.size, 'site')}, ${plural(fleet.hosts.size, 'host')}, ${plural(gpus, 'GPU')}, ${plural(fleet.seats.size, 'seat')}, ${plural(fleet.aliases.size, 'alias', 'aliases')}`,
    `settings: probe timeout ${n(inv.settings.probeTimeoutMs)} ms, deadline ${n(inv.settings.deadlineMs)} ms, concurrency ${inv.settings.concurrency}, GPU free floor ${n(inv.settings.marginFloorMiB)} MiB, UPS load warning ${inv.settings.upsLoadWarnPct}%`,
    `probe memory (what timed out is asked first; restart counts compared): ${memoryPath(env, inv.fleet, path) ?? 'off (SEAT_PROBE_MEMORY=off)'}`,
    `vantage (where this machine's findings say they were measured from): ${vantageWords(env, inv.vantage)}`,
    `on call: ${inv.oncall.users.join(', ') || 'no users'}${inv.oncall.userGroup ? `, group ${inv.oncall.userGroup}` : ''}; channels ${inv.oncall.channels.join(', ') || 'none'}`,
    '',
    `gateway ${inv.gateway.baseUrl}`,
  ];
  for (const [name, key] of Object.entries(inv.gateway.keys)) {
    out.push(`  key ${name.padEnd(12)} from $${key.env} (${env[key.env] ? 'set' : 'not set here'})`);
  }
  for (const [siteName, site] of fleet.sites) {
    out.push('', `site ${siteName}${site.description ? ` — ${site.description.replace(/\p{Cc}/gu, '')}` : ''}`);
    for (const h of fleet.hostsAt(siteName)) {
      const gpuList = h.host.gpus.length > 0 ? `GPUs ${h.host.gpus.map((g) => g.index).join(' ')}` : 'no GPUs';
      out.push(`  host ${h.name.padEnd(14)} ${h.host.address.padEnd(15)} ssh ${h.host.ssh.padEnd(20)} ${h.host.gpuVendor}, ${gpuList}`);
    }
    const routes = new Map(oobRoutes(site).map((r) => [`${r.kind}:${r.device}`, r]));
    if (site.ups) {
      const rating = [site.ups.ratedVA ? `${n(site.ups.ratedVA)} VA` : '', site.ups.ratedW ? `${n(site.ups.ratedW)} W` : ''].filter(Boolean).join(' / ');
      out.push(`  ups  ${site.ups.name} on ${site.ups.host}:${site.ups.port} (NUT)${rating ? `, rated ${rating}` : ''}${viaText(routes.get(`ups:${site.ups.name}`))}`);
    }
    for (const [name, bmc] of Object.entries(site.bmc)) out.push(`  bmc  ${name} ${bmc.address}${ports(bmc.tcpPorts)}${viaText(routes.get(`bmc:${name}`))}`);
    if (site.firewall) out.push(`  firewall ${site.firewall.address}${ports(site.firewall.tcpPorts)}`);
    const warning = ridesFirewallWarning(siteName, site);
    if (warning) out.push(`  ${warning}`);
  }
  out.push('', fleet.seats.size > 0 ? 'seats' : 'seats: none');
  for (const s of fleet.seats.values()) {
    const gpusText = `GPU${s.seat.gpus.length > 1 ? 's' : ''} ${s.seat.gpus.join(',')}`;
    const container = s.seat.runtime === 'systemd' ? `, systemd unit ${s.seat.unit ?? `${s.name}.service`}` : s.seat.container ? `, container ${s.seat.container}` : '';
    out.push(`  ${s.name.padEnd(16)} ${s.host.name} ${gpusText}, port ${s.seat.port}, budget ${budget(s.seat)}${container}`);
  }
  const shared = sharedCards(inv);
  if (shared.length > 0) {
    out.push('', "cards shared by seats (declared budgets added up; the card's size is measured by seat probe, not declared)");
    for (const c of shared) out.push(`  ${`${c.host} GPU${c.index}`.padEnd(16)} ${cardBudgetText(c)}${c.over ? ' — OVER the whole card: they cannot all start' : ''}`);
  }
  out.push('', fleet.aliases.size > 0 ? 'aliases' : 'aliases: none');
  for (const a of fleet.aliases.values()) {
    const to = a.alias.backend
      ? `backend ${a.alias.backend.name}`
      : a.seats.map((s) => `${s.name}@${s.host.name}`).join(', ');
    const notes = [a.paid ? 'paid' : '', a.alias.optIn ? 'opt-in' : '', a.forKeys ? `keys: ${a.forKeys.join(', ')}` : ''].filter(Boolean);
    out.push(`  ${a.name.padEnd(16)} ${a.alias.kind.padEnd(9)} → ${to}${notes.length > 0 ? `  (${notes.join(', ')})` : ''}`);
  }
  return out.join('\n');
}

function vantageWords(env: NodeJS.ProcessEnv, inventoryVantage: string | undefined): string {
  const v = resolveVantage(env, inventoryVantage);
  if (!v.ok) return `not valid: ${v.error}`;
  return `${v.vantage} (${v.from === 'SEAT_VANTAGE' ? 'from SEAT_VANTAGE' : v.from === 'inventory' ? "the inventory's vantage:" : 'the host name: set SEAT_VANTAGE or vantage: to name it'})`;
}

/** How an out-of-band device is reached: its firewall, or its separate path (probed from every vantage). */
function viaText(r: OobRoute | undefined): string {
  if (!r || r.via === 'unknown') return '';
  return r.via === 'firewall' ? ', via the site firewall' : `, via a separate path ${r.path?.name ? `${r.path.name} ` : ''}${r.path?.address ?? ''}${ports(r.path?.tcpPorts ?? [])}`;
}

function ports(list: number[]): string {
  return list.length > 0 ? `, tcp ${list.join(',')}` : '';
}

function budget(seat: Seat): string {
  if (seat.kvCacheMemoryBytes !== undefined) return `KV cache ${n(Math.round(seat.kvCacheMemoryBytes / 2 ** 20))} MiB + weights`;
  if (seat.gpuMemoryUtilization !== undefined) return `${seat.gpuMemoryUtilization} of the card`;
  return 'not declared';
}
