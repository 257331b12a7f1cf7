// Turns findings into a verdict a tired person can act on. Pure: the same findings give the same words.
import type { Fleet } from '../inventory/fleet.ts';
import type { Finding, FindingStatus } from '../probes/types.ts';
import { RUNBOOKS, type RunbookId } from './runbooks.ts';

export interface AliasSummary {
  total: number;
  up: number;
  down: number;
  degraded: number;
  unknown: number;
  /** Down aliases grouped by the host they route to (`paid:<backend>` for outside backends). */
  downByHost: Record<string, string[]>;
}

export interface FallbackSummary {
  kind: 'chat' | 'embedding';
  /** Free local aliases of this kind that answered. */
  localUp: string[];
  /** Paid aliases of this kind (opt-in names only). */
  paid: string[];
  /** Hosts of the down aliases of this kind. */
  downOn: string[];
}

export interface SiteState {
  site: string;
  state: 'up' | 'dark' | 'partial' | 'not probed';
  answered: number;
  failed: number;
  /** Every BMC of the site was probed and failed (false when it has none or one answered). */
  bmcDown: boolean;
}

/** The gateway as the key listings saw it. Unset keys were not measured and decide nothing. */
export interface GatewaySummary {
  /** Keys whose listing was measured (anything but unknown). */
  measured: number;
  /** Every measured key failed to list: the gateway or the keys, not the hosts. */
  listingFailed: boolean;
  /** Every measured key failed without an answer (connection, timeout, 5xx). */
  unreachable: boolean;
  /** Every measured key was refused (401/403). */
  rejected: boolean;
  /** Env variables of the keys that were rejected, and of those that are not set. */
  rejectedVars: string[];
  unsetVars: string[];
}

export interface Summary {
  aliases: AliasSummary;
  gateway: GatewaySummary;
  fallback: FallbackSummary[];
  gpus: { total: number; underFloor: { target: string; freeMiB: number; floorMiB: number }[]; unknown: number };
  sites: SiteState[];
  counts: Record<FindingStatus, number>;
}

export interface Verdict {
  status: 'ok' | 'degraded' | 'down';
  headline: string;
  lines: string[];
  runbook: RunbookId | null;
}

export function summarize(fleet: Fleet, findings: Finding[]): Summary {
  const counts: Record<FindingStatus, number> = { up: 0, down: 0, degraded: 0, unknown: 0 };
  for (const f of findings) counts[f.status] += 1;
  return {
    aliases: aliasSummary(fleet, findings),
    gateway: gatewaySummary(fleet, findings),
    fallback: fallbacks(fleet, findings),
    gpus: gpuSummary(findings),
    sites: siteStates(fleet, findings),
    counts,
  };
}

function aliasSummary(fleet: Fleet, findings: Finding[]): AliasSummary {
  const aliases = findings.filter((f) => f.probe === 'alias');
  const downByHost: Record<string, string[]> = {};
  for (const f of aliases.filter((a) => a.status === 'down')) {
    for (const where of routeOf(fleet, f.target)) (downByHost[where] ??= []).push(f.target);
  }
  const n = (s: FindingStatus): number => aliases.filter((a) => a.status === s).length;
  return { total: aliases.length, up: n('up'), down: n('down'), degraded: n('degraded'), unknown: n('unknown'), downByHost };
}

function gatewaySummary(fleet: Fleet, findings: Finding[]): GatewaySummary {
  const keys = Object.entries(fleet.inventory.gateway.keys).map(([name, k]) => ({
    envVar: k.env,
    finding: findings.find((f) => f.probe === 'gateway' && f.target === `gateway (${name} key)`),
  }));
  const measured = keys.filter((k) => k.finding && k.finding.status !== 'unknown');
  const isRejected = (f: Finding | undefined): boolean => f?.status === 'down' && /key rejected/i.test(f.detail);
  const listingFailed = measured.length > 0 && measured.every((k) => k.finding?.status === 'down');
  return {
    measured: measured.length,
    listingFailed,
    unreachable: listingFailed && measured.every((k) => !isRejected(k.finding)),
    rejected: listingFailed && measured.every((k) => isRejected(k.finding)),
    rejectedVars: measured.filter((k) => isRejected(k.finding)).map((k) => k.envVar),
    unsetVars: keys.filter((k) => k.finding?.status === 'unknown' && /is not set/.test(k.finding.detail)).map((k) => k.envVar),
  };
}

