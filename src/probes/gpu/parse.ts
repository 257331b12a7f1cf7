// Pure parsers for the GPU query tools, one per vendor. Columns are mapped by header name (any
// ` [MiB]` or ` (MiB)` unit stripped), so field order and unit drift between driver versions do not
// matter. Bracketed values (`[N/A]`, `[Not Supported]`, `[Unknown Error]`, ...) become null.
// Nothing here throws: output that is not what we asked for is a parse error with the offending text.

import { clean, cut } from '../edge/text.ts';
import type { GpuMemory } from '../types.ts';

export type ParseResult<T> = { ok: true; value: T } | { ok: false; error: string };

/** One GPU as the query tool reports it: the measured part of a GpuMemory. */
export type GpuRow = Pick<GpuMemory, 'index' | 'uuid' | 'name' | 'totalMiB' | 'usedMiB' | 'freeMiB'>;

export interface ProcessRow {
  /** nvidia-smi names the GPU by UUID; xpu-smi ps only by device index. */
  gpuUuid: string | null;
  gpuIndex: number | null;
  pid: number;
  name: string;
  usedMiB: number | null;
}

type GpuField = 'index' | 'uuid' | 'name' | 'total' | 'used' | 'free';
type AppField = 'uuid' | 'pid' | 'name' | 'used';

/** What we ask nvidia-smi for; the parser accepts these in any order, plus other columns. */
export const NVIDIA_GPU_FIELDS = 'index,uuid,name,memory.total,memory.used,memory.free';
export const NVIDIA_APP_FIELDS = 'gpu_uuid,pid,process_name,used_memory';

const NVIDIA_GPU_COLUMNS: Record<string, GpuField> = {
  index: 'index',
  uuid: 'uuid',
  gpu_uuid: 'uuid',
  name: 'name',
  gpu_name: 'name',
  'memory.total': 'total',
  'memory.used': 'used',
  'memory.free': 'free',
};

const NVIDIA_APP_COLUMNS: Record<string, AppField> = {
  gpu_uuid: 'uuid',
  uuid: 'uuid',
  pid: 'pid',
  process_name: 'name',
  name: 'name',
  used_memory: 'used',
  used_gpu_memory: 'used',
};

// XPU Manager 2.0's `--query-gpu` field names, from its reference (intel/xpumanager
// docs/sphinx/xpu-smi/overview.rst, "--query-gpu Field Reference"): `index`, `uuid`,
// `name` (alias `gpu_name`), `memory.total`, `memory.used`, `memory.free`, all in MiB — the
// same names as nvidia-smi. The underscore spellings are accepted in case a build prints them.
export const XPU_GPU_FIELDS = 'index,uuid,name,memory.total,memory.used,memory.free';

const XPU_GPU_COLUMNS: Record<string, GpuField> = {
  ...NVIDIA_GPU_COLUMNS,
  device_id: 'index',
  deviceid: 'index',
  memory_total: 'total',
  memory_used: 'used',
  memory_free: 'free',
};

const REQUIRED_GPU: GpuField[] = ['index', 'total', 'used', 'free'];
const REQUIRED_APP: AppField[] = ['pid', 'name', 'used'];
/** Rows one host's answer may have: more GPUs or processes than this is not one host's answer (a peer's
 * 200,000 lines made as many findings). */
export const MAX_GPU_ROWS = 64;
export const MAX_PROCESS_ROWS = 4096;
/** A name or UUID as kept and shown. */
const MAX_TEXT = 120;

export function parseNvidiaGpus(text: string): ParseResult<GpuRow[]> {
  return parseGpuCsv(text, NVIDIA_GPU_COLUMNS, 'nvidia-smi --query-gpu');
}

export function parseXpuGpus(text: string): ParseResult<GpuRow[]> {
  return parseGpuCsv(text, XPU_GPU_COLUMNS, 'xpu-smi --query-gpu');
}

/** `--query-compute-apps`: empty output or a header alone means no process. */
export function parseNvidiaApps(text: string): ParseResult<ProcessRow[]> {
  if (text.trim() === '') return { ok: true, value: [] };
  const table = readCsv(text, NVIDIA_APP_COLUMNS, [...REQUIRED_APP, 'uuid'], 'name', 'nvidia-smi --query-compute-apps', MAX_PROCESS_ROWS);
  if (!table.ok) return table;
  const rows: ProcessRow[] = [];
  for (const { get, line } of table.value) {
    const pid = integer(get('pid'));
    if (pid === null) return bad(`pid is not a number in ${quote(line)}`);
    const used = mib(get('used'));
    if (used === undefined) return bad(`used_memory is not a number in ${quote(line)}`);
    rows.push({ gpuUuid: text1(get('uuid')), gpuIndex: null, pid, name: shown(get('name') ?? ''), usedMiB: used });
  }
  return { ok: true, value: rows };
}

