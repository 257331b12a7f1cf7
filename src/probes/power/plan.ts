// Power and out-of-band: the site's UPS through upsd, its BMCs, firewall and hosts by ICMP and TCP
// connect, and one control check per other site so a dark site can be told from our own network (a
// ping; TCP to its configured ports where ping cannot be measured here).
import type { Fleet } from '../../inventory/fleet.ts';
import type { OobDevice, OobPath } from '../../inventory/schema.ts';
import { makeFinding, measured } from '../finding.ts';
import type { AddressRole, Finding, FindingData, FindingStatus, Measurement, ProbeEnv, ProbeName, ProbeScope, ProbeTask, Reason } from '../types.ts';
import { innerBudget } from '../edge/timeout.ts';
import { runPing, type PingOutcome } from './icmp.ts';
import { tcpConnect, type TcpOutcome } from './tcp.ts';
import { upsTask } from './ups.ts';

export function planPowerTasks(fleet: Fleet, scope: ProbeScope, env: ProbeEnv): ProbeTask[] {
  const tasks: ProbeTask[] = [];
  const warnPct = fleet.inventory.settings.upsLoadWarnPct;
  for (const siteName of fleet.siteNames) {
    const site = fleet.site(siteName);
    if (!site) continue;
    if (!scope.sites.includes(siteName)) {
      const first = fleet.hostsAt(siteName)[0];
      // By ping; where ICMP cannot be measured here (no ping), by TCP to the ports the inventory names
      // for it (the firewall's management ports, or the seats' ports on the host).
      const control = site.firewall
        ? { name: `${siteName} firewall`, address: site.firewall.address, ports: site.firewall.tcpPorts }
        : first && { name: first.name, address: first.host.address, ports: [...fleet.seats.values()].filter((r) => r.host.name === first.name).map((r) => r.seat.port) };
      if (control) {
        const who: OobWho = { id: `power:control:${siteName}`, probe: 'firewall', role: 'control', name: control.name, target: `${control.name} (control)`, site: siteName };
        tasks.push(oobTask(env, who, { address: control.address, tcpPorts: [] }, [...new Set(control.ports)]));
      }
      continue;
    }
    if (site.ups) tasks.push(upsTask(env, siteName, site.ups, warnPct));
    for (const [name, bmc] of Object.entries(site.bmc)) {
      tasks.push(oobTask(env, { id: `power:bmc:${siteName}:${name}`, probe: 'bmc', role: 'bmc', name, target: name, site: siteName }, bmc));
    }
    // A BMC's or UPS's own way out (via: separate): is the site reachable out of band?
    const separate: [string, OobPath][] = [...Object.entries(site.bmc), ...(site.ups ? [[site.ups.name, site.ups] as const] : [])].flatMap(([device, d]) =>
      d.via === 'separate' && d.path ? [[device, d.path] as [string, OobPath]] : [],
    );
    for (const [device, path] of separate) {
      const target = `${device} via ${path.name ?? path.address} (separate path)`;
      tasks.push(oobTask(env, { id: `power:oob-path:${siteName}:${device}`, probe: 'oob-path', role: 'oob-path', name: device, target, site: siteName }, path));
    }
    if (site.firewall) {
      const name = `${siteName} firewall`;
      tasks.push(oobTask(env, { id: `power:firewall:${siteName}`, probe: 'firewall', role: 'firewall', name, target: name, site: siteName }, site.firewall));
    }
    for (const h of fleet.hostsAt(siteName)) {
      const who: OobWho = { id: `power:host:${siteName}:${h.name}`, probe: 'host', role: 'host', name: h.name, target: h.name, site: siteName, host: h.name };
      tasks.push(oobTask(env, who, { address: h.host.address, tcpPorts: [] }));
    }
  }
  return tasks;
}

interface OobWho {
  id: string;
  probe: ProbeName;
  role: AddressRole;
  name: string;
  target: string;
  site: string;
  host?: string;
}

