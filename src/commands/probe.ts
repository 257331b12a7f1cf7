// Executes `probe <site|all>`: plans every probe of the scope, runs them at once, diagnoses.
import { performance } from 'node:perf_hooks';
import type { Fleet } from '../inventory/fleet.ts';
import type { Summary, Verdict } from '../diagnose/verdict.ts';
import { SCHEMA_VERSION, canonicalJson } from '../probes/canonical.ts';
import { createReaper } from '../probes/edge/exec.ts';
import { createProgramGate, LISTINGS_FIRST_MS } from '../probes/edge/gate.ts';
import { createHttpPool, type HttpTransport } from '../probes/edge/transport.ts';
import { planGroup } from '../probes/index.ts';
import { isLead, planDeadline, runTasks, startOrder, type RunEvent, type SetTimer } from '../probes/runner.ts';
import { Lesson, targetKey, type ProbeMemory } from '../probes/memory.ts';
import { crossCheckedStream } from '../diagnose/cross-check.ts';
import type { Finding, ProbeEnv, ProbeGroup, ProbeTask, Reaper } from '../probes/types.ts';
import { vantageFor } from '../probes/vantage.ts';
import type { AskedVantage } from '../vantage/types.ts';

/** What a peer may send before it is cut: an HTTP body, a child's output per stream. */
export const MAX_BODY_BYTES = 4 * 1024 * 1024;
export const MAX_OUTPUT_BYTES = 4 * 1024 * 1024;

export interface ProbeRequest {
  site: string; // a site name or 'all'
  only: ProbeGroup[];
  timeoutMs: number | null;
  paid: boolean;
  /** Sites `all` leaves out (held dark by an open incident: no-poll-dark-site). */
  skipSites?: readonly string[];
}

/** What a drill report says of its figures, in every front end. */
export const DRILL_SOURCE = 'every figure in this report comes from loopback stand-ins, not from the real fleet';

export interface ProbeReport {
  /** The findings contract's version: what `subject`, `reason`, `provenance` and `data` mean. */
  schemaVersion: number;
  site: string;
  /** The inventory's fleet name, and whether it is a drill of stand-ins. */
  fleet: string;
  drill: boolean;
  sites: string[];
  startedAt: string;
  finishedAt: string;
  durationMs: number;
  /** The per-probe timeout asked for (the inventory's or --timeout), counted from the command's start. */
  timeoutMs: number;
  /** What the command's start-up (node, modules, the inventory) took before the probes began, spent of
   * every target's timeout. 0 where the probe began as it was asked (the bot, an incident step); absent
   * in reports made before it was kept. */
  startupMs?: number;
  /** What each target could wait once its request left: waitAfterStartup(timeoutMs, startupMs), which is
   * timeoutMs − startupMs but never under half of timeoutMs. */
  waitMs?: number;
  /** How many targets were asked ahead of the rest because they cost their timeout last time. */
  askedFirst?: number;
  deadlineMs: number;
  /** Where its findings were measured from (each finding's provenance names its own): one for a probe,
   * several for reports merged (diagnose/vantage.ts mergeVantages). Absent before schemaVersion 3. */
  vantages?: string[];
  /** The other replicas' vantages this probe asked (vantage/ask.ts), and what became of each; absent
   * when none was asked (one replica, or none other alive). */
  asked?: AskedVantage[];
  findings: Finding[];
  summary: Summary;
  verdict: Verdict;
}