function routeOf(fleet: Fleet, alias: string): string[] {
  const hosts = fleet.aliasHosts(alias);
  if (hosts.length > 0) return hosts;
  const backend = fleet.aliases.get(alias)?.alias.backend;
  return [backend ? `${backend.paid ? 'paid' : 'backend'}:${backend.name}` : 'not in inventory'];
}

function fallbacks(fleet: Fleet, findings: Finding[]): FallbackSummary[] {
  const status = new Map(findings.filter((f) => f.probe === 'alias').map((f) => [f.target, f.status]));
  const out: FallbackSummary[] = [];
  for (const kind of ['chat', 'embedding'] as const) {
    const ofKind = [...fleet.aliases.values()].filter((a) => a.alias.kind === kind && status.has(a.name));
    // A paid alias down leaves the local ones as they were: no fallback to talk about.
    const down = ofKind.filter((a) => !a.paid && status.get(a.name) === 'down');
    if (down.length === 0) continue;
    out.push({
      kind,
      localUp: ofKind.filter((a) => !a.paid && !a.alias.optIn && status.get(a.name) === 'up').map((a) => a.name),
      paid: ofKind.filter((a) => a.paid).map((a) => a.name),
      downOn: [...new Set(down.flatMap((a) => routeOf(fleet, a.name)))],
    });
  }
  return out;
}

function gpuSummary(findings: Finding[]): Summary['gpus'] {
  const gpus = findings.filter((f) => f.probe === 'gpu');
  const underFloor: Summary['gpus']['underFloor'] = [];
  for (const f of gpus) {
    if (f.data?.kind !== 'gpu') continue;
    const { freeMiB, floorMiB } = f.data.gpu;
    if (freeMiB !== null && freeMiB < floorMiB) underFloor.push({ target: f.target, freeMiB, floorMiB });
  }
  return { total: gpus.length, underFloor, unknown: gpus.filter((f) => f.status === 'unknown').length };
}

const ADDRESS_PROBES = new Set(['bmc', 'firewall', 'host', 'ups']);

function siteStates(fleet: Fleet, findings: Finding[]): SiteState[] {
  return fleet.siteNames.map((site) => {
    const mine = findings.filter((f) => f.site === site && ADDRESS_PROBES.has(f.probe));
    const answered = mine.filter((f) => f.status === 'up' || f.status === 'degraded').length;
    const failed = mine.filter((f) => f.status === 'down').length;
    let state: SiteState['state'];
    // Dark: nothing at the site answered and at least one address definitely failed.
    if (answered + failed === 0) state = 'not probed';
    else if (answered === 0) state = 'dark';
    else state = failed === 0 ? 'up' : 'partial';
    const bmcs = mine.filter((f) => f.probe === 'bmc');
    return { site, state, answered, failed, bmcDown: bmcs.length > 0 && bmcs.every((f) => f.status === 'down') };
  });
}

