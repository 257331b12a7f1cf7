// What every probe produces. The core returns these as data; front ends only render them.

export type ProbeGroup = 'aliases' | 'gpus' | 'power';
export const PROBE_GROUPS: readonly ProbeGroup[] = ['aliases', 'gpus', 'power'];

export type FindingStatus = 'up' | 'down' | 'degraded' | 'unknown';

/** `gateway`: a key's listing; `alias`: one alias through the gateway; `seat`: a backend directly. */
export type ProbeName = 'gateway' | 'alias' | 'seat' | 'gpu' | 'ups' | 'bmc' | 'firewall' | 'host';

export interface Finding {
  probe: ProbeName;
  /** Human name of what was probed: `gen`, `fv-ml1 GPU1`, `fvups@192.0.2.1:3493`. */
  target: string;
  status: FindingStatus;
  /** One line a tired person can read. */
  detail: string;
  /** How it was obtained: the command or URL for a measurement, or `inferred: <from what>`. */
  measuredBy: string;
  latencyMs: number | null;
  site?: string;
  host?: string;
  /** Structured figures for renderers and the diagnosis (GPU memory, UPS load, per-key results). */
  data?: FindingData;
}

export type FindingData =
  | { kind: 'alias'; aliasKind: 'chat' | 'embedding' | 'unknown'; paid: boolean; routedTo: string[]; keys: KeyResult[] }
  | { kind: 'seat'; url: string; health: HttpOutcome; models?: string[] }
  | { kind: 'gateway'; key: string; models: string[] }
  | { kind: 'gpu'; gpu: GpuMemory }
  | { kind: 'ups'; ups: UpsReading }
  | { kind: 'oob'; ping: 'ok' | 'failed' | 'skipped'; tcp: { port: number; ok: boolean; error?: string }[] };

export interface HttpOutcome {
  ok: boolean;
  /** HTTP status, or null when no response came (refused, reset, timeout). */
  httpStatus: number | null;
  /** First line of the error body, or the transport error code. */
  error?: string;
  latencyMs: number;
}

export interface KeyResult {
  key: string;
  registered: boolean | null; // null: the listing itself failed
  request?: HttpOutcome; // absent when not exercised (paid without --paid, or not registered)
  note?: string;
}

export interface GpuSeatUse {
  seat: string;
  /** util × total, or the KV bytes, in MiB: what the engine was told it may take. */
  declaredMiB: number | null;
  declaredBy: string;
  /** The budget is kv-cache-memory-bytes: the weights come on top of it. */
  kvCacheOnly?: true;
  /** What nvidia-smi's compute-apps says its processes hold; null when not attributable. */
  measuredMiB: number | null;
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

export interface UpsReading {
  ups: string;
  status: string[]; // OL, OB, LB, OVER, ...
  loadPct: number | null;
  /** Watts drawn: metered by the UPS (ups.realpower) when it reports it, else load % × rating. */
  loadW: number | null;
  loadWFrom: 'ups.realpower' | 'load×rating' | null;
  ratedW: number | null;
  chargePct: number | null;
  runtimeS: number | null;
  vars: Record<string, string>;
}

/** One unit of work for the runner: a probe of one target, with its own timeout. */
export interface ProbeTask {
  id: string;
  group: ProbeGroup;
  probe: ProbeName;
  target: string;
  site?: string;
  host?: string;
  timeoutMs: number;
  /** Resolve with its findings (a host's GPU query yields one per GPU); must stop work when `signal`
   * aborts. May reject: the runner turns that into an `unknown` finding. */
  run(signal: AbortSignal): Promise<Finding[]>;
  /** The findings to report when the task did not answer within its timeout. */
  onTimeout(ms: number): Finding[];
}

/** Options every probe planner takes; each side effect is a seam with a real default. */
export interface ProbeEnv {
  fetch: typeof fetch;
  env: NodeJS.ProcessEnv;
  /** Extra PATH entries searched first for nvidia-smi, xpu-smi, ssh and ping. */
  pathPrefix?: string[];
  now: () => number; // monotonic milliseconds (performance.now), for latency
  paid: boolean; // send billable requests to paid backends
  /** argv prefix for ICMP; default ['ping']. Tests run it inside a namespace: ['ip','netns','exec','ns1','ping']. */
  pingCommand?: string[];
  /** Per-task timeout in ms (the runner also enforces it). */
  timeoutMs: number;
  marginFloorMiB: number;
}

/** Which part of the fleet a probe covers. */
export interface ProbeScope {
  sites: string[];
}
