// Facts from findings: subjects and numbers, read from each finding's structured fields only.
// Nothing here reads `detail`, `target` or `measuredBy`: they are for people and may be reworded.
import type { AliasRef, Fleet } from '../inventory/fleet.ts';
import type { Finding, FindingStatus, Reason } from '../probes/types.ts';
import { crossCheck } from './cross-check.ts';
import { vantageOf } from '../probes/vantage.ts';
import { oobFacts, vantageNames, vantageSite, type OobFacts, type SiteVantages, type VantageFacts } from './vantage-facts.ts';
import { onePerSubject } from './vantage-subjects.ts';

export type { OobFacts, SiteVantages, VantageFacts } from './vantage-facts.ts';

export interface Route {
  /** A host name, or `paid:<backend>` / `backend:<backend>` for outside backends. */
  route: string;
  /** The site of the host; null for outside backends. */
  site: string | null;
  aliases: string[];
}

export interface AliasFacts {
  total: number;
  up: number;
  down: number;
  degraded: number;
  unknown: number;
  /** Paid aliases only listed, not called: up, but nothing was exercised. */
  listedOnly: number;
  /** Aliases down, grouped by where they route. */
  downByRoute: Route[];
  degradedByRoute: Route[];
  /** Aliases that fail through the gateway, with whose fault it is. */
  failing: { alias: string; reason: Reason; seats: string[]; site: string | null }[];
}

export interface FallbackFacts {
  kind: 'chat' | 'embedding';
  /** Free local aliases of this kind that answered. */
  localUp: string[];
  /** Paid aliases of this kind (opt-in names only). */
  paid: string[];
  /** Hosts of the down aliases of this kind. */
  downOn: string[];
}

export interface GatewayFacts {
  keys: { key: string; envVar: string; status: FindingStatus; reason: Reason | null }[];
  /** Keys whose listing was measured (not unset). */
  measured: number;
  /** Every measured key failed to list: the gateway or the keys, not the hosts. */
  listingFailed: boolean;
  /** Every measured key failed without a rejection (connection, timeout, 5xx). */
  unreachable: boolean;
  /** Every measured key was refused (401/403). */
  rejected: boolean;
  /** Something at the gateway answered this run: a key's listing (a refusal or an error status
   * included) or an alias through it. Our own network reaches at least that far. */
  answered: boolean;
  rejectedVars: string[];
  unsetVars: string[];
}

export interface SiteFacts {
  site: string;
  inScope: boolean;
  state: 'up' | 'dark' | 'partial' | 'not probed';
  answered: number;
  failed: number;
  /** Every BMC of the site was probed and failed (false when it has none or one answered). */
  bmcDown: boolean;
  /** Addresses of the site that failed, by role and name. */
  down: { role: string; name: string; reason: Reason | null }[];
  /** Its checks that measured nothing (unknown: a missing tool, not measurable): neither answered nor failed. */
  unmeasured: number;
  hasUps: boolean;
}

export interface GpuFacts {
  total: number;
  /** Cards with a measured free figure. */
  measured: number;
  underFloor: { host: string; index: number; site: string | null; freeMiB: number; floorMiB: number }[];
  unknown: { host: string; index: number; reason: Reason | null }[];
  /** A budget declared, no process on a card with memory figures, and the seat did not answer when probed (`seatProbed`), or was not probed in this run. */
  enginesNotRunning: { seat: string; host: string; index: number; site: string | null; seatProbed: boolean }[];
  /** A budget declared, no process on its card, yet the seat answered: it runs, on another GPU than declared. */
  answeringElsewhere: { seat: string; host: string; index: number; site: string | null }[];
  /** Cards whose memory was not reported (`[N/A]`) with seats on them: nothing is concluded from their process list. */
  noFigures: { host: string; index: number; site: string | null; seats: string[] }[];
  /** Seats down whose declared budget exceeds the measured free memory of their card: they cannot boot there now. */
  noRoom: { seat: string; host: string; index: number; site: string | null; declaredMiB: number; freeMiB: number }[];
}

export interface UpsFacts {
  site: string;
  ups: string;
  status: FindingStatus;
  reason: Reason | null;
  flags: string[];
  loadPct: number | null;
  loadW: number | null;
  ratedW: number | null;
}

export interface SeatFacts {
  total: number;
  /** Seats that answered when probed directly (up or degraded). */
  answered: { seat: string; host: string; site: string | null }[];
  down: { seat: string; host: string; site: string | null; reason: Reason | null }[];
}

