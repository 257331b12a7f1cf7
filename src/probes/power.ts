// Power and out-of-band: the site's UPS through upsd, its BMCs, firewall and hosts by ICMP and TCP
// connect, and one control ping per other site so a dark site can be told from our own network.
import { connect as netConnect } from 'node:net';
import { execa } from 'execa';
import type { Fleet } from '../inventory/fleet.ts';
import type { OobDevice, Ups } from '../inventory/schema.ts';
import { listVars, type NutError } from './nut.ts';
import type { Finding, FindingData, FindingStatus, ProbeEnv, ProbeName, ProbeScope, ProbeTask, UpsReading } from './types.ts';

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
        tasks.push(oobTask(env, { id: `power:control:${siteName}`, probe: 'firewall', target: `${control.name} (control)`, site: siteName }, { address: control.address, tcpPorts: [] }));
      }
      continue;
    }
    if (site.ups) tasks.push(upsTask(env, siteName, site.ups, warnPct));
    for (const [name, bmc] of Object.entries(site.bmc)) {
      tasks.push(oobTask(env, { id: `power:bmc:${siteName}:${name}`, probe: 'bmc', target: name, site: siteName }, bmc));
    }
    if (site.firewall) {
      tasks.push(oobTask(env, { id: `power:firewall:${siteName}`, probe: 'firewall', target: `${siteName} firewall`, site: siteName }, site.firewall));
    }
    for (const h of fleet.hostsAt(siteName)) {
      tasks.push(oobTask(env, { id: `power:host:${siteName}:${h.name}`, probe: 'host', target: h.name, site: siteName, host: h.name }, { address: h.host.address, tcpPorts: [] }));
    }
  }
  return tasks;
}

/** The probe's own budget: a little under the runner's, so the probe reports what it saw before the runner gives up on it. */
function innerBudget(timeoutMs: number): number {
  return Math.max(1, timeoutMs - Math.min(100, Math.floor(timeoutMs / 10)));
}

function hostPort(host: string, port: number): string {
  return `${host.includes(':') ? `[${host}]` : host}:${port}`;
}

// ---- UPS ---------------------------------------------------------------------------------------

function upsTask(env: ProbeEnv, site: string, ups: Ups, warnPct: number): ProbeTask {
  const where = hostPort(ups.host, ups.port);
  const base = { probe: 'ups' as const, target: `${ups.name}@${where}`, site, measuredBy: `NUT LIST VAR ${ups.name} @${where}` };
  return {
    id: `power:ups:${site}:${ups.name}`,
    group: 'power',
    probe: 'ups',
    target: base.target,
    site,
    timeoutMs: env.timeoutMs,
    async run(signal) {
      const r = await listVars(ups.name, { host: ups.host, port: ups.port, timeoutMs: innerBudget(env.timeoutMs), signal, now: env.now });
      if (!r.ok) return [{ ...base, ...upsError(r.error, ups, where), latencyMs: null }];
      const judged = judgeUps(r.vars, ups, warnPct);
      return [{ ...base, status: judged.status, detail: judged.detail, latencyMs: r.latencyMs, data: { kind: 'ups', ups: judged.reading } }];
    },
    onTimeout: (ms) => [{ ...base, status: 'down', detail: `upsd unreachable at ${where}: no answer within ${ms} ms`, latencyMs: null }],
  };
}

