// Executes `probe <site|all>`: plans every probe of the scope, runs them at once, diagnoses.
import { performance } from 'node:perf_hooks';
import type { Fleet } from '../inventory/fleet.ts';
import type { Summary, Verdict } from '../diagnose/verdict.ts';
import { SCHEMA_VERSION, canonicalJson } from '../probes/canonical.ts';
import { createReaper } from '../probes/edge/exec.ts';
import { createHttpPool, type HttpTransport } from '../probes/edge/transport.ts';
import { planGatewayTasks } from '../probes/gateway.ts';
import { planGpuTasks } from '../probes/gpu.ts';
import { planContainerTasks, type ContainerPlanOptions } from '../probes/container/plan.ts';
import { planPowerTasks } from '../probes/power.ts';
import { planDeadline, runTasks, startOrder, type RunEvent, type SetTimer } from '../probes/runner.ts';
import type { Finding, ProbeEnv, ProbeGroup, ProbeScope, ProbeTask, Reaper, Subject } from '../probes/types.ts';

/** What a peer may send before it is cut: an HTTP body, a child's output per stream. */
export const MAX_BODY_BYTES = 4 * 1024 * 1024;
export const MAX_OUTPUT_BYTES = 4 * 1024 * 1024;

export interface ProbeRequest {
  site: string; // a site name or 'all'
  only: ProbeGroup[];
  timeoutMs: number | null;
  paid: boolean;
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
  timeoutMs: number;
  deadlineMs: number;
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
  /** The last report's findings, for what is judged by change: a container's restart count. */
  previousFindings?: readonly Finding[];
}

type Planner = (fleet: Fleet, scope: ProbeScope, env: ProbeEnv, opts: ContainerPlanOptions) => ProbeTask[];
// Containers go with the GPUs: both are asked over ssh of the GPU hosts.
const PLANNERS: Record<ProbeGroup, Planner> = {
  aliases: planGatewayTasks,
  gpus: (fleet, scope, env, opts) => [...planGpuTasks(fleet, scope, env), ...planContainerTasks(fleet, scope, env, opts)],
  power: planPowerTasks,
};

export interface ProbePlan {
  tasks: ProbeTask[];
  sites: string[];
  env: ProbeEnv;
  deadlineMs: number;
  /** Drops the connections the plan's own HTTP pool holds (none when deps.http was given). */
  close(): void;
}

export function planProbe(fleet: Fleet, req: ProbeRequest, deps: ProbeDeps = {}): ProbePlan {
  const settings = fleet.inventory.settings;
  const sites = req.site === 'all' ? fleet.siteNames : [req.site];
  const timeoutMs = req.timeoutMs ?? settings.probeTimeoutMs;
  const pool = deps.http ? null : createHttpPool({ maxSockets: settings.concurrency });
  const env: ProbeEnv = {
    http: deps.http ?? pool!.transport,
    env: deps.env ?? process.env,
    ...(deps.pathPrefix ? { pathPrefix: deps.pathPrefix } : {}),
    ...(deps.pingCommand ? { pingCommand: deps.pingCommand } : {}),
    now: deps.monotonic ?? (() => performance.now()),
    clock: deps.clock ?? (() => new Date()),
    paid: req.paid,
    timeoutMs,
    marginFloorMiB: settings.marginFloorMiB,
    reaper: deps.reaper ?? createReaper(),
    maxBodyBytes: MAX_BODY_BYTES,
    maxOutputBytes: MAX_OUTPUT_BYTES,
  };
  const groups: ProbeGroup[] = ['power', 'gpus', 'aliases'];
  const planned = groups.filter((g) => req.only.includes(g)).flatMap((group) => PLANNERS[group](fleet, { sites }, env, { previous: deps.previousFindings }));
  // Not the inventory's order: what everything waits on and what is vital first, then sites and kinds
  // taken in turn, so a dark site's hanging targets never fill every slot while the rest queue behind.
  const slow = slowTargets(deps.previousFindings);
  const tasks = startOrder(planned, (t) => taskSite(fleet, t), (t) => slow.has(targetKey(t.subject)));
  // One deadline over the whole run, from the plan: a fleet of 10,000 aliases must not turn a hanging
  // target's "down at its timeout" into "not started" because a fixed deadline ran out first.
  const deadlineMs = Math.max(settings.deadlineMs, planDeadline(tasks, settings.concurrency));
  return { tasks, sites, env, deadlineMs, close: () => pool?.close() };
}

