// Power and out-of-band: the site's UPS through upsd, its BMCs, firewall and hosts by ICMP and TCP
// connect, and one control ping per other site so a dark site can be told from our own network.
import type { Fleet } from '../../inventory/fleet.ts';
import type { OobDevice } from '../../inventory/schema.ts';
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
      const control = site.firewall ? { name: `${siteName} firewall`, address: site.firewall.address } : first && { name: first.name, address: first.host.address };
      if (control) {
        const who: OobWho = { id: `power:control:${siteName}`, probe: 'firewall', role: 'control', name: control.name, target: `${control.name} (control)`, site: siteName };
        tasks.push(oobTask(env, who, { address: control.address, tcpPorts: [] }));
      }
      continue;
    }
    if (site.ups) tasks.push(upsTask(env, siteName, site.ups, warnPct));
    for (const [name, bmc] of Object.entries(site.bmc)) {
      tasks.push(oobTask(env, { id: `power:bmc:${siteName}:${name}`, probe: 'bmc', role: 'bmc', name, target: name, site: siteName }, bmc));
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

function oobTask(env: ProbeEnv, who: OobWho, dev: OobDevice): ProbeTask {
  const budget = innerBudget(env.timeoutMs);
  const pingArgv = [...(env.pingCommand ?? ['ping']), '-c', '1', '-W', String(Math.max(1, Math.floor(budget / 1000))), dev.address];
  const via: Measurement[] = [{ how: 'icmp', argv: pingArgv }, ...dev.tcpPorts.map((port): Measurement => ({ how: 'tcp', host: dev.address, port }))];
  const subject = { kind: 'address' as const, site: who.site, role: who.role, name: who.name };
  const finding = (j: { status: FindingStatus; reason?: Reason | undefined; detail: string; latencyMs: number | null; data: FindingData }): Finding =>
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
      const [ping, tcp] = await Promise.all([runPing(pingArgv, env, budget, signal), Promise.all(dev.tcpPorts.map((p) => tcpConnect(dev.address, p, budget, signal, env.now)))]);
      return [finding(judgeOob(ping, tcp))];
    },
    onTimeout: (ms) => [finding({ status: 'down', reason: 'timeout', detail: `no answer within ${ms} ms`, latencyMs: null, data: { kind: 'oob', ping: 'not_run', tcp: [] } })],
  };
}

export function judgeOob(ping: PingOutcome, tcp: TcpOutcome[]): { status: FindingStatus; reason?: Reason; detail: string; latencyMs: number | null; data: FindingData } {
  const parts: string[] = [];
  if (ping.result === 'ok') parts.push(ping.rttMs !== null ? `ping ${Number(ping.rttMs.toPrecision(2))} ms` : 'ping answered');
  else if (ping.result === 'failed') parts.push(`no ICMP reply${ping.why ? ` (${ping.why})` : ''}`);
  else parts.push(`ping not run (${ping.why})`);
  for (const t of tcp) parts.push(`tcp/${t.port} ${t.ok ? 'open' : t.error}`);

  const checks = [...(ping.result === 'skipped' ? [] : [ping.result === 'ok']), ...tcp.map((t) => t.ok)];
  const passed = checks.filter(Boolean).length;
  const status: FindingStatus = checks.length === 0 ? 'unknown' : passed === checks.length ? 'up' : passed > 0 ? 'degraded' : 'down';
  const reason: Reason | undefined =
    status === 'up' ? undefined : status === 'unknown' ? 'not_measurable' : ping.result === 'failed' ? 'no_icmp_reply' : 'tcp_failed';
  const latencyMs = ping.result === 'ok' ? ping.rttMs : (tcp.find((t) => t.ok)?.latencyMs ?? null);
  const data: FindingData = { kind: 'oob', ping: ping.result, tcp: tcp.map((t) => ({ port: t.port, ok: t.ok, ...(t.error ? { error: t.error } : {}) })) };
  return { status, ...(reason ? { reason } : {}), detail: parts.join('; '), latencyMs, data };
}