function upsError(e: NutError, ups: Ups, where: string): { status: FindingStatus; detail: string } {
  switch (e.code) {
    case 'nut_data_stale':
      return { status: 'down', detail: `upsd has only stale data for ${ups.name}: its driver lost contact with the UPS hardware (ERR DATA-STALE)` };
    case 'nut_driver_not_connected':
      return { status: 'down', detail: `upsd runs but no driver is connected for ${ups.name}: nothing is reading the UPS (ERR DRIVER-NOT-CONNECTED)` };
    case 'nut_unknown_ups':
      return { status: 'unknown', detail: `upsd at ${where} has no UPS named ${ups.name}: check ups.name in the inventory (ERR UNKNOWN-UPS)` };
    case 'nut_access_denied':
      return { status: 'unknown', detail: `upsd at ${where} refused to list ${ups.name} to this machine: check its upsd.conf/upsd.users (ERR ACCESS-DENIED)` };
    case 'nut_error':
      return { status: 'unknown', detail: `upsd at ${where} answered ERR ${e.nutCode ?? ''}`.trimEnd() };
    case 'connect_refused':
      return { status: 'down', detail: `upsd unreachable at ${where}: connection refused (nothing listening, or upsd is not running)` };
    case 'connect_failed':
    case 'connect_timeout':
      return { status: 'down', detail: `upsd unreachable at ${where}: ${e.message}` };
    case 'answer_timeout':
      return { status: 'unknown', detail: `upsd at ${where} accepted the connection but sent no answer: ${e.message}` };
    case 'closed':
    case 'protocol':
      return { status: 'unknown', detail: `upsd at ${where}: ${e.message}` };
    case 'aborted':
      return { status: 'unknown', detail: `UPS probe stopped before upsd answered` };
  }
}

const FLAG_MEANING: Record<string, string> = {
  LB: 'battery low, the UPS is about to cut its outputs',
  FSD: 'forced shutdown in progress',
  OFF: 'UPS output is off',
  OB: 'on battery: mains power is lost',
  OVER: 'the UPS reports an overload',
  BYPASS: 'on bypass: the load has no battery protection',
  RB: 'the battery needs replacing',
};
const SEED_002 = ' — seed 002: the 1500 VA unit was the first device to give';
const DOWN_FLAGS = ['LB', 'FSD', 'OFF'];
const DEGRADED_FLAGS = ['OB', 'OVER', 'BYPASS', 'RB'];

/** Reads upsd's variables against the inventory's rating. Pure. */
export function judgeUps(vars: Record<string, string>, ups: Ups, warnPct: number): { status: FindingStatus; detail: string; reading: UpsReading } {
  const flags = (vars['ups.status'] ?? '').trim().split(/\s+/).filter(Boolean);
  const loadPct = num(vars['ups.load']);
  const ratedW = num(vars['ups.realpower.nominal']) ?? ups.ratedW ?? null;
  // A UPS that meters its output (ups.realpower) is believed over load % × rating, which is an estimate.
  const meteredW = num(vars['ups.realpower']);
  const loadW = meteredW ?? (loadPct !== null && ratedW !== null ? Math.round((loadPct * ratedW) / 100) : null);
  const loadWFrom: UpsReading['loadWFrom'] = meteredW !== null ? 'ups.realpower' : loadW !== null ? 'load×rating' : null;
  const chargePct = num(vars['battery.charge']);
  const runtimeS = num(vars['battery.runtime']);
  const reading: UpsReading = { ups: ups.name, status: flags, loadPct, loadW, loadWFrom, ratedW, chargePct, runtimeS, vars };

  const parts = [flags.length > 0 ? flags.join(' ') : 'no ups.status'];
  const rating = ratedW !== null ? ` of ${fmt(ratedW)} W rating` : '';
  if (loadPct !== null) {
    const watts =
      meteredW !== null ? ` (${fmt(meteredW)} W metered by the UPS${rating})`
      : loadW !== null ? ` (≈${fmt(loadW)} W${rating}, from load % × rating)`
      : ' (no watt rating: set ratedW in the inventory)';
    parts.push(`load ${fmt(loadPct)}%${watts}`);
  } else if (meteredW !== null) {
    parts.push(`drawing ${fmt(meteredW)} W metered by the UPS${rating}`);
  }
  if (chargePct !== null) parts.push(`battery ${fmt(chargePct)}%`);
  if (runtimeS !== null) parts.push(`runtime ${fmt(runtimeS)} s`);

  const problems: string[] = [];
  for (const f of [...DOWN_FLAGS, ...DEGRADED_FLAGS]) if (flags.includes(f)) problems.push(`${f}: ${FLAG_MEANING[f]}`);
  const overPct = loadPct !== null && loadPct > warnPct;
  const overW = meteredW !== null && ratedW !== null && meteredW > (warnPct * ratedW) / 100;
  const overloaded = overPct || overW;
  if (overPct) {
    const of = ratedW !== null ? `${fmt(warnPct)}% of the ${fmt(ratedW)} W rating` : `the ${fmt(warnPct)}% warning threshold`;
    problems.push(`load ${fmt(loadPct)}% is above ${of}${SEED_002}`);
  } else if (overW) {
    problems.push(`${fmt(meteredW)} W metered is above ${fmt(warnPct)}% of the ${fmt(ratedW!)} W rating (${fmt((warnPct * ratedW!) / 100)} W) although ups.load reads ${loadPct === null ? 'nothing' : `${fmt(loadPct)}%`}${SEED_002}`);
  }

  let status: FindingStatus;
  if (flags.some((f) => DOWN_FLAGS.includes(f))) status = 'down';
  else if (overloaded || flags.some((f) => DEGRADED_FLAGS.includes(f))) status = 'degraded';
  else if (flags.includes('OL')) status = 'up';
  else {
    status = 'unknown';
    problems.push(flags.length === 0 ? 'upsd gave no ups.status' : 'neither OL nor OB in ups.status');
  }
  const detail = parts.join(', ') + (problems.length > 0 ? ` — ${problems.join('; ')}` : '');
  return { status, detail, reading };
}