export interface ProbeDeps {
  /** The HTTP client (default: keep-alive pools per origin, sized by the inventory's concurrency,
   * made for the run and closed after it). A test shapes answers with fetchTransport(fetch). */
  http?: HttpTransport;
  env?: NodeJS.ProcessEnv;
  pathPrefix?: string[];
  pingCommand?: string[];
  clock?: () => Date;
  monotonic?: () => number;
  onEvent?: (event: RunEvent) => void;
  signal?: AbortSignal;
  /** Kills child process groups still running when the process stops; the CLI and the bot own one. */
  reaper?: Reaper;
  /** The runner's timer seam (tests drive time through it). */
  setTimer?: SetTimer;
  /** What the last probes left (ProbeMemory.of(findings) for one report): a container's restart count
   * is judged by whether it rose; the targets that cost their timeout last time are asked first. The
   * run's findings are learnt into it when it ends. */
  memory?: ProbeMemory;
  /** When the person asked, on the `monotonic` clock: for a one-shot `seat probe`, the process's start
   * (performance.now() counts from it). The start-up before the probes begin is spent of each target's
   * timeout, so the whole command takes the timeout, not the timeout plus start-up. Unset: the probe
   * began as it was asked. */
  origin?: number;
  /** Where this probe measures from; unset: SEAT_VANTAGE, the inventory's `vantage:`, else the host name. */
  vantage?: string;
}

/** The least of a target's timeout start-up may spend: however slow the start, a target gets half. */
export const MIN_WAIT_FRACTION = 0.5;

/** The timeout left to each target once start-up has spent `startupMs` of `timeoutMs`. */
export function waitAfterStartup(timeoutMs: number, startupMs: number): number {
  return Math.max(Math.ceil(timeoutMs * MIN_WAIT_FRACTION), Math.round(timeoutMs - Math.max(0, startupMs)));
}

export interface ProbePlan {
  tasks: ProbeTask[];
  sites: string[];
  env: ProbeEnv;
  deadlineMs: number;
  /** The timeout asked for, and what start-up spent of it (env.timeoutMs is what is left). */
  timeoutMs: number;
  startupMs: number;
  askedFirst: number;
  /** Drops the connections the plan's own HTTP pool holds (none when deps.http was given). */
  close(): void;
  /** Every task has been started: the pool keeps no more idle connections than `keep()` (HttpPool.drain). */
  drain(keep: () => number): void;
}

export function planProbe(fleet: Fleet, req: ProbeRequest, deps: ProbeDeps = {}): ProbePlan {
  const settings = fleet.inventory.settings;
  const sites = req.site === 'all' ? fleet.siteNames.filter((s) => !req.skipSites?.includes(s)) : [req.site];
  const timeoutMs = req.timeoutMs ?? settings.probeTimeoutMs;
  const monotonic = deps.monotonic ?? (() => performance.now());
  const startupMs = deps.origin === undefined ? 0 : Math.max(0, Math.round(monotonic() - deps.origin));
  const pool = deps.http ? null : createHttpPool({ maxSockets: settings.concurrency });
  // Only where there are listings to wait for: the gateway's planner opens it as they come in.
  const programGate = req.only.includes('aliases') ? createProgramGate(LISTINGS_FIRST_MS, deps.setTimer) : undefined;
  const env: ProbeEnv = {
    http: deps.http ?? pool!.transport,
    env: deps.env ?? process.env,
    ...(deps.pathPrefix ? { pathPrefix: deps.pathPrefix } : {}),
    ...(deps.pingCommand ? { pingCommand: deps.pingCommand } : {}),
    now: monotonic,
    clock: deps.clock ?? (() => new Date()),
    paid: req.paid,
    // Every target's own timeout, start-up taken off: what each may wait from when it is asked.
    timeoutMs: waitAfterStartup(timeoutMs, startupMs),
    marginFloorMiB: settings.marginFloorMiB,
    reaper: deps.reaper ?? createReaper(),
    maxBodyBytes: MAX_BODY_BYTES,
    maxOutputBytes: MAX_OUTPUT_BYTES,
    ...(programGate ? { programGate } : {}),
  };
  const groups: ProbeGroup[] = ['power', 'gpus', 'aliases'];
  const planned = groups.filter((g) => req.only.includes(g)).flatMap((group) => planGroup(group, fleet, { sites }, env, { memory: deps.memory }));
  // Not the inventory's order: what everything waits on and what is vital first, then sites and kinds
  // taken in turn, so a dark site's hanging targets never fill every slot while the rest queue behind.
  const slow = deps.memory?.slow;
  let askedFirst = 0;
  const risky = (t: ProbeTask): boolean => {
    const yes = slow !== undefined && slow.has(targetKey(t.subject));
    if (yes) askedFirst += 1;
    return yes;
  };
  const tasks = startOrder(planned, (t) => taskSite(fleet, t), slow && slow.size > 0 ? risky : undefined);
  // One deadline over the whole run, from the plan: a fleet of 10,000 aliases must not turn a hanging
  // target's "down at its timeout" into "not started" because a fixed deadline ran out first.
  const deadlineMs = Math.max(settings.deadlineMs, planDeadline(tasks, settings.concurrency));
  const close = (): void => {
    programGate?.open();
    pool?.close();
  };
  return { tasks, sites, env, deadlineMs, timeoutMs, startupMs, askedFirst, close, drain: (keep) => pool?.drain(keep) };
}

