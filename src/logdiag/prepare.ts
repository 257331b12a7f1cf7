// One segment of a log line made ready to read: cleaned of escapes and control characters (what a
// terminal or Slack would otherwise act on), its minute found, and its log-record prefixes peeled
// off so a message wrapped over several lines can be recognised as one.
import { clean } from '../probes/edge/text.ts';

export interface Prepared {
  /** The segment as shown: cleaned, whitespace collapsed. */
  shown: string;
  /** Without its prefixes: docker's timestamp, compose's `service |`, `(EngineCore_DP0 pid=…)`, `INFO 09-13 06:56:04 [file.py:12]`. */
  body: string;
  /** `MM-DD HH:MM`, or null when the segment carries no time. */
  minute: string | null;
}

// Only the start of a line is searched for its time: a date inside a message is not the log's clock.
const TIME_WINDOW = 120;
// 2026-09-13T06:56:04.123Z (docker -t), 2026-09-13 06:56:04,123 (Python), 2026/09/13 06:56:04, 09-13 06:56:04 (vLLM).
const TIME = /(?<![\d.:])(?:(\d{4})[-/])?(\d\d)[-/](\d\d)[ T](\d\d):(\d\d):\d\d(?![\d])/;
// Sep 13 06:56:04 (journalctl, syslog): only at the start of a line.
const SYSLOG_TIME = /^(Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec) +(\d{1,2}) (\d\d):(\d\d):\d\d\b/;
const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

const PREFIXES = [
  /^(?:[A-Z][a-z]{2} +\d{1,2} \d\d:\d\d:\d\d|\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:[.,]\d+)?(?:Z|[+-]\d\d:?\d\d)) \S+ [^\s:[]+\[\d+\]:\s*/, // journalctl: `Sep 13 06:56:04 brutus unit[2212]: `
  /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d{1,9})?(?:Z|[+-]\d\d:?\d\d)\s*/, // docker logs --timestamps
  /^\[?[A-Za-z0-9][\w.@-]{0,62}\]?\s*\|\s?/, // docker compose logs: `vllm-chat  | `
  /^\([^()]{0,60}\bpid=\d+\)\s*/, // (EngineCore_DP0 pid=123), (APIServer pid=1), (VllmWorker rank=0 pid=9)
  /^(?:DEBUG|INFO|WARNING|WARN|ERROR|CRITICAL)\s+\d\d-\d\d \d\d:\d\d:\d\d(?:\.\d+)?\s*(?:\[[^\]]{0,100}\]\s*|[\w.]{1,80}:\d+\]\s*)?/, // vLLM (older: `file.py:12]`)
  /^\d{4}[-/]\d\d[-/]\d\d[ T]\d\d:\d\d:\d\d(?:[,.]\d+)?\s*(?:-\s*)?(?:(?:DEBUG|INFO|WARNING|ERROR|CRITICAL)\s*-\s*)?(?:[\w.]+:\d+\s*-\s*)?(?:[\w.]+:(?:\s|$))?/, // Python logging
  /^\[(?:DEBUG|INFO|WARNING|WARN|ERROR|CRITICAL)\]\s*/,
];

export function prepare(segment: string): Prepared {
  const shown = clean(segment);
  return { shown, body: stripPrefixes(shown), minute: minuteOf(shown) };
}

export function minuteOf(shown: string): string | null {
  const sys = SYSLOG_TIME.exec(shown);
  if (sys) {
    const month = MONTHS.indexOf(sys[1]!) + 1;
    const day = Number(sys[2]);
    if (day >= 1 && day <= 31 && Number(sys[3]) <= 23 && Number(sys[4]) <= 59) return `${String(month).padStart(2, '0')}-${String(day).padStart(2, '0')} ${sys[3]}:${sys[4]}`;
  }
  const m = TIME.exec(shown.slice(0, TIME_WINDOW));
  if (!m) return null;
  const [month, day, hour, minute] = [m[2], m[3], m[4], m[5]].map(Number) as [number, number, number, number];
  if (month < 1 || month > 12 || day < 1 || day > 31 || hour > 23 || minute > 59) return null;
  return `${m[2]}-${m[3]} ${m[4]}:${m[5]}`;
}

export function stripPrefixes(shown: string): string {
  let s = shown;
  for (let pass = 0; pass < PREFIXES.length; pass++) {
    const before = s;
    for (const re of PREFIXES) s = s.replace(re, '');
    if (s === before) break;
  }
  return s;
}

/** `09-13 06:56` → minutes since the start of a leap year, so a span can be counted across days. */
export function minuteIndex(minute: string): number | null {
  const m = /^(\d\d)-(\d\d) (\d\d):(\d\d)$/.exec(minute);
  if (!m) return null;
  const t = Date.UTC(2000, Number(m[1]) - 1, Number(m[2]), Number(m[3]), Number(m[4]));
  return Math.round((t - Date.UTC(2000, 0, 1)) / 60_000);
}

/** The inverse of minuteIndex. */
export function minuteAt(index: number): string {
  const d = new Date(Date.UTC(2000, 0, 1) + index * 60_000);
  const p = (n: number): string => String(n).padStart(2, '0');
  return `${p(d.getUTCMonth() + 1)}-${p(d.getUTCDate())} ${p(d.getUTCHours())}:${p(d.getUTCMinutes())}`;
}