/** `icmpElse`: TCP ports tried only when ping could not be measured (a control check). */
function oobTask(env: ProbeEnv, who: OobWho, dev: OobDevice, icmpElse: number[] = []): ProbeTask {
  const budget = innerBudget(env.timeoutMs);
  const pingArgv = [...(env.pingCommand ?? ['ping']), '-c', '1', '-W', String(Math.max(1, Math.floor(budget / 1000))), dev.address];
  const icmp: Measurement = { how: 'icmp', argv: pingArgv };
  const tcpVia = (ports: number[]): Measurement[] => ports.map((port): Measurement => ({ how: 'tcp', host: dev.address, port }));
  const subject = { kind: 'address' as const, site: who.site, role: who.role, name: who.name };
  const finding = (j: { status: FindingStatus; reason?: Reason | undefined; detail: string; latencyMs: number | null; data: FindingData }, via: Measurement[]): Finding =>
    makeFinding(env.clock, { probe: who.probe, target: who.target, subject, site: who.site, host: who.host, provenance: measured(...via), ...j });
  return {
    id: who.id,
    group: 'power',
    probe: who.probe,
    target: who.target,
    subject,
    site: who.site,
    ...(who.host ? { host: who.host } : {}),
    timeoutMs: env.timeoutMs,
    async run(signal) {
      const t0 = env.now();
      const [ping, tcp] = await Promise.all([runPing(pingArgv, env, budget, signal), Promise.all(dev.tcpPorts.map((p) => tcpConnect(dev.address, p, budget, signal, env.now)))]);
      const ports = ping.result === 'skipped' ? icmpElse.filter((p) => !dev.tcpPorts.includes(p)) : [];
      const left = Math.max(1, budget - (env.now() - t0));
      const instead = await Promise.all(ports.map((p) => tcpConnect(dev.address, p, left, signal, env.now)));
      // What was measured: ping only when it ran; a check that measured nothing names what it tried.
      const via = [...(ping.result === 'skipped' ? [] : [icmp]), ...tcpVia(dev.tcpPorts), ...tcpVia(ports)];
      return [finding(judgeOob(ping, tcp, instead), via.length > 0 ? via : [icmp])];
    },
    onTimeout: (ms) => [finding({ status: 'down', reason: 'timeout', detail: `no answer within ${ms} ms`, latencyMs: null, data: { kind: 'oob', ping: 'not_run', tcp: [] } }, [icmp, ...tcpVia(dev.tcpPorts)])],
  };
}

/**
 * One address from its ping and TCP connects. A ping not run is no check at all: never a failure, and
 * with nothing else measured the address is unknown for the ping's own reason (tool_missing when it
 * could not be started). `instead`: the TCP connects made because ICMP could not be measured.
 */
export function judgeOob(ping: PingOutcome, tcp: TcpOutcome[], instead: TcpOutcome[] = []): { status: FindingStatus; reason?: Reason; detail: string; latencyMs: number | null; data: FindingData } {
  const parts: string[] = [];
  if (ping.result === 'ok') parts.push(ping.rttMs !== null ? `ping ${Number(ping.rttMs.toPrecision(2))} ms` : 'ping answered');
  else if (ping.result === 'failed') parts.push(`no ICMP reply${ping.why ? ` (${ping.why})` : ''}`);
  else parts.push(`ping not run (${ping.why})`);
  for (const t of tcp) parts.push(`tcp/${t.port} ${t.ok ? 'open' : t.error}`);
  if (instead.length > 0) parts.push(`checked by TCP instead: ${instead.map((t) => `tcp/${t.port} ${t.ok ? 'open' : t.error}`).join(', ')}`);

  const all = [...tcp, ...instead];
  const checks = [...(ping.result === 'skipped' ? [] : [ping.result === 'ok']), ...all.map((t) => t.ok)];
  const passed = checks.filter(Boolean).length;
  const status: FindingStatus = checks.length === 0 ? 'unknown' : passed === checks.length ? 'up' : passed > 0 ? 'degraded' : 'down';
  const reason: Reason | undefined =
    status === 'up' ? undefined : status === 'unknown' ? (ping.result === 'skipped' ? ping.reason : 'not_measurable') : ping.result === 'failed' ? 'no_icmp_reply' : 'tcp_failed';
  const latencyMs = ping.result === 'ok' ? ping.rttMs : (all.find((t) => t.ok)?.latencyMs ?? null);
  const data: FindingData = { kind: 'oob', ping: ping.result, tcp: all.map((t) => ({ port: t.port, ok: t.ok, ...(t.error ? { error: t.error } : {}) })) };
  return { status, ...(reason ? { reason } : {}), detail: parts.join('; '), latencyMs, data };
}