export interface ContainerFacts {
  total: number;
  /** Running inside, unreachable outside: no binding for the seat's port, or nothing answers it. */
  unreachable: { seat: string; host: string; container: string; site: string | null; reason: 'not_published' | 'not_answering'; health: string | null }[];
  /** A crash loop: docker restarting it, or a restart count that rose (or is high with nothing to compare). */
  restarting: { seat: string; host: string; container: string; site: string | null; restartCount: number | null }[];
}

export interface Summary {
  sites: SiteFacts[];
  aliases: AliasFacts;
  gateway: GatewayFacts;
  seats: SeatFacts;
  fallback: FallbackFacts[];
  gpus: GpuFacts;
  ups: UpsFacts[];
  containers: ContainerFacts;
  counts: Record<FindingStatus, number>;
  /** Where the findings were measured from, and what each vantage saw of each site (diagnose/vantage.ts). */
  vantages: VantageFacts;
  /** How each site's BMCs and UPS reach out (its firewall, or a separate path), and what those paths answered. */
  oob: OobFacts[];
}

/** The facts of findings. From two vantages or more, a site is as the vantages that reached it saw it,
 * each subject counts once (vantage-subjects.ts), and `vantages` says who saw what (diagnose/vantage.ts). */
export function summarize(fleet: Fleet, given: Finding[], scope: string[] = fleet.siteNames): Summary {
  const names = vantageNames(given);
  // GPU rows judged beside the seats' answers (cross-check.ts; nothing changes on findings already
  // checked), each vantage's beside its own: another vantage's seat answer says nothing of this one's card.
  const findings = names.length < 2 ? crossCheck(fleet, given) : perVantage(given, names, (mine) => crossCheck(fleet, mine));
  if (names.length < 2) return { ...summarizeOne(fleet, findings, scope), vantages: { names, at: [], sites: [] } };
  // What each subject is counts once; the out-of-band paths keep every vantage they answered from.
  const all = { ...summarizeOne(fleet, onePerSubject(findings), scope), oob: oobFacts(fleet, findings) };
  return acrossVantages(fleet, findings, names, all, (mine) => summarizeOne(fleet, mine, scope));
}

/** `given` with each vantage's findings put through `f` (1:1, in order), in the order given. */
function perVantage(given: Finding[], names: string[], f: (mine: Finding[]) => Finding[]): Finding[] {
  const out = new Map<Finding, Finding>();
  for (const v of names) {
    const mine = given.filter((g) => vantageOf(g) === v);
    f(mine).forEach((checked, i) => out.set(mine[i]!, checked));
  }
  return given.map((g) => out.get(g) ?? g);
}

/**
 * The summary of findings from two vantages or more: each vantage's own summary (`one`), then each
 * site as the vantages that reached it saw it — a site is dark only where no vantage reached it. The
 * facts that are not a site's (aliases, GPUs, the gateway) are `all`'s: each subject once.
 */
function acrossVantages(fleet: Fleet, findings: readonly Finding[], names: string[], all: Omit<Summary, 'vantages'>, one: (findings: Finding[]) => Omit<Summary, 'vantages'>): Summary {
  const per = names.map((v) => ({ v, at: vantageSite(fleet, v), s: one(findings.filter((f) => vantageOf(f) === v)) }));
  const sites: SiteFacts[] = [];
  const views: SiteVantages[] = [];
  for (const base of all.sites) {
    const seen = per.map((p) => ({ ...p, site: p.s.sites.find((x) => x.site === base.site) }));
    const reached = seen.filter((p) => p.site?.state === 'up' || p.site?.state === 'partial');
    const dark = seen.filter((p) => p.site?.state === 'dark');
    const pick = reached.find((p) => p.site?.state === 'up') ?? reached[0] ?? dark[0] ?? seen.find((p) => p.site?.state !== 'not probed');
    sites.push(pick?.site ?? base);
    views.push({
      site: base.site,
      darkFrom: dark.map((p) => p.v),
      witnesses: dark.filter((p) => p.at !== base.site && answersElsewhere(p.s, [base.site])).map((p) => p.v),
      reachedFrom: reached.map((p) => p.v),
    });
  }
  return { ...all, sites, vantages: { names, at: per.map((p) => ({ vantage: p.v, site: p.at })), sites: views } };
}


/** Something outside the sites `dark` answered: a site up or partial, the gateway, or a seat not at one
 * of them (rules/answered.ts somethingAnswered: what tells a dark site from this vantage's own network). */
export function answersElsewhere(facts: Pick<Summary, 'sites' | 'gateway' | 'seats'>, dark: readonly string[]): boolean {
  return (
    facts.sites.some((s) => s.state === 'up' || s.state === 'partial') ||
    facts.gateway.answered ||
    facts.seats.answered.some((s) => s.site === null || !dark.includes(s.site))
  );
}

