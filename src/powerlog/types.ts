// What a power log says, as data: the terminal renders it, and an incident export or a guardrail
// can read the same numbers. Times are the host's wall clock as nvidia-smi wrote it
// (`2026/09/13 06:56:04.123`, no zone); watts are GPU board power (power.draw), not the wall.

export interface Reading {
  watts: number;
  at: string;
}

export interface PowerWindow {
  meanW: number;
  /** The readings (rows, or summed samples) the mean is over. */
  samples: number;
  from: string;
  to: string;
}

export interface GpuPower {
  /** The index nvidia-smi printed; else its uuid or bus id; else `#N`, its place in the sample. */
  gpu: string;
  index: number | null;
  name: string | null;
  uuid: string | null;
  busId: string | null;
  rows: number;
  /** Rows with a number of watts. */
  readings: number;
  /** Rows whose power.draw was `[N/A]`, `[Not Supported]`, `[Unknown Error]` or the like. */
  notReported: number;
  peak: Reading | null;
  meanW: number | null;
  /** The mean over the last `windowMs` before the log ends. */
  lastWindow: PowerWindow | null;
  last: Reading | null;
  /** The last power.limit the log gave for it. */
  limitW: number | null;
}

/** All GPUs summed per sampling instant; only samples in which every GPU gave a number count. */
export interface SummedPower {
  samples: number;
  /** Samples left out of the sums: a GPU missing or not reported (e.g. the sample the cut split). */
  incomplete: number;
  peak: Reading | null;
  meanW: number | null;
  lastWindow: PowerWindow | null;
  last: Reading | null;
  /** The GPUs' power limits added up: the most the cards may draw together. */
  limitsW: number | null;
}

export interface SkippedLine {
  line: number;
  why: string;
  /** The line cleaned of control characters and cut short. */
  text: string;
}

export interface PowerLogSummary {
  /** The power column read: power.draw, power.draw.instant or power.draw.average. */
  drawColumn: string;
  gpus: GpuPower[];
  sum: SummedPower;
  /** Sampling instants (rows grouped by timestamp, a few ms of skew allowed). */
  samples: number;
  first: string | null;
  /** The last complete row's time: how close the log came to its end (the cut). */
  last: string | null;
  spanMs: number;
  /** The last sampling instant: how many GPUs it had before the log ended. */
  lastSample: { at: string; gpus: number; complete: boolean } | null;
  /** The most common gap between samples, rounded to 100 ms. */
  intervalMs: number | null;
  /** The longest gap between samples, and the sample it followed. */
  longestGap: { ms: number; after: string } | null;
  /** Samples that came earlier than the one before them (a clock step, or logs joined). */
  timeWentBack: number;
  windowMs: number;
  lines: {
    read: number;
    headers: number;
    rows: number;
    skipped: number;
  };
  skippedExamples: SkippedLine[];
  /** The unterminated last line (the cut), left out of every figure; `at` when its timestamp was whole. */
  partialLast: { text: string; at: string | null } | null;
}

export type PowerLogErrorCode = 'not_power_log' | 'no_timestamp' | 'read_failed';

export type PowerLogResult = { ok: true; summary: PowerLogSummary } | { ok: false; code: PowerLogErrorCode; message: string };