function num(v: string | undefined): number | null {
  if (v === undefined || v.trim() === '') return null;
  const n = Number(v);
  return Number.isFinite(n) ? n : null;
}

function fmt(n: number): string {
  return n.toLocaleString('en-US', { maximumFractionDigits: 1 });
}

// ---- BMC, firewall, hosts ----------------------------------------------------------------------

interface OobWho {
  id: string;
  probe: ProbeName;
  target: string;
  site: string;
  host?: string;
}

type PingOutcome = { result: 'ok'; rttMs: number | null } | { result: 'failed'; why: string } | { result: 'skipped'; why: string };
type TcpOutcome = { port: number; ok: boolean; error?: string; latencyMs: number | null };

function oobTask(env: ProbeEnv, who: OobWho, dev: OobDevice): ProbeTask {
  const pingArgv = [...(env.pingCommand ?? ['ping']), '-c', '1', '-W', String(Math.max(1, Math.floor(innerBudget(env.timeoutMs) / 1000))), dev.address];
  const measuredBy = [pingArgv.join(' '), ...dev.tcpPorts.map((p) => `tcp connect ${hostPort(dev.address, p)}`)].join('; ');
  const base = { probe: who.probe, target: who.target, site: who.site, ...(who.host ? { host: who.host } : {}), measuredBy };
  return {
    id: who.id,
    group: 'power',
    probe: who.probe,
    target: who.target,
    site: who.site,
    ...(who.host ? { host: who.host } : {}),
    timeoutMs: env.timeoutMs,
    async run(signal) {
      const budget = innerBudget(env.timeoutMs);
      const [ping, tcp] = await Promise.all([runPing(pingArgv, env, budget, signal), Promise.all(dev.tcpPorts.map((p) => tcpConnect(dev.address, p, budget, signal, env.now)))]);
      return [{ ...base, ...judgeOob(ping, tcp) }];
    },
    onTimeout: (ms) => [{ ...base, status: 'down', detail: `no answer within ${ms} ms`, latencyMs: null }],
  };
}