/** How many tasks lead the start order (startOrder puts them first). */
function leadCount(tasks: readonly ProbeTask[]): number {
  let n = 0;
  while (n < tasks.length && isLead(tasks[n]!)) n++;
  return n;
}

/** The site a task's target is at; an alias is at its seats' site (none for an outside backend). */
function taskSite(fleet: Fleet, t: ProbeTask): string {
  if (t.site !== undefined) return t.site;
  if (t.subject.kind === 'alias') return fleet.aliases.get(t.subject.name)?.seats[0]?.host.site ?? '';
  return '';
}

export async function runProbe(fleet: Fleet, req: ProbeRequest, deps: ProbeDeps = {}): Promise<ProbeReport> {
  const clock = deps.clock ?? (() => new Date());
  const monotonic = deps.monotonic ?? (() => performance.now());
  // From when the person asked (the start-up and the planning are part of what they waited), or from now.
  const t0 = deps.origin ?? monotonic();
  const plan = planProbe(fleet, req, deps);
  const { tasks, sites, deadlineMs } = plan;
  const vantage = deps.vantage ?? vantageFor(deps.env ?? process.env, fleet.inventory.vantage);
  const startedAt = new Date(clock().getTime() - (monotonic() - t0));
  let findings: Finding[];
  // The diagnosis is loaded while the probes wait on the network, not before the first request.
  let diagnosis: Promise<typeof import('../diagnose/verdict.ts')>;
  // What comes in while the slowest targets are awaited is made ready for the end as it comes: its
  // place in the report order and what the memory learns of it. After the last answer, little is left.
  const lesson = deps.memory ? new Lesson() : null;
  // Streamed GPU rows wait for the seats' answers and go out as the report will have them (cross-check.ts).
  const stream = crossCheckedStream(fleet, tasks.filter((t) => t.probe === 'seat').length, (e) => deps.onEvent?.(e));
  const onEvent = (e: RunEvent): void => {
    if (e.type === 'task') {
      prepareOrder(e.findings);
      lesson?.add(e.findings);
    }
    stream.onEvent(e);
  };
  try {
    const run = runTasks(tasks, {
      concurrency: fleet.inventory.settings.concurrency,
      deadlineMs,
      lead: leadCount(tasks),
      // Closed while the slowest targets are awaited, not after the last answer: the connections no
      // running task can still use (on 3,000 aliases, some 125 of 128).
      onAllStarted: plan.drain,
      onEvent,
      ...(deps.signal ? { signal: deps.signal } : {}),
      ...(deps.setTimer ? { setTimer: deps.setTimer } : {}),
      clock,
      vantage,
    });
    diagnosis = import('../diagnose/verdict.ts');
    ({ findings } = await run);
  } finally {
    plan.close();
  }
  stream.flush();
  if (lesson) deps.memory?.take(lesson, clock().getTime());
  const durationMs = Math.round(monotonic() - t0);
  const { decide, summarize, crossCheck } = await diagnosis;
  // GPU rows judged beside the seats' own answers: the rows say what the verdict reads.
  const ordered = sortFindings(crossCheck(fleet, findings));
  const summary = summarize(fleet, ordered, sites);
  return {
    schemaVersion: SCHEMA_VERSION,
    site: req.site,
    fleet: fleet.inventory.fleet,
    drill: fleet.inventory.drill,
    sites,
    startedAt: startedAt.toISOString(),
    finishedAt: clock().toISOString(),
    durationMs,
    timeoutMs: plan.timeoutMs,
    startupMs: plan.startupMs,
    waitMs: plan.env.timeoutMs,
    askedFirst: plan.askedFirst,
    deadlineMs,
    vantages: [vantage],
    findings: ordered,
    summary,
    verdict: decide(sites, summary),
  };
}

