// What every probe produces. The core returns these as data; front ends only render them.
//
// A Finding has two halves. Display text (`target`, `detail`, `measuredBy`) is for people and may be
// reworded freely. Facts (`subject`, `status`, `reason`, `provenance`, `observedAt`, `data`) are what
// code decides on: the diagnosis, the guardrails and the journal read only these.
import type { HttpTransport } from './edge/transport.ts';
import type { ProgramGate } from './edge/gate.ts';

export type ProbeGroup = 'aliases' | 'gpus' | 'power';
export const PROBE_GROUPS: readonly ProbeGroup[] = ['aliases', 'gpus', 'power'];

export type FindingStatus = 'up' | 'down' | 'degraded' | 'unknown';

/** `gateway`: a key's listing; `alias`: one alias through the gateway; `seat`: a backend directly;
 * `container`: a seat's container, asked of docker on its host over ssh. */
export type ProbeName = 'gateway' | 'alias' | 'seat' | 'gpu' | 'ups' | 'bmc' | 'firewall' | 'host' | 'container' | 'oob-path';

/** What a finding is about, as structured identity. Nothing decides on `target`. */
export type Subject =
  | { kind: 'gateway'; key: string }
  | { kind: 'alias'; name: string; inInventory: boolean }
  | { kind: 'seat'; name: string; host: string }
  | { kind: 'gpu'; host: string; index: number; uuid: string | null; inInventory: boolean }
  /** A GPU host whose query failed before any card could be named (the inventory lists no GPU for it). */
  | { kind: 'gpu-host'; host: string }
  | { kind: 'ups'; site: string; ups: string }
  | { kind: 'address'; site: string; role: AddressRole; name: string }
  /** A seat's container on its host, as docker there reports it. */
  | { kind: 'container'; host: string; seat: string; container: string };

/** `oob-path`: a BMC's or UPS's own way out (`via: separate`, an LTE router): not one of the site's
 * addresses, so it never makes a dark site answer; it says whether the site is reachable out of band. */
export type AddressRole = 'bmc' | 'firewall' | 'host' | 'control' | 'oob-path';

/**
 * Why a finding is not up: one union for every probe. Each code names one cause; in particular
 * `key_unset`, `deadline`, `not_started` and `probe_crashed` are never folded into one "unknown".
 */
export type Reason =
  // transport, any probe
  | 'timeout' // no answer within the probe's own timeout
  | 'refused' // connection refused: nothing listening
  | 'reset' // the peer hung up mid-answer
  | 'unreachable' // no route, host down, ssh could not connect
  | 'dns' // the name did not resolve
  | 'http_status' // an HTTP error status not explained by a more specific code
  | 'redirect' // a 3xx: not followed, reported with where it points
  | 'too_large' // the answer was over the cap and was cut
  | 'bad_answer' // an answer that is not what the protocol says (no model list, not OpenAI-shaped)
  // gateway and aliases
  | 'key_rejected' // 401/403 for a key
  | 'key_unset' // the key's environment variable is not set: not measured
  | 'not_registered' // the gateway does not list the alias for a key it is meant for
  | 'no_models' // a key that lists nothing
  | 'gateway_unreachable' // the gateway's listing failed for the key(s) that would exercise this alias
  | 'backend_down' // through the gateway: fails, and the backend's own /health fails too
  | 'backend_failing' // through the gateway: fails naming the backend, while the backend's /health passes
  | 'gateway_fault' // through the gateway: 5xx, the backend healthy and not named in the error
  | 'outside_inventory' // listed by the gateway, unknown to the inventory: not exercised
  | 'health_failed' // a seat's own /health answered an error status
  | 'models_failed' // a seat's /health passed but /v1/models did not
  // GPU
  | 'under_floor' // free memory under the margin floor
  | 'not_reported' // the tool gave no figure (N/A) or did not list an inventory GPU
  | 'driver_failure' // driver not loaded, NVML missing, driver error
  | 'no_gpu' // the tool found no GPU
  | 'fallen_off_bus'
  | 'no_permission'
  | 'tool_missing' // nvidia-smi / xpu-smi / ssh / ping not found
  | 'ssh_refused' // reached, but authentication or host key failed
  | 'unparseable' // output that is not what was asked for
  | 'tool_failed' // any other non-zero exit
  | 'engine_not_running' // a seat has a declared budget on a GPU where no process holds memory
  | 'answers_no_process' // a seat answers its /health, yet no process holds memory on its declared GPU: which GPU does it use?
  | 'no_room' // a seat is down and its declared budget exceeds its card's measured free memory: it cannot boot there now
  // containers
  | 'no_container' // docker on the host has no container of that name
  | 'not_running' // the container exists but is exited, dead, created or paused
  | 'restarting' // docker is restarting it, or its restart count rose (or is high with nothing to compare)
  | 'unhealthy' // its own healthcheck fails
  | 'starting' // its healthcheck has not passed yet
  | 'not_published' // running (healthy) inside, but no host port is bound to the seat's port: PORTS=[]
  | 'not_answering' // the seat's port is bound, but nothing answers it from here
  | 'no_unit' // systemd on the host has no unit of that name (a systemd seat)
  // power and out-of-band
  | 'on_battery'
  | 'low_battery'
  | 'overload' // OVER flag, or load above the warning threshold
  | 'ups_flag' // another flag that needs a person: FSD, OFF, BYPASS, RB
  | 'ups_stale' // upsd's driver lost the UPS (DATA-STALE, DRIVER-NOT-CONNECTED)
  | 'ups_unknown' // upsd has no such UPS
  | 'access_denied'
  | 'no_status' // neither OL nor OB in ups.status
  | 'no_icmp_reply'
  | 'tcp_failed' // ICMP answered, a configured TCP port did not (or the reverse)
  | 'not_measurable' // ping may not run here and no TCP port is configured
  // the runner
  | 'deadline' // stopped by the overall deadline while running
  | 'not_started' // the overall deadline ran out before the task started
  | 'stopped' // the run was cancelled
  | 'probe_crashed'; // the probe's own code failed

