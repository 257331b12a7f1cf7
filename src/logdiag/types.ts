// What `seat diagnose` reads out of a log: one finding per recognised message, with the numbers it
// read as fields. Every figure a caller branches on is a field; `text` is only for people.

/** problem: something failed or degraded (exit 1). note: worth knowing, nothing failed. info: a figure. */
export type Severity = 'problem' | 'note' | 'info';

export interface KvCacheInsufficientFields {
  /** The model's max seq len the engine wanted to serve (tokens). */
  maxSeqLen: number | null;
  neededGiB: number | null;
  availableGiB: number | null;
  /** needed − available, when both were read. */
  shortGiB: number | null;
  /** vLLM's own estimate of the longest context that would fit; missing in some builds. */
  estimatedMaxModelLen: number | null;
}

export interface StartupFreeMemoryFields {
  /** `cuda:0` where the build names it. */
  device: string | null;
  freeGiB: number | null;
  totalGiB: number | null;
  utilization: number | null;
  requestedGiB: number | null;
  /** The largest utilization that fits what was free (free / total, rounded down to 0.01). */
  fitsUtilization: number | null;
}

export interface AllocatorOomFields {
  /** vllm: `OOM on device N while trying to allocate B bytes (free: F)`; torch: `CUDA out of memory. Tried to allocate …`. */
  source: 'vllm' | 'torch';
  device: string | null;
  wantBytes: number | null;
  freeBytes: number | null;
  totalBytes: number | null;
}

export interface MinuteCount {
  /** `MM-DD HH:MM` as the log wrote it (its clock, its zone). */
  minute: string;
  count: number;
}

export interface FlashinferFallbackFields {
  total: number;
  /** Fallbacks whose minute is known (their own timestamp, or the last one logged before them). */
  timed: number;
  /** Fallbacks before any timestamp: counted in the total only. */
  untimed: number;
  /** Minutes that had at least one, oldest first (empty when the log has no timestamps). */
  perMinute: MinuteCount[];
  worstMinute: MinuteCount | null;
  firstMinute: string | null;
  lastMinute: string | null;
  /** First to last minute, both counted (3 for 16:45…16:47). */
  spanMinutes: number | null;
  /** total timed / spanMinutes. */
  perMinuteAverage: number | null;
  lastLine: number;
}

export interface KvCacheMemoryFields { availableGiB: number }
export interface KvCacheSizeFields { tokens: number }
export interface MaxConcurrencyFields { tokensPerRequest: number; concurrency: number }

export interface ProfileSuggestionFields {
  /** `--kv-cache-memory=N` vLLM says fits the requested utilization. */
  fitBytes: number | null;
  fitGiB: number | null;
  /** `--kv-cache-memory=N` vLLM says would "fully utilize gpu memory". */
  fullBytes: number | null;
  fullGiB: number | null;
  currentGiB: number | null;
  freeGiB: number | null;
  totalGiB: number | null;
  utilization: number | null;
}

export interface ProfilingSkippedFields { reservedGiB: number | null }
export type NoFields = Record<string, never>;

export interface FieldsByKind {
  kv_cache_insufficient: KvCacheInsufficientFields;
  kv_cache_none: NoFields;
  startup_free_memory: StartupFreeMemoryFields;
  allocator_oom: AllocatorOomFields;
  flashinfer_oom_fallback: FlashinferFallbackFields;
  engine_init_failed: NoFields;
  profile_suggestion: ProfileSuggestionFields;
  profiling_skipped: ProfilingSkippedFields;
  kv_cache_memory: KvCacheMemoryFields;
  kv_cache_size: KvCacheSizeFields;
  max_concurrency: MaxConcurrencyFields;
}

export type FindingKind = keyof FieldsByKind;

/** What a recogniser reads from one message, before the scanner adds where and when. */
export type Reading = { [K in FindingKind]: { kind: K; fields: FieldsByKind[K]; partial: boolean } }[FindingKind];

export type LogFinding = { [K in FindingKind]: LogFindingOf<K> }[FindingKind];

export interface LogFindingOf<K extends FindingKind> {
  kind: K;
  severity: Severity;
  fields: FieldsByKind[K];
  /** 1-based; for a message wrapped over several lines, its first line. */
  line: number;
  /** The line cleaned (no escapes, no control characters), at most 200 characters. */
  text: string;
  /** `MM-DD HH:MM`: the line's own time, else the last one logged before it; null when none yet. */
  minute: string | null;
  /** Some numbers could not be read (a cut line): those fields are null. */
  partial: boolean;
  /** The seed this matches, in one line; null for a plain figure. */
  lesson: string | null;
  /** What can be done about it, first choice first. */
  options: string[];
}

export interface FindingGroup {
  kind: FindingKind;
  severity: Severity;
  count: number;
  /** The first of them (of the gravest severity, when they differ). */
  first: LogFinding;
  /** The newest of them (the same as first when count is 1): a restarted engine logs its figures again. */
  last: LogFinding;
}

export interface Diagnosis {
  /** Lines read. */
  lines: number;
  /** Lines longer than the cap, read only up to it. */
  truncatedLines: number;
  /** Findings of severity problem. */
  problems: number;
  /** One per kind: problems first, then notes, then figures; each in the order first seen. */
  groups: FindingGroup[];
}