/** Why a finding says its target cost its timeout (or never got to answer): a slow risk next time. */
const SLOW: ReadonlySet<string> = new Set(['timeout', 'deadline', 'not_started']);

function slowTargets(previous: readonly Finding[] | undefined): Set<string> {
  const out = new Set<string>();
  for (const f of previous ?? []) if (f.reason !== undefined && SLOW.has(f.reason)) out.add(targetKey(f.subject));
  return out;
}

/** One key for a task and the findings it yields: an alias, a seat, a key's listing, a host's GPUs or
 * containers, a UPS, an address. */
export function targetKey(s: Subject): string {
  switch (s.kind) {
    case 'alias':
      return `alias:${s.name}`;
    case 'seat':
      return `seat:${s.name}`;
    case 'gateway':
      return `gateway:${s.key}`;
    case 'gpu':
    case 'gpu-host':
      return `gpu:${s.host}`;
    case 'container':
      return `container:${s.host}`;
    case 'ups':
      return `ups:${s.site}:${s.ups}`;
    case 'address':
      return `address:${s.site}:${s.role}:${s.name}`;
  }
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
  const plan = planProbe(fleet, req, deps);
  const { tasks, sites, env, deadlineMs } = plan;
  const startedAt = clock();
  const t0 = monotonic();
  let findings: Finding[];
  // The diagnosis is loaded while the probes wait on the network, not before the first request.
  let diagnosis: Promise<typeof import('../diagnose/verdict.ts')>;
  try {
    const run = runTasks(tasks, {
      concurrency: fleet.inventory.settings.concurrency,
      deadlineMs,
      ...(deps.onEvent ? { onEvent: deps.onEvent } : {}),
      ...(deps.signal ? { signal: deps.signal } : {}),
      ...(deps.setTimer ? { setTimer: deps.setTimer } : {}),
      clock,
    });
    diagnosis = import('../diagnose/verdict.ts');
    setImmediate(collator);
    ({ findings } = await run);
  } finally {
    plan.close();
  }
  const durationMs = Math.round(monotonic() - t0);
  const { decide, summarize } = await diagnosis;
  const ordered = sortFindings(findings);
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
    timeoutMs: env.timeoutMs,
    deadlineMs,
    findings: ordered,
    summary,
    verdict: decide(sites, summary),
  };
}

const PROBE_ORDER = ['gateway', 'alias', 'seat', 'container', 'gpu', 'ups', 'bmc', 'firewall', 'host'];
const STATUS_ORDER = ['down', 'degraded', 'unknown', 'up'];

let byName: Intl.Collator | null = null;
/** One collator for every sort (localeCompare with options builds one per comparison); made on first
 * use, or while a run waits on the network, so that building it is not on the report's path. */
const collator = (): Intl.Collator => (byName ??= new Intl.Collator('en', { numeric: true }));

/** Stable report order: by probe, worst first, then by name — not by who answered first. */
export function sortFindings(findings: Finding[]): Finding[] {
  const names = collator();
  return [...findings].sort(
    (a, b) =>
      PROBE_ORDER.indexOf(a.probe) - PROBE_ORDER.indexOf(b.probe) ||
      STATUS_ORDER.indexOf(a.status) - STATUS_ORDER.indexOf(b.status) ||
      names.compare(a.target, b.target),
  );
}

/** The `--json` shape: one object, the fields of the first contract first, then the facts. */
export function reportJson(report: ProbeReport): object {
  return {
    site: report.site,
    startedAt: report.startedAt,
    finishedAt: report.finishedAt,
    durationMs: report.durationMs,
    findings: report.findings.map((f) => ({
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
    })),
    summary: report.summary,
    verdict: report.verdict,
    fleet: report.fleet,
    drill: report.drill,
    schemaVersion: report.schemaVersion,
    sites: report.sites,
    timeoutMs: report.timeoutMs,
    deadlineMs: report.deadlineMs,
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