function summarizeOne(fleet: Fleet, findings: Finding[], scope: string[]): Omit<Summary, 'vantages'> {
  // One pass sorts the findings by what they are about; each fact then reads only its own (on a fleet
  // of thousands of aliases this is what a person waits for after the last answer).
  const counts: Record<FindingStatus, number> = { up: 0, down: 0, degraded: 0, unknown: 0 };
  const aliases: AliasFinding[] = [];
  const gateway: Finding[] = [];
  const seats: Finding[] = [];
  const cards: Finding[] = [];
  const containers: Finding[] = [];
  const ups: Finding[] = [];
  const sited: Finding[] = [];
  const engines: Finding[] = [];
  for (const f of findings) {
    counts[f.status] += 1;
    if ((f.reason === 'engine_not_running' || f.reason === 'answers_no_process') && f.data.kind === 'gpu-seat') engines.push(f);
    switch (f.subject.kind) {
      case 'alias':
        if (f.subject.inInventory) aliases.push(f as AliasFinding);
        break;
      case 'gateway':
        gateway.push(f);
        break;
      case 'seat':
        seats.push(f);
        break;
      case 'gpu':
      case 'gpu-host':
        cards.push(f);
        break;
      case 'container':
        containers.push(f);
        break;
      case 'ups':
        ups.push(f);
        sited.push(f);
        break;
      case 'address':
        sited.push(f);
        break;
    }
  }
  const seatsSeen = seatFacts(fleet, seats);
  return {
    sites: siteFacts(fleet, sited, scope),
    aliases: aliasFacts(fleet, aliases),
    gateway: gatewayFacts(fleet, gateway, aliases),
    seats: seatsSeen,
    fallback: fallbacks(fleet, aliases),
    gpus: gpuFacts(fleet, cards, engines, seatsSeen),
    ups: upsFacts(ups),
    containers: containerFacts(fleet, containers),
    counts,
    oob: oobFacts(fleet, sited),
  };
}

/** Where an alias's traffic lands: its seats' hosts, or its outside backend. */
export function routesOf(fleet: Fleet, alias: string): { route: string; site: string | null }[] {
  const a = fleet.aliases.get(alias);
  if (!a) return [{ route: 'not in inventory', site: null }];
  const hosts = [...new Map(a.seats.map((s) => [s.host.name, s.host.site])).entries()];
  if (hosts.length > 0) return hosts.map(([route, site]) => ({ route, site }));
  const b = a.alias.backend;
  return [{ route: b ? `${b.paid ? 'paid' : 'backend'}:${b.name}` : 'not in inventory', site: null }];
}

type AliasFinding = Finding & { subject: { kind: 'alias'; inInventory: true } };

function byRoute(fleet: Fleet, names: string[]): Route[] {
  const out = new Map<string, Route>();
  for (const name of names) {
    for (const r of routesOf(fleet, name)) {
      const entry = out.get(r.route) ?? { ...r, aliases: [] };
      entry.aliases.push(name);
      out.set(r.route, entry);
    }
  }
  return [...out.values()];
}

const FAILING: ReadonlySet<Reason> = new Set(['backend_down', 'backend_failing', 'gateway_fault']);

function aliasFacts(fleet: Fleet, aliases: AliasFinding[]): AliasFacts {
  const facts: AliasFacts = { total: aliases.length, up: 0, down: 0, degraded: 0, unknown: 0, listedOnly: 0, downByRoute: [], degradedByRoute: [], failing: [] };
  const down: string[] = [];
  const degraded: string[] = [];
  for (const a of aliases) {
    facts[a.status] += 1;
    if (a.status === 'down') down.push(a.subject.name);
    else if (a.status === 'degraded') degraded.push(a.subject.name);
    else if (a.status === 'up' && a.data.kind === 'alias' && !a.data.exercised && a.data.paid) facts.listedOnly += 1;
    if (a.reason !== undefined && FAILING.has(a.reason)) {
      facts.failing.push({ alias: a.subject.name, reason: a.reason, seats: a.data.kind === 'alias' ? a.data.routedSeats : [], site: routesOf(fleet, a.subject.name)[0]?.site ?? null });
    }
  }
  facts.downByRoute = byRoute(fleet, down);
  facts.degradedByRoute = byRoute(fleet, degraded);
  return facts;
}

/** A key's listing that failed with an answer from the gateway (it was reached). */
const GATEWAY_ANSWERED: ReadonlySet<Reason> = new Set(['key_rejected', 'http_status', 'redirect', 'bad_answer', 'too_large', 'no_models']);

