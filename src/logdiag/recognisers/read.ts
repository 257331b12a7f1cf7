// Reading numbers out of a message. Every pattern ends in the text that follows its number (a unit,
// a bracket, a full stop): a line cut through a number then reads nothing, never a shorter number.

export const NUM = String.raw`(\d+(?:\.\d+)?)`;

/** The first group of `re` in `text` as a number; null when absent or not finite. */
export function num(re: RegExp, text: string, group = 1): number | null {
  const m = re.exec(text);
  const v = m?.[group];
  if (v === undefined) return null;
  const n = Number(v.replace(/,/g, ''));
  return Number.isFinite(n) ? n : null;
}

/** `560,654` → 560654, only with well-formed thousands groups. */
export function groupedInt(v: string | undefined): number | null {
  if (v === undefined || !/^\d{1,3}(?:,\d{3})*$|^\d+$/.test(v)) return null;
  return Number(v.replace(/,/g, ''));
}

const UNIT: Record<string, number> = { b: 1, bytes: 1, kib: 1024, mib: 1024 ** 2, gib: 1024 ** 3, tib: 1024 ** 4 };

/** `466.00 MiB` → 488636416. */
export function bytesOf(value: string | undefined, unit: string | undefined): number | null {
  if (value === undefined || unit === undefined) return null;
  const k = UNIT[unit.toLowerCase()];
  const n = Number(value);
  return k === undefined || !Number.isFinite(n) ? null : Math.round(n * k);
}

export function round2(n: number): number {
  return Math.round(n * 100) / 100;
}