/** One thing done to measure: never a secret (keys are named, not quoted). */
export type Measurement =
  | { how: 'http'; method: 'GET' | 'POST'; url: string; key?: string; body?: string }
  | { how: 'exec'; argv: string[] }
  | { how: 'nut'; host: string; port: number; ups: string; command: 'LIST VAR' }
  | { how: 'icmp'; argv: string[] }
  | { how: 'tcp'; host: string; port: number };

/** `vantage`: where the finding was measured from (probes/vantage.ts: SEAT_VANTAGE, the inventory's
 * `vantage:`, else the host name). Absent only in reports made before schemaVersion 3. */
export type Provenance =
  | { kind: 'measured'; via: Measurement[]; vantage?: string }
  | { kind: 'inferred'; from: Subject[]; why: InferredWhy; vantage?: string };

export type InferredWhy = 'key_unset' | 'deadline' | 'not_started' | 'stopped' | 'probe_crashed' | 'listing';

export interface Finding {
  readonly probe: ProbeName;
  /** Display name of what was probed: `gen`, `fv-ml1 GPU1`, `fvups@192.0.2.1:3493`. Never decided on. */
  readonly target: string;
  readonly status: FindingStatus;
  /** Present whenever status is not up. */
  readonly reason?: Reason;
  readonly subject: Subject;
  /** One line a tired person can read. Never decided on. */
  readonly detail: string;
  /** The rendering of `provenance`: the command or URL, or `inferred: <from what>`. */
  readonly measuredBy: string;
  readonly provenance: Provenance;
  /** ISO-8601 UTC, from the injected clock, when the answer (or its absence) was known. */
  readonly observedAt: string;
  readonly latencyMs: number | null;
  readonly site?: string;
  readonly host?: string;
  /** Structured figures, present whatever the outcome. */
  readonly data: FindingData;
}

export type FindingData =
  | { kind: 'alias'; aliasKind: 'chat' | 'embedding' | 'unknown'; paid: boolean; routedTo: string[]; routedSeats: string[]; keys: KeyResult[]; exercised: boolean; attribution: Attribution | null; backendError?: string }
  | { kind: 'seat'; url: string; health: HttpOutcome; models?: string[] }
  | { kind: 'gateway'; key: string; envVar: string; listed: boolean; models: string[]; modelCount: number }
  | { kind: 'gpu'; gpu: GpuMemory }
  | { kind: 'gpu-seat'; seat: string; host: string; index: number; declaredMiB: number | null }
  | { kind: 'ups'; ups: UpsReading }
  | { kind: 'container'; container: ContainerState }
  /** A systemd seat's unit, as `systemctl show` on its host reports it. */
  | { kind: 'unit'; unit: UnitState }
  /** Only when a probe crashed before it could say anything of its target. */
  | { kind: 'none' }
  | { kind: 'oob'; ping: 'ok' | 'failed' | 'skipped' | 'not_run'; tcp: { port: number; ok: boolean; error?: string }[] };