/**
 * `xpu-smi ps -j`. Shape taken from intel/xpumanager cli/src/comlet_ps.cpp, which renders the
 * JSON it prints: `{"device_util_by_proc_list":[{"process_id","process_name","device_id",
 * "shared_mem_size","mem_size"}]}`, memory in kB (KiB) per docs/sphinx/xpu-smi/ps.rst.
 * A few other key spellings are accepted; the 2.x docs do not show the JSON itself.
 */
export function parseXpuProcesses(text: string): ParseResult<ProcessRow[]> {
  if (text.trim() === '') return { ok: true, value: [] };
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    return bad(`expected the JSON of xpu-smi ps -j, got ${quote(text)}`);
  }
  const list = Array.isArray(json) ? json : pick(json, ['device_util_by_proc_list', 'processes', 'process_list']);
  if (list === undefined) return { ok: true, value: [] };
  if (!Array.isArray(list)) return bad(`expected a process list in xpu-smi ps -j, got ${quote(text)}`);
  if (list.length > MAX_PROCESS_ROWS) return bad(`over ${MAX_PROCESS_ROWS} processes in xpu-smi ps -j: not one host's answer`);
  const rows: ProcessRow[] = [];
  for (const entry of list) {
    const pid = pick(entry, ['process_id', 'pid']);
    const device = pick(entry, ['device_id', 'deviceId', 'gpu_id']);
    const name = pick(entry, ['process_name', 'command', 'name']);
    const kib = pick(entry, ['mem_size', 'memory', 'mem']);
    if (typeof pid !== 'number' || !Number.isSafeInteger(pid) || pid < 0) return bad(`a process without a numeric process_id in ${quote(described(entry))}`);
    rows.push({
      gpuUuid: null,
      gpuIndex: typeof device === 'number' && Number.isInteger(device) && device >= 0 && device <= MAX_FIGURE ? device : typeof device === 'string' ? integer(device) : null,
      pid,
      name: typeof name === 'string' ? shown(name) : '',
      usedMiB: typeof kib === 'number' && kib >= 0 && kib / 1024 <= MAX_FIGURE ? Math.round(kib / 1024) : null,
    });
  }
  return { ok: true, value: rows };
}

function parseGpuCsv(text: string, columns: Record<string, GpuField>, what: string): ParseResult<GpuRow[]> {
  if (text.trim() === '') return bad(`${what} printed nothing`);
  const table = readCsv(text, columns, REQUIRED_GPU, 'name', what, MAX_GPU_ROWS);
  if (!table.ok) return table;
  const rows: GpuRow[] = [];
  for (const { get, line } of table.value) {
    const index = integer(get('index'));
    if (index === null) return bad(`GPU index is not a number in ${quote(line)}`);
    const total = mib(get('total'));
    const used = mib(get('used'));
    const free = mib(get('free'));
    if (total === undefined || used === undefined || free === undefined) return bad(`a memory figure is not a number in ${quote(line)}`);
    // Free or used above the total is not a reading a margin can be judged on.
    if (total !== null && ((free !== null && free > total) || (used !== null && used > total))) return bad(`memory figures over the total in ${quote(line)}`);
    rows.push({ index, uuid: text1(get('uuid')), name: text1(get('name')), totalMiB: total, usedMiB: used, freeMiB: free });
  }
  return { ok: true, value: rows };
}

interface CsvRow<F extends string> {
  get: (field: F) => string | undefined;
  line: string;
}

/**
 * Finds the header (the first line naming every required column; warning lines before it are
 * skipped), then reads each data line. A line with the wrong number of fields is an error, except
 * that a free-text column (a process path with a comma in it) takes the surplus.
 */