const PROBE_ORDER = ['gateway', 'alias', 'seat', 'container', 'gpu', 'ups', 'bmc', 'oob-path', 'firewall', 'host'];
const STATUS_ORDER = ['down', 'degraded', 'unknown', 'up'];

/** Stable report order: by probe, worst first, then by name — not by who answered first. Each name
 * is turned once into a key that orders as compareNames does (nameKey), so the thousands of comparisons
 * of a big fleet are plain string comparisons: some 5 ms less of what a person waits after the last answer. */
export function sortFindings(findings: Finding[]): Finding[] {
  if (findings.some((f) => f.target.length > MAX_KEYED_NAME)) return [...findings].sort(byReportOrder);
  const keyed = findings.map(orderKey);
  keyed.sort((a, b) => a.rank - b.rank || (a.key < b.key ? -1 : a.key > b.key ? 1 : compareNames(a.f.target, b.f.target)));
  return keyed.map((k) => k.f);
}

interface OrderKey {
  f: Finding;
  rank: number;
  key: string;
}

/** Each finding's place in the report order, made once: a finding is never changed once made (makeFinding
 * freezes it; its fields are readonly), and a run makes these as its findings come in (prepareOrder), so
 * the sort after the last answer only compares. */
const orderKeys = new WeakMap<Finding, OrderKey>();

function orderKey(f: Finding): OrderKey {
  let k = orderKeys.get(f);
  if (k === undefined) {
    k = { f, rank: PROBE_ORDER.indexOf(f.probe) * 8 + STATUS_ORDER.indexOf(f.status), key: nameKey(f.target) };
    orderKeys.set(f, k);
  }
  return k;
}

/** Makes the sort keys of findings that came in while others are still awaited (sortFindings then only compares). */
export function prepareOrder(findings: readonly Finding[]): void {
  for (const f of findings) if (f.target.length <= MAX_KEYED_NAME) orderKey(f);
}

function byReportOrder(a: Finding, b: Finding): number {
  return (
    PROBE_ORDER.indexOf(a.probe) - PROBE_ORDER.indexOf(b.probe) ||
    STATUS_ORDER.indexOf(a.status) - STATUS_ORDER.indexOf(b.status) ||
    compareNames(a.target, b.target)
  );
}

/** Past this, a digit run's length would not fit the one code unit nameKey gives it. */
const MAX_KEYED_NAME = 4096;

/**
 * A key whose plain string order is compareNames' order wherever compareNames does not fall back to
 * code units (equal keys: then compareNames decides). ASCII letters folded; a run of digits becomes
 * `0`, one code unit for its length without leading zeros, then those digits: against any other
 * character `0` orders as any digit would, and two runs order by length, then digit by digit.
 */
export function nameKey(s: string): string {
  let out = '';
  let i = 0;
  while (i < s.length) {
    const c = s.charCodeAt(i);
    if (isDigit(c)) {
      let end = i;
      while (end < s.length && isDigit(s.charCodeAt(end))) end++;
      let start = i;
      while (start < end - 1 && s.charCodeAt(start) === 0x30) start++;
      out += `0${String.fromCharCode(0x30 + end - start)}${s.slice(start, end)}`;
      i = end;
      continue;
    }
    out += String.fromCharCode(folded(c));
    i++;
  }
  return out;
}