/**
 * Whose fault a failure through the gateway is, from the backend seats' own answers:
 * `backend`: its /health fails too; `backend-failing`: the gateway's error names the backend while its
 * /health passes (healthy is not serving); `gateway`: 5xx with every backend healthy and not named;
 * `gateway-unreachable`: the gateway itself did not answer.
 */
export type Attribution = 'backend' | 'backend-failing' | 'gateway' | 'gateway-unreachable' | 'mixed';

export interface HttpOutcome {
  ok: boolean;
  /** HTTP status, or null when no response came (refused, reset, timeout). */
  httpStatus: number | null;
  /** The transport or protocol code: 'ok', 'http_status', 'timeout', 'refused', 'redirect', 'too_large', ... */
  code: string;
  /** First line of the error body, or the transport error, cleaned and redacted. */
  error?: string;
  /** Where a redirect pointed (not followed). */
  location?: string;
  /** The error body, read whole (not only its first line), names the backend: CUDA, OOM, an engine
   * error, a provider's exception (gateway/attribution.ts namesBackend). Absent when it does not. */
  backendSaid?: true;
  latencyMs: number;
}

export interface KeyResult {
  key: string;
  registered: boolean | null; // null: the listing itself failed or the key is unset
  /** The inventory says this alias is for this key (`aliases.<a>.keys`, or every key when absent). */
  intended: boolean;
  outcome: KeyOutcomeKind;
  request?: HttpOutcome; // absent when not exercised (paid without --paid, or not registered)
  note?: string;
}

export type KeyOutcomeKind = 'ok' | 'failed' | 'listed-only' | 'not-registered' | 'not-intended' | 'listing-failed' | 'unset';

export interface GpuSeatUse {
  seat: string;
  /** util × total, or the KV bytes, in MiB: what the engine was told it may take. */
  declaredMiB: number | null;
  declaredBy: string;
  /** The budget is kv-cache-memory-bytes: the weights come on top of it. */
  kvCacheOnly?: true;
  /** What the tool's process list says its processes hold; null when not attributable. */
  measuredMiB: number | null;
  /** Why measuredMiB is null: no process list, no process matches the seat's pattern, no pattern on a shared card. */
  unmeasuredWhy?: 'no_process_list' | 'no_match' | 'no_pattern' | 'no_process' | 'not_reported';
  /** Set by the cross-check (src/diagnose/cross-check.ts): the seat's own /health is down and its declared
   * budget exceeds the card's measured free memory. */
  cannotFit?: true;
}

export interface GpuMemory {
  host: string;
  index: number;
  uuid: string | null;
  name: string | null;
  totalMiB: number | null;
  usedMiB: number | null;
  freeMiB: number | null;
  seats: GpuSeatUse[];
  processes: { pid: number; name: string; usedMiB: number | null }[];
  /** Free memory minus the floor; negative means under the floor. null when free is unknown. */
  marginMiB: number | null;
  floorMiB: number;
}

/** What docker on a seat's host says of its container, and whether the seat's port answers from here. */
export interface ContainerState {
  host: string;
  seat: string;
  container: string;
  /** The seat's port in the inventory: the host port clients connect to. */
  port: number;
  /** docker's State.Status; null when not read. */
  state: 'running' | 'exited' | 'restarting' | 'created' | 'paused' | 'dead' | 'removing' | 'other' | null;
  /** State.Health.Status; 'none' when the container defines no healthcheck. */
  health: 'healthy' | 'unhealthy' | 'starting' | 'none' | 'other' | null;
  restartCount: number | null;
  /** The count in the report compared with, when one was passed in. */
  previousRestartCount: number | null;
  oomKilled: boolean | null;
  exitCode: number | null;
  /** HostConfig.NetworkMode: with `host` nothing is published and none is needed. */
  networkMode: string | null;
  /** Host bindings, from `docker port` (or inspect's NetworkSettings.Ports when that failed). */
  ports: PortBinding[];
  /** A binding whose host port is the seat's port. */
  published: boolean;
  /** TCP connect to the seat's address and port from here; null when not tried. */
  answering: boolean | null;
}

/** What systemd on a seat's host says of its unit (`runtime: systemd`), and whether the seat's port answers from here. */
export interface UnitState {
  host: string;
  seat: string;
  unit: string;
  port: number;
  /** systemctl's LoadState (`loaded`, `not-found`, ...); null when not read. */
  loadState: string | null;
  /** ActiveState: `active`, `activating`, `failed`, `inactive`, ...; null when not read. */
  activeState: string | null;
  subState: string | null;
  /** NRestarts: how often systemd restarted it. */
  restarts: number | null;
  /** ExecMainStartTimestamp as systemd writes it. */
  startedAt: string | null;
  answering: boolean | null;
}

