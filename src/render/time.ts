// Every time text seat shows (the postmortem, Slack, the guardrails), in one module on date-fns.
// Times as the postmortem shows them: UTC always (the journal stores UTC; a reader in another zone
// must not have to convert), offsets from the incident's start as T+h:mm:ss. Computed with
// date-fns from the stored instants, never from the local zone of the machine that exports.
import { differenceInSeconds } from 'date-fns/differenceInSeconds';

const STORED = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d+)?Z$/;

/** `2026-12-03T07:02:00.000Z` → `2026-12-03 07:02:00`. */
export function utc(iso: string): string {
  // The journal stores every time in this one form: cut it, no Date needed (a timeline has thousands).
  if (STORED.test(iso)) return `${iso.slice(0, 10)} ${iso.slice(11, 19)}`;
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return '?';
  return d.toISOString().slice(0, 19).replace('T', ' ');
}

/** `07:02:00`, the time of day in UTC. */
export function utcTime(iso: string): string {
  return utc(iso).slice(11);
}

/** Whole seconds from `from` to `to`; null when either is not a time. */
export function seconds(from: string, to: string): number | null {
  const a = Date.parse(from);
  const b = Date.parse(to);
  if (Number.isNaN(a) || Number.isNaN(b)) return null;
  return differenceInSeconds(b, a);
}

/** The offset from the incident's start: `T+0:03:00`, `T−0:00:40` before it, `T+1d 02:00:00` past a day. */
export function offset(start: string, at: string): string {
  const s = seconds(start, at);
  if (s === null) return 'T?';
  const sign = s < 0 ? '−' : '+';
  let n = Math.abs(s);
  const days = Math.floor(n / 86_400);
  n -= days * 86_400;
  const h = Math.floor(n / 3600);
  const m = Math.floor((n % 3600) / 60);
  const sec = n % 60;
  const hms = `${days > 0 ? String(h).padStart(2, '0') : h}:${String(m).padStart(2, '0')}:${String(sec).padStart(2, '0')}`;
  return `T${sign}${days > 0 ? `${days}d ` : ''}${hms}`;
}

/** A duration for people: `45 s`, `3 min 20 s`, `1 h 12 min`, `2 d 3 h`. */
export function duration(totalSeconds: number): string {
  const neg = totalSeconds < 0;
  let n = Math.abs(Math.round(totalSeconds));
  const d = Math.floor(n / 86_400);
  n -= d * 86_400;
  const h = Math.floor(n / 3600);
  const m = Math.floor((n % 3600) / 60);
  const s = n % 60;
  const text = d > 0 ? `${d} d ${h} h` : h > 0 ? `${h} h ${m} min` : m > 0 ? `${m} min${s ? ` ${s} s` : ''}` : `${s} s`;
  return neg ? `−${text}` : text;
}

/** `14:32`, the hour and minute in UTC of an instant in ms (null when it is not one). */
export function utcHourMinute(ms: number): string | null {
  return Number.isFinite(ms) ? utcTime(new Date(ms).toISOString()).slice(0, 5) : null;
}

/** An instant as the journal writes it, to the second: `2026-09-13T07:13:40Z`. */
export function isoSecond(ms: number): string {
  return Number.isFinite(ms) ? new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z') : 'an unreadable time';
}
