// nvidia-smi's CSV, one field at a time: the header's column names (found by name, any order),
// its timestamps and its watt values. `--format=csv` separates fields with ", " and puts the unit
// in the header (`power.draw [W]`) and, without `nounits`, after each value (`312.40 W`).

/** Where the columns are, by name; null where the header lacks one. */
export interface Columns {
  count: number;
  /** The power column used: power.draw, else power.draw.instant, else power.draw.average. */
  drawName: string;
  draw: number;
  timestamp: number | null;
  index: number | null;
  uuid: number | null;
  busId: number | null;
  name: number | null;
  limit: number | null;
}

const DRAW_NAMES = ['power.draw', 'power.draw.instant', 'power.draw.average'];
const LIMIT_NAMES = ['power.limit', 'enforced.power.limit'];

export function splitFields(line: string): string[] {
  return line.split(',').map((f) => f.trim());
}

/** `power.draw [W]` → `power.draw`. */
function columnName(field: string): string {
  return field.replace(/\s*\[[^\]]*\]$/, '').toLowerCase();
}

/** The header's columns, or null when the line is not a header with a power column. */
export function readHeader(line: string): Columns | null {
  const names = splitFields(line).map(columnName);
  const find = (...wanted: string[]): number | null => {
    for (const w of wanted) {
      const i = names.indexOf(w);
      if (i >= 0) return i;
    }
    return null;
  };
  const draw = find(...DRAW_NAMES);
  if (draw === null) return null;
  return {
    count: names.length,
    drawName: names[draw]!,
    draw,
    timestamp: find('timestamp'),
    index: find('index'),
    uuid: find('uuid', 'gpu_uuid'),
    busId: find('pci.bus_id', 'gpu_bus_id'),
    name: find('name', 'gpu_name'),
    limit: find(...LIMIT_NAMES),
  };
}

// `2026/09/13 06:56:04.123` (nvidia-smi); `-` or `T` accepted too. Local time of the host, no zone.
const STAMP = /^(\d{4})[/-](\d{2})[/-](\d{2})[ T](\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,9}))?$/;

/**
 * The host's wall-clock time as milliseconds, counted as if it were UTC: the log names no zone,
 * so none is assumed, and `formatStamp` gives back the same wall-clock text. NaN when malformed.
 */
export function parseStamp(text: string): number {
  const m = STAMP.exec(text);
  if (!m) return NaN;
  const [y, mo, d, h, mi, s] = [m[1], m[2], m[3], m[4], m[5], m[6]].map(Number) as [number, number, number, number, number, number];
  const ms = m[7] === undefined ? 0 : Math.floor(Number(`0.${m[7]}`) * 1000);
  const t = Date.UTC(y, mo - 1, d, h, mi, s, ms);
  const back = new Date(t);
  // Date.UTC rolls 2026/02/31 over into March: a date that does not exist is malformed.
  if (back.getUTCDate() !== d || back.getUTCMonth() !== mo - 1 || h > 23 || mi > 59 || s > 59) return NaN;
  return t;
}

/** The inverse of parseStamp: `2026/09/13 06:56:04.123`. */
export function formatStamp(ms: number): string {
  const d = new Date(ms);
  const p = (n: number, w = 2): string => String(n).padStart(w, '0');
  return `${d.getUTCFullYear()}/${p(d.getUTCMonth() + 1)}/${p(d.getUTCDate())} ${p(d.getUTCHours())}:${p(d.getUTCMinutes())}:${p(d.getUTCSeconds())}.${p(d.getUTCMilliseconds(), 3)}`;
}

const WATTS = /^(\d{1,6}(?:\.\d{1,6})?) ?W?$/;

/** `312.40 W` or `312.40` → 312.4; `[N/A]`, `[Not Supported]`, `[Unknown Error]`, `N/A` → 'not_reported'; else null. */
export function parseWatts(field: string): number | 'not_reported' | null {
  const m = WATTS.exec(field);
  if (m) return Number(m[1]);
  return /^\[.*\]$|^N\/A$/i.test(field) ? 'not_reported' : null;
}