export interface PortBinding {
  containerPort: number;
  proto: string;
  hostIp: string;
  hostPort: number;
}

export interface UpsReading {
  ups: string;
  status: string[]; // OL, OB, LB, OVER, ...
  loadPct: number | null;
  /** Watts drawn: metered by the UPS (ups.realpower) when it reports it, else load % × rating. */
  loadW: number | null;
  loadWFrom: 'ups.realpower' | 'load×rating' | null;
  ratedW: number | null;
  ratedVA: number | null;
  chargePct: number | null;
  runtimeS: number | null;
  warnPct: number;
  vars: Record<string, string>;
}

/** One unit of work for the runner: a probe of one target, with its own timeout. */
export interface ProbeTask {
  id: string;
  group: ProbeGroup;
  probe: ProbeName;
  target: string;
  subject: Subject;
  site?: string;
  host?: string;
  /** When the runner stops waiting for it (its own timeout and a grace: edge/timeout.ts graceFor). */
  timeoutMs: number;
  /**
   * The task's own timeout, kept by the runner: the signal it passes to `run` or `measure` aborts with
   * a TimeoutError (edge/timeout.ts timeoutError) after this long, and the task words its own "no
   * answer" finding before the runner's stop at `timeoutMs`. One timer and one signal a task instead of
   * two, for the thousands of alias tasks. Without it (or when it is not below `timeoutMs`), the task
   * times itself.
   */
  waitMs?: number;
  /** Resolve with its findings (a host's GPU query yields one per GPU); must stop work when `signal`
   * aborts. May reject: the runner turns that into an `unknown` finding with reason probe_crashed. */
  run(signal: AbortSignal): Promise<Finding[]>;
  /**
   * `run` in two halves, for the kind of task a fleet has thousands of (an alias): the measuring (all
   * its I/O, under `signal`), then the wording of what it measured (the function it resolves with: CPU
   * only, findings as of when the measuring ended). The runner frees the task's slot when the
   * measuring ends; while other tasks still wait to start it words later — once the last task has
   * started, or when the oldest has waited JUDGE_WAIT_MS (runner.ts) — so a big fleet's requests leave
   * before its answers are worded and the wording fills the wait for the slow targets. The wording may
   * then come after the task's timeout or the run's stop: it only words what was measured in time.
   * `run` must equal the two in one.
   */
  measure?(signal: AbortSignal): Promise<() => Finding[]>;
  /** The findings to report when the task did not answer within its timeout (or was stopped). */
  onTimeout(ms: number): Finding[];
}

/** Options every probe planner takes; each side effect is a seam with a real default. */
export interface ProbeEnv {
  /** Every HTTP request of the run goes through it: keep-alive pools per origin (edge/transport.ts
   * createHttpPool), or fetchTransport(fetch) where a test shapes the answers. */
  http: HttpTransport;
  env: NodeJS.ProcessEnv;
  /** Extra PATH entries searched first for nvidia-smi, xpu-smi, ssh and ping. */
  pathPrefix?: string[];
  /** Variable names a child process may see beyond PATH, locale, HOME, USER and SSH_AUTH_SOCK (never a key). */
  passEnv?: string[];
  now: () => number; // monotonic milliseconds (performance.now), for latency
  /** Wall clock for `observedAt`. */
  clock: () => Date;
  paid: boolean; // send billable requests to paid backends
  /** argv prefix for ICMP; default ['ping']. Tests run it inside a namespace: ['ip','netns','exec','ns1','ping']. */
  pingCommand?: string[];
  /** Per-task timeout in ms (the runner also enforces it). */
  timeoutMs: number;
  marginFloorMiB: number;
  /** Kills the process groups of children still running when this process stops. */
  reaper: Reaper;
  /** Caps on what a peer may send. */
  maxBodyBytes: number;
  maxOutputBytes: number;
  /** Programs (ping, ssh, a local nvidia-smi or docker) start once it opens: the gateway's listings are in hand, or its cap passed
   * (edge/gate.ts). Unset: they start at once. */
  programGate?: ProgramGate;
}

/** Tracks child process groups so they can be killed when the process stops; injected, never module state. */
export interface Reaper {
  track(pid: number): void;
  untrack(pid: number): void;
  killAll(signal?: NodeJS.Signals): void;
  readonly size: number;
}

/** Which part of the fleet a probe covers. */
export interface ProbeScope {
  sites: string[];
}
