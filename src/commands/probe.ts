// Executes `probe <site|all>`: plans every probe of the scope, runs them at once, diagnoses.
import { performance } from 'node:perf_hooks';
import type { Fleet } from '../inventory/fleet.ts';
import { decide, summarize, type Summary, type Verdict } from '../diagnose/verdict.ts';
import { SCHEMA_VERSION, canonicalJson } from '../probes/canonical.ts';
import { createReaper } from '../probes/edge/exec.ts';
import { planGatewayTasks } from '../probes/gateway.ts';
import { planGpuTasks } from '../probes/gpu.ts';
import { planContainerTasks, type ContainerPlanOptions } from '../probes/container/plan.ts';
import { planPowerTasks } from '../probes/power.ts';
import { runTasks, type RunEvent, type SetTimer } from '../probes/runner.ts';
import type { Finding, ProbeEnv, ProbeGroup, ProbeScope, ProbeTask, Reaper } from '../probes/types.ts';

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
  fetch?: typeof fetch;
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

export function planProbe(fleet: Fleet, req: ProbeRequest, deps: ProbeDeps = {}): { tasks: ProbeTask[]; sites: string[]; env: ProbeEnv; deadlineMs: number } {
  const settings = fleet.inventory.settings;
  const sites = req.site === 'all' ? fleet.siteNames : [req.site];
  const timeoutMs = req.timeoutMs ?? settings.probeTimeoutMs;
  const env: ProbeEnv = {
    fetch: deps.fetch ?? fetch,
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
  // Quick, few and vital first: if hanging targets ever fill every slot, the UPS and BMC were already asked.
  const order: ProbeGroup[] = ['power', 'gpus', 'aliases'];
  const tasks = order.filter((g) => req.only.includes(g)).flatMap((group) => PLANNERS[group](fleet, { sites }, env, { previous: deps.previousFindings }));
  // One deadline over the whole run; never shorter than one probe's timeout plus a breath.
  const deadlineMs = Math.max(settings.deadlineMs, timeoutMs + 500);
  return { tasks, sites, env, deadlineMs };
}

export async function runProbe(fleet: Fleet, req: ProbeRequest, deps: ProbeDeps = {}): Promise<ProbeReport> {
  const clock = deps.clock ?? (() => new Date());
  const monotonic = deps.monotonic ?? (() => performance.now());
  const { tasks, sites, env, deadlineMs } = planProbe(fleet, req, deps);
  const startedAt = clock();
  const t0 = monotonic();
  const { findings } = await runTasks(tasks, {
    concurrency: fleet.inventory.settings.concurrency,
    deadlineMs,
    ...(deps.onEvent ? { onEvent: deps.onEvent } : {}),
    ...(deps.signal ? { signal: deps.signal } : {}),
    ...(deps.setTimer ? { setTimer: deps.setTimer } : {}),
    clock,
  });
  const durationMs = Math.round(monotonic() - t0);
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

/** Stable report order: by probe, worst first, then by name — not by who answered first. */
export function sortFindings(findings: Finding[]): Finding[] {
  return [...findings].sort(
    (a, b) =>
      PROBE_ORDER.indexOf(a.probe) - PROBE_ORDER.indexOf(b.probe) ||
      STATUS_ORDER.indexOf(a.status) - STATUS_ORDER.indexOf(b.status) ||
      a.target.localeCompare(b.target, 'en', { numeric: true }),
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