export function decide(sites: string[], findings: Finding[], summary: Summary): Verdict {
  const lines: string[] = [];
  const { aliases } = summary;
  const scoped = summary.sites.filter((s) => sites.includes(s.site));
  const others = summary.sites.filter((s) => !sites.includes(s.site));
  const dark = scoped.filter((s) => s.state === 'dark');
  const othersAnswer = others.some((s) => s.state === 'up' || s.state === 'partial');
  let runbook: RunbookId | null = null;

  // With every measured key failing at the listing, where each alias routes says nothing: every
  // one is cut off at the gateway (or by its key), not by its host.
  const gw = summary.gateway;
  if (gw.listingFailed && aliases.down > 0) {
    lines.push(`${aliases.down} of ${aliases.total} aliases down, all cut off at the gateway${gw.rejected ? ' by rejected keys' : ''}`);
    const seats = findings.filter((f) => f.probe === 'seat');
    const silent = seats.filter((f) => f.status === 'down');
    if (silent.length > 0) lines.push(`${silent.length} of ${seats.length} backend seats probed directly do not answer either: not only the gateway is down`);
    else if (seats.length > 0) lines.push(`all ${seats.length} backend seats probed directly answer: the fault is the gateway's`);
  } else if (aliases.down + aliases.degraded > 0) lines.push(blastRadius(aliases));
  if (!gw.listingFailed) for (const fb of summary.fallback) lines.push(fallbackLine(fb));
  if (gw.unsetVars.length > 0) lines.push(`not measured with ${gw.unsetVars.join(', ')}: not set in this environment`);
  for (const g of summary.gpus.underFloor) {
    lines.push(`${g.target}: ${fmt(g.freeMiB)} MiB free, under the ${fmt(g.floorMiB)} MiB floor — a seat there can OOM or fall back to slow kernels`);
  }

  const ups = findings.filter((f) => f.probe === 'ups' && sites.includes(f.site ?? ''));
  const upsTrouble = ups.filter((f) => f.status !== 'up');
  for (const f of upsTrouble) lines.push(`UPS ${f.target}: ${f.detail}`);

  const gatewayDown = findings.filter((f) => f.probe === 'gateway' && f.status === 'down');
  const backendDown = findings.filter((f) => f.probe === 'alias' && f.status !== 'up' && /backend .* down|the backend is down/i.test(f.detail));

  // Dark means something else still answers: when nothing anywhere does, the fault is on our side.
  const anyAnswered = summary.sites.some((s) => s.state === 'up' || s.state === 'partial');

  if (dark.length > 0 && anyAnswered) {
    const names = dark.map((s) => s.site).join(', ');
    const bmc = dark.every((s) => s.bmcDown) ? ' (BMC included)' : '';
    lines.unshift(
      `site ${names} dark: every address${bmc} failed${othersAnswer ? ' while other sites answer' : ''} — do not poll it waiting; an overload-tripped UPS needs a human`,
    );
    runbook = 'site-dark';
  } else if (dark.length > 0) {
    lines.unshift('no site answered, the control pings included: check this machine’s own network first');
  } else if (upsTrouble.some(upsNeedsAction)) {
    runbook = 'ups-overload';
  } else if (gw.rejected) {
    lines.unshift(`the gateway answers but rejects every key probed: check ${gw.rejectedVars.join(', ')} before blaming the gateway`);
  } else if (gw.unreachable) {
    lines.unshift(`gateway down for every key probed (fleet-wide, every site): ${gatewayDown[0]?.detail ?? ''}`);
    runbook = 'gateway-down';
  } else if (summary.gpus.underFloor.length > 0) {
    runbook = 'seat-oom';
  } else if (backendDown.length > 0) {
    runbook = 'backend-down';
  }

  const { down, degraded, unknown } = summary.counts;
  // Not measured is not up: an unknown finding never reads as OK.
  const status: Verdict['status'] = down > 0 ? 'down' : degraded + unknown > 0 || findings.length === 0 ? 'degraded' : 'ok';
  const headline =
    lines[0] ??
    (findings.length === 0
      ? 'nothing to probe: no target in this scope'
      : status === 'ok'
        ? `all ${findings.length} checks up`
        : down + degraded > 0
          ? `${down + degraded} of ${findings.length} checks down or degraded${unknown ? `, ${unknown} not measured` : ''}`
          : `${unknown} of ${findings.length} checks not measured`);
  if (runbook) lines.push(`→ start runbook ${runbook}: ${RUNBOOKS[runbook]}`);
  return { status, headline, lines, runbook };
}

/** On battery, low, overloaded or over the load threshold: a power problem, not a probe problem. */
function upsNeedsAction(f: Finding): boolean {
  if (f.data?.kind !== 'ups') return false;
  const flags = new Set(f.data.ups.status);
  return ['OB', 'LB', 'OVER', 'FSD'].some((x) => flags.has(x)) || f.status === 'degraded';
}

function blastRadius(a: AliasSummary): string {
  const hosts = Object.keys(a.downByHost);
  const where = hosts.length === 1 ? `, all routed to ${hosts[0]}` : hosts.length > 1 ? ` (${hosts.map((h) => `${h}: ${a.downByHost[h]?.length}`).join(', ')})` : '';
  const degraded = a.degraded > 0 ? `; ${a.degraded} degraded` : '';
  return `${a.down} of ${a.total} aliases down${where}${degraded}`;
}

function fallbackLine(fb: FallbackSummary): string {
  if (fb.localUp.length > 0) return `local ${fb.kind} fallback remains: ${fb.localUp.join(', ')}`;
  const paid = fb.paid.length > 0 ? `; the rest are paid (${fb.paid.join(', ')}) — paid coverage only under a new opt-in alias, never a repoint` : '';
  return `no local ${fb.kind} fallback: every free ${fb.kind} alias is on ${fb.downOn.join(', ')}${paid}`;
}

export function fmt(n: number): string {
  return n.toLocaleString('en-US');
}