function gatewayFacts(fleet: Fleet, findings: Finding[], aliases: AliasFinding[]): GatewayFacts {
  const byKey = new Map<string, Finding>();
  for (const f of findings) if (f.subject.kind === 'gateway') byKey.set(f.subject.key, f);
  const keys = [...Object.entries(fleet.inventory.gateway.keys)].flatMap(([key, k]) => {
    const f = byKey.get(key);
    return f ? [{ key, envVar: k.env, status: f.status, reason: f.reason ?? null }] : [];
  });
  const measuredKeys = keys.filter((k) => k.reason !== 'key_unset');
  const down = measuredKeys.filter((k) => k.status === 'down');
  const listingFailed = measuredKeys.length > 0 && down.length === measuredKeys.length;
  return {
    keys,
    measured: measuredKeys.length,
    listingFailed,
    unreachable: listingFailed && down.every((k) => k.reason !== 'key_rejected'),
    rejected: listingFailed && down.every((k) => k.reason === 'key_rejected'),
    rejectedVars: measuredKeys.filter((k) => k.reason === 'key_rejected').map((k) => k.envVar),
    answered:
      keys.some((k) => k.status === 'up' || k.status === 'degraded' || (k.reason !== null && GATEWAY_ANSWERED.has(k.reason))) ||
      aliases.some((a) => a.status === 'up' || a.status === 'degraded' || (a.reason !== undefined && (FAILING.has(a.reason) || a.reason === 'http_status'))),
    unsetVars: keys.filter((k) => k.reason === 'key_unset').map((k) => k.envVar),
  };
}

function seatFacts(fleet: Fleet, findings: Finding[]): SeatFacts {
  const seats = findings.filter((f) => f.probe === 'seat');
  return {
    total: seats.length,
    answered: seats.flatMap((f) =>
      f.subject.kind === 'seat' && (f.status === 'up' || f.status === 'degraded') ? [{ seat: f.subject.name, host: f.subject.host, site: fleet.hosts.get(f.subject.host)?.site ?? null }] : [],
    ),
    down: seats.flatMap((f) =>
      f.subject.kind === 'seat' && f.status === 'down'
        ? [{ seat: f.subject.name, host: f.subject.host, site: fleet.hosts.get(f.subject.host)?.site ?? null, reason: f.reason ?? null }]
        : [],
    ),
  };
}

function fallbacks(fleet: Fleet, aliases: AliasFinding[]): FallbackFacts[] {
  const status = new Map<string, FindingStatus>();
  for (const f of aliases) status.set(f.subject.name, f.status);
  // One pass over the inventory's aliases, each list in the inventory's order.
  const lists = (): { down: AliasRef[]; localUp: string[]; paid: string[] } => ({ down: [], localUp: [], paid: [] });
  const byKind = { chat: lists(), embedding: lists() };
  for (const a of fleet.aliases.values()) {
    const s = status.get(a.name);
    if (s === undefined) continue;
    const k = byKind[a.alias.kind];
    if (a.paid) k.paid.push(a.name);
    else if (s === 'down') k.down.push(a);
    else if (s === 'up' && !a.alias.optIn) k.localUp.push(a.name);
  }
  const out: FallbackFacts[] = [];
  for (const kind of ['chat', 'embedding'] as const) {
    const { down, localUp, paid } = byKind[kind];
    // A paid alias down leaves the local ones as they were: no fallback to talk about.
    if (down.length === 0) continue;
    out.push({ kind, localUp, paid, downOn: [...new Set(down.flatMap((a) => routesOf(fleet, a.name).map((r) => r.route)))] });
  }
  return out;
}