function judgeOob(ping: PingOutcome, tcp: TcpOutcome[]): Pick<Finding, 'status' | 'detail' | 'latencyMs' | 'data'> {
  const parts: string[] = [];
  if (ping.result === 'ok') parts.push(ping.rttMs !== null ? `ping ${Number(ping.rttMs.toPrecision(2))} ms` : 'ping answered');
  else if (ping.result === 'failed') parts.push(`no ICMP reply${ping.why ? ` (${ping.why})` : ''}`);
  else parts.push(`ping not run (${ping.why})`);
  for (const t of tcp) parts.push(`tcp/${t.port} ${t.ok ? 'open' : t.error}`);

  const checks = [...(ping.result === 'skipped' ? [] : [ping.result === 'ok']), ...tcp.map((t) => t.ok)];
  const passed = checks.filter(Boolean).length;
  const status: FindingStatus = checks.length === 0 ? 'unknown' : passed === checks.length ? 'up' : passed > 0 ? 'degraded' : 'down';
  const latencyMs = ping.result === 'ok' ? ping.rttMs : (tcp.find((t) => t.ok)?.latencyMs ?? null);
  const data: FindingData = { kind: 'oob', ping: ping.result, tcp: tcp.map((t) => ({ port: t.port, ok: t.ok, ...(t.error ? { error: t.error } : {}) })) };
  return { status, detail: parts.join('; '), latencyMs, data };
}

async function runPing(argv: string[], env: ProbeEnv, budgetMs: number, signal: AbortSignal): Promise<PingOutcome> {
  const [file, ...args] = argv as [string, ...string[]];
  const path = [...(env.pathPrefix ?? []), env.env.PATH ?? '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin'].join(':');
  const r = await execa(file, args, {
    reject: false,
    timeout: budgetMs,
    cancelSignal: signal,
    forceKillAfterDelay: 200,
    extendEnv: false,
    env: { ...env.env, PATH: path, LC_ALL: 'C' },
    stdin: 'ignore',
  });
  if (r.exitCode === 0) {
    const m = /time[=<]([\d.]+) ?ms/.exec(r.stdout);
    return { result: 'ok', rttMs: m ? Number(m[1]) : null };
  }
  if (r.code === 'ENOENT') return { result: 'skipped', why: `${file} not found on PATH` };
  if (r.timedOut) return { result: 'failed', why: `none within ${budgetMs} ms` };
  if (r.isCanceled) return { result: 'failed', why: 'stopped' };
  // Exit 1: sent, and no echo reply came (a router may have said why); 2 and others: ping could not send at all.
  const icmpError = firstLine(r.stdout.split('\n').filter((l) => /unreachable|prohibited|exceeded/i.test(l)).join('\n'));
  const said = firstLine(r.stderr) || icmpError;
  if (/operation not permitted|permission denied/i.test(said)) return { result: 'skipped', why: `ping may not run here: ${said}` };
  return { result: 'failed', why: r.exitCode === 1 ? said : said || `exit ${r.exitCode ?? r.signal ?? '?'}` };
}

function firstLine(s: string): string {
  return s.split('\n').map((l) => l.trim()).find(Boolean) ?? '';
}

function tcpConnect(host: string, port: number, budgetMs: number, signal: AbortSignal, now: () => number): Promise<TcpOutcome> {
  const t0 = now();
  if (signal.aborted) return Promise.resolve({ port, ok: false, error: 'stopped', latencyMs: null });
  return new Promise((resolve) => {
    const socket = netConnect({ host, port });
    let settled = false;
    const done = (ok: boolean, error?: string): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      signal.removeEventListener('abort', onAbort);
      socket.destroy();
      resolve({ port, ok, ...(error ? { error } : {}), latencyMs: ok ? Math.round((now() - t0) * 10) / 10 : null });
    };
    const onAbort = (): void => done(false, 'stopped');
    const timer = setTimeout(() => done(false, `no answer within ${budgetMs} ms`), budgetMs);
    signal.addEventListener('abort', onAbort, { once: true });
    socket.once('connect', () => done(true));
    socket.on('error', (err: NodeJS.ErrnoException) => done(false, err.code === 'ECONNREFUSED' ? 'refused' : (err.code ?? err.message)));
  });
}