function readCsv<F extends string>(
  text: string,
  columns: Record<string, F>,
  required: F[],
  freeText: F | null,
  what: string,
  maxRows: number,
): ParseResult<CsvRow<F>[]> {
  const lines = text.split(/\r?\n/).map((l) => l.trim()).filter((l) => l !== '' && !/^warning\b/i.test(l));
  // The header is among the first lines, and short: a long or late line is not looked into.
  const at = lines.findIndex((l, i) => {
    if (i >= HEADER_WITHIN || l.length > MAX_HEADER) return false;
    const names = splitFields(l).map(headerName);
    return required.every((f) => names.some((n) => columns[n] === f));
  });
  if (at < 0) {
    const want = Object.entries(columns).filter(([, f]) => required.includes(f)).map(([n]) => n);
    return bad(`no ${what} header (expected columns ${[...new Set(want)].join(', ')}), got ${quote(lines[0] ?? text)}`);
  }
  const header = splitFields(lines[at]!).map(headerName);
  const position = new Map<F, number>();
  header.forEach((n, i) => {
    const f = columns[n];
    if (f !== undefined && !position.has(f)) position.set(f, i);
  });
  if (lines.length - at - 1 > maxRows) return bad(`over ${maxRows} rows from ${what}: not one host's answer`);
  const rows: CsvRow<F>[] = [];
  for (const line of lines.slice(at + 1)) {
    let raw = line.split(',');
    const textAt = freeText === null ? undefined : position.get(freeText);
    if (raw.length > header.length && textAt !== undefined) {
      // Rejoin the raw pieces, so the text keeps exactly the commas and spaces it had.
      const extra = raw.length - header.length;
      raw = [...raw.slice(0, textAt), raw.slice(textAt, textAt + extra + 1).join(','), ...raw.slice(textAt + extra + 1)];
    }
    const fields = raw.map((f) => f.trim());
    if (fields.length !== header.length) {
      return bad(`expected ${header.length} fields as in the header, got ${fields.length} in ${quote(line)}`);
    }
    rows.push({ get: (f) => (position.has(f) ? fields[position.get(f)!] : undefined), line });
  }
  return { ok: true, value: rows };
}

function splitFields(line: string): string[] {
  return line.split(',').map((f) => f.trim());
}

const HEADER_WITHIN = 50;
const MAX_HEADER = 1024;
/** The largest figure believed (MiB, an index): 9 digits. */
const MAX_FIGURE = 999_999_999;

/** `memory.total [MiB]` → `memory.total`; `Memory.Used (MiB)` → `memory.used`. No regex: one that
 * backtracks took hours over a line of 64,000 `[` while the whole process stood still. */
function headerName(h: string): string {
  let s = h.trim();
  const last = s.charAt(s.length - 1);
  if (last === ']' || last === ')') {
    const open = Math.max(s.lastIndexOf('['), s.lastIndexOf('('));
    const inner = open < 0 ? '' : s.slice(open + 1, -1);
    if (open >= 0 && !inner.includes(']') && !inner.includes(')')) s = s.slice(0, open);
  }
  return s.trim().toLowerCase();
}

function isMissing(v: string): boolean {
  return /^\[.*\]$/.test(v) || /^n\/a$/i.test(v) || v === '';
}

/** A MiB figure: null when the tool says it has none, undefined when it is not a number at all. */
function mib(v: string | undefined): number | null | undefined {
  if (v === undefined || isMissing(v)) return null;
  const m = /^(\d{1,9}(?:\.\d{1,6})?)\s*(?:MiB)?$/i.exec(v);
  return m ? Math.round(Number(m[1])) : undefined;
}

function integer(v: string | undefined): number | null {
  return v !== undefined && /^\d{1,9}$/.test(v) ? Number(v) : null;
}

function text1(v: string | undefined): string | null {
  return v === undefined || isMissing(v) ? null : shown(v);
}

/** A name or UUID from the tool, as kept and shown: cleaned, cut. */
function shown(v: string): string {
  return cut(clean(v), MAX_TEXT);
}

/** An entry of a JSON answer, for a message: however deep it is nested. */
function described(v: unknown): string {
  try {
    return JSON.stringify(v) ?? String(v);
  } catch {
    return `(${Array.isArray(v) ? 'an array' : typeof v} too deep to show)`;
  }
}

function pick(obj: unknown, keys: string[]): unknown {
  if (obj === null || typeof obj !== 'object') return undefined;
  for (const k of keys) if (k in obj) return (obj as Record<string, unknown>)[k];
  return undefined;
}

function quote(s: string): string {
  const one = s.replace(/\s+/g, ' ').trim();
  return JSON.stringify(one.length > 60 ? `${one.slice(0, 60)}...` : one);
}

function bad(error: string): { ok: false; error: string } {
  return { ok: false, error };
}