function gpuFacts(fleet: Fleet, cards: Finding[], engines: Finding[], seats: SeatFacts): GpuFacts {
  const facts: GpuFacts = { total: cards.length, measured: 0, underFloor: [], unknown: [], enginesNotRunning: [], answeringElsewhere: [], noFigures: [], noRoom: [] };
  const answered = new Set(seats.answered.map((s) => `${s.seat}@${s.host}`));
  const down = new Set(seats.down.map((s) => `${s.seat}@${s.host}`));
  /** Cards by host and index: the figures an engine finding is read against. */
  const free = new Map<string, number | null>();
  for (const f of cards) {
    const g = f.data.kind === 'gpu' ? f.data.gpu : null;
    const site = g ? (fleet.hosts.get(g.host)?.site ?? null) : null;
    if (g) free.set(`${g.host}#${g.index}`, g.freeMiB);
    if (g && g.freeMiB !== null) {
      facts.measured += 1;
      if (g.freeMiB < g.floorMiB) facts.underFloor.push({ host: g.host, index: g.index, site, freeMiB: g.freeMiB, floorMiB: g.floorMiB });
      for (const s of g.seats) {
        if (s.declaredMiB !== null && s.declaredMiB > g.freeMiB && down.has(`${s.seat}@${g.host}`)) {
          facts.noRoom.push({ seat: s.seat, host: g.host, index: g.index, site, declaredMiB: s.declaredMiB, freeMiB: g.freeMiB });
        }
      }
    }
    if (g && g.freeMiB === null && g.seats.length > 0) facts.noFigures.push({ host: g.host, index: g.index, site, seats: g.seats.map((s) => s.seat) });
    if (f.status === 'unknown' || (f.status === 'down' && (!g || g.freeMiB === null))) {
      facts.unknown.push({ host: g?.host ?? f.host ?? '?', index: g?.index ?? -1, reason: f.reason ?? null });
    }
  }
  for (const f of engines) {
    if (f.data.kind !== 'gpu-seat') continue;
    const e = { seat: f.data.seat, host: f.data.host, index: f.data.index, site: fleet.hosts.get(f.data.host)?.site ?? null };
    // No memory figures on the card: its empty process list says nothing of the engine.
    const card = free.get(`${e.host}#${e.index}`);
    if (card === null) continue;
    if (f.reason === 'answers_no_process' || answered.has(`${e.seat}@${e.host}`)) facts.answeringElsewhere.push(e);
    else facts.enginesNotRunning.push({ ...e, seatProbed: down.has(`${e.seat}@${e.host}`) });
  }
  return facts;
}

function containerFacts(fleet: Fleet, findings: Finding[]): ContainerFacts {
  const facts: ContainerFacts = { total: 0, unreachable: [], restarting: [] };
  for (const f of findings) {
    if (f.subject.kind !== 'container' || f.data.kind !== 'container') continue;
    const c = f.data.container;
    const who = { seat: c.seat, host: c.host, container: c.container, site: fleet.hosts.get(c.host)?.site ?? null };
    facts.total += 1;
    if (f.reason === 'not_published' || f.reason === 'not_answering') facts.unreachable.push({ ...who, reason: f.reason, health: c.health });
    if (f.reason === 'restarting') facts.restarting.push({ ...who, restartCount: c.restartCount });
  }
  return facts;
}

function upsFacts(findings: Finding[]): UpsFacts[] {
  return findings.flatMap((f) => {
    if (f.subject.kind !== 'ups' || f.data.kind !== 'ups') return [];
    const u = f.data.ups;
    return [{ site: f.subject.site, ups: f.subject.ups, status: f.status, reason: f.reason ?? null, flags: u.status, loadPct: u.loadPct, loadW: u.loadW, ratedW: u.ratedW }];
  });
}

function siteFacts(fleet: Fleet, findings: Finding[], scope: string[]): SiteFacts[] {
  const bySite = new Map<string, Finding[]>();
  for (const f of findings) {
    const site = f.subject.kind === 'address' || f.subject.kind === 'ups' ? f.subject.site : null;
    // A BMC's or UPS's separate way out is not one of the site's addresses (OobFacts says what it answered).
    if (site === null || (f.subject.kind === 'address' && f.subject.role === 'oob-path')) continue;
    const list = bySite.get(site);
    if (list) list.push(f);
    else bySite.set(site, [f]);
  }
  return fleet.siteNames.map((site) => {
    const mine = bySite.get(site) ?? [];
    const answered = mine.filter((f) => f.status === 'up' || f.status === 'degraded').length;
    const failed = mine.filter((f) => f.status === 'down').length;
    let state: SiteFacts['state'];
    // Dark: nothing at the site answered and at least one address definitely failed.
    if (answered + failed === 0) state = 'not probed';
    else if (answered === 0) state = 'dark';
    else state = failed === 0 ? 'up' : 'partial';
    const bmcs = mine.filter((f) => f.subject.kind === 'address' && f.subject.role === 'bmc');
    return {
      site,
      inScope: scope.includes(site),
      state,
      answered,
      failed,
      bmcDown: bmcs.length > 0 && bmcs.every((f) => f.status === 'down'),
      down: mine.flatMap((f) =>
        f.status === 'down' ? [{ role: f.subject.kind === 'address' ? f.subject.role : 'ups', name: f.subject.kind === 'address' ? f.subject.name : f.subject.kind === 'ups' ? f.subject.ups : '?', reason: f.reason ?? null }] : [],
      ),
      unmeasured: mine.filter((f) => f.status === 'unknown').length,
      hasUps: fleet.site(site)?.ups !== undefined,
    };
  });
}