const isDigit = (c: number): boolean => c >= 0x30 && c <= 0x39;
/** A-Z as a-z; every other code unit as it is. */
const folded = (c: number): number => (c >= 0x41 && c <= 0x5a ? c + 0x20 : c);

/**
 * Names in the order a person reads them: a run of digits by its value (gpu2 before gpu10, a07 beside
 * a7), ASCII letters whatever their case, the rest by code unit; what is still equal, by code units, so two
 * names are equal only when they are the same. Not Intl.Collator: building one costs some 8 ms in a
 * fresh process, on the path of the first requests, and its order follows the ICU data node was built with.
 */
export function compareNames(a: string, b: string): number {
  let i = 0;
  let j = 0;
  while (i < a.length && j < b.length) {
    const ca = a.charCodeAt(i);
    const cb = b.charCodeAt(j);
    if (isDigit(ca) && isDigit(cb)) {
      let ei = i;
      while (ei < a.length && isDigit(a.charCodeAt(ei))) ei++;
      let ej = j;
      while (ej < b.length && isDigit(b.charCodeAt(ej))) ej++;
      // The value's digits: leading zeros skipped (one kept for a run of zeros).
      let si = i;
      while (si < ei - 1 && a.charCodeAt(si) === 0x30) si++;
      let sj = j;
      while (sj < ej - 1 && b.charCodeAt(sj) === 0x30) sj++;
      const byLength = ei - si - (ej - sj);
      if (byLength !== 0) return byLength;
      for (let k = 0; k < ei - si; k++) {
        const d = a.charCodeAt(si + k) - b.charCodeAt(sj + k);
        if (d !== 0) return d;
      }
      i = ei;
      j = ej;
      continue;
    }
    const d = folded(ca) - folded(cb);
    if (d !== 0) return d;
    i++;
    j++;
  }
  const rest = a.length - i - (b.length - j);
  if (rest !== 0) return rest;
  return a < b ? -1 : a > b ? 1 : 0;
}

/** The `--json` shape: one object, the fields of the first contract first, then the facts. `findings`
 * is what stands in the findings' place (src/cli/report-json.ts puts those it wrote earlier there). */
export function reportJson(report: ProbeReport, findings: unknown[] = report.findings.map(findingJson)): object {
  return {
    site: report.site,
    startedAt: report.startedAt,
    finishedAt: report.finishedAt,
    durationMs: report.durationMs,
    findings,
    summary: report.summary,
    verdict: report.verdict,
    fleet: report.fleet,
    drill: report.drill,
    schemaVersion: report.schemaVersion,
    sites: report.sites,
    vantages: report.vantages ?? [],
    ...(report.asked ? { asked: report.asked } : {}),
    timeoutMs: report.timeoutMs,
    startupMs: report.startupMs ?? 0,
    waitMs: report.waitMs ?? report.timeoutMs,
    askedFirst: report.askedFirst ?? 0,
    deadlineMs: report.deadlineMs,
  };
}

/** One finding as `--json` gives it. */
export function findingJson(f: Finding): object {
  return {
    probe: f.probe,
    target: f.target,
    status: f.status,
    detail: f.detail,
    measuredBy: f.measuredBy,
    latencyMs: f.latencyMs,
    ...(f.site ? { site: f.site } : {}),
    ...(f.host ? { host: f.host } : {}),
    data: f.data,
    subject: f.subject,
    ...(f.reason ? { reason: f.reason } : {}),
    provenance: f.provenance,
    observedAt: f.observedAt,
  };
}

/** The report's one canonical serialisation: what the journal hashes. Same report, same bytes. */
export function canonicalReport(report: ProbeReport): string {
  return canonicalJson(report);
}

export function exitCodeFor(report: ProbeReport): 0 | 1 {
  // Nothing measured is not "all up".
  return report.findings.length > 0 && report.findings.every((f) => f.status === 'up') ? 0 : 1;
}
