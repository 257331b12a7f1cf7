// The one place that makes a peer's text safe to show: a model id, an error body, a tool's stderr
// all reach a terminal, Slack and piped output. An escape sequence must never reach a terminal, a
// newline must never forge a line in `seat probe | grep`, and a key's value must never be shown.
//
// The order callers follow: clean → redact → cut. Cleaning first because dropping control
// characters could join a secret a peer split with them; redacting before cutting because a cut can
// leave half a secret that no longer matches it.

// ESC [ … final (CSI), ESC ] … BEL/ST (OSC, also unterminated), ESC P/X/^/_ … ST (DCS, SOS, PM,
// APC), charset designations, other two-character escapes, and the 8-bit CSI/OSC/DCS forms.
const ESCAPES =
  /\x1b\[[0-?]*[ -/]*[@-~]?|\x9b[0-?]*[ -/]*[@-~]?|(?:\x1b[\]PX^_]|[\x90\x98\x9d\x9e\x9f])[^\x07\x1b\x9c]*(?:\x07|\x1b\\|\x9c)?|\x1b[()*+\-./][ -~]?|\x1b[ -~]?/g;
// Line breaks of every kind, including NEL (C1), LS and PS, which some renderers break on.
const BREAKS = /\r\n|[\n\r\v\f\u0085\u2028\u2029]/g;
// C0, DEL, C1, and the bidi controls that reorder what is shown (Trojan Source).
const CONTROLS = /[\x00-\x08\x0e-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;

/** One safe line: no escape sequence, no control or bidi character, no line break; runs of
 * whitespace become one space, trimmed. Lone surrogates become U+FFFD. */
export function clean(s: string): string {
  return s
    .replace(ESCAPES, '')
    .replace(BREAKS, ' ')
    .replace(CONTROLS, '')
    .replace(LONE_SURROGATE, '\ufffd')
    .replace(/[\t ]+/g, ' ')
    .trim();
}

/** The first non-blank line, trimmed; not cleaned (clean it before showing it). */
export function firstLine(s: string): string {
  for (const line of s.split(/\r\n|[\n\r\u0085\u2028\u2029]/)) {
    const t = line.trim();
    if (t !== '') return t;
  }
  return '';
}

/** `NVIDIA-SMI has failed because ... driver. Make sure that ...` → its first sentence, no final period. */
export function firstSentence(line: string): string {
  return (line.split(/\.\s+/)[0] ?? '').replace(/\.$/, '');
}

/** At most `max` UTF-16 units, ending in `…` when cut; never splits a surrogate pair. */
export function cut(s: string, max: number): string {
  if (s.length <= max) return s;
  if (max < 1) return '';
  let end = max - 1;
  const last = s.charCodeAt(end - 1);
  if (last >= 0xd800 && last <= 0xdbff) end -= 1;
  return `${s.slice(0, end)}…`;
}

/** 1010 → "1,010"; rounds; NaN and ±Infinity → "?". */
export function fmtInt(n: number): string {
  if (!Number.isFinite(n)) return '?';
  return (Math.round(n) || 0).toLocaleString('en-US');
}

/** 1234.56 → "1,234.6" (at most `digits` decimals, none when whole); NaN and ±Infinity → "?". */
export function fmtNum(n: number, digits = 1): string {
  if (!Number.isFinite(n)) return '?';
  const s = n.toLocaleString('en-US', { maximumFractionDigits: digits });
  return s === '-0' ? '0' : s;
}

/** 81559 → "81,559 MiB". */
export function fmtMiB(n: number): string {
  return `${fmtInt(n)} MiB`;
}

export const REDACTED = '[redacted]';

/** Shorter secrets are only redacted where a whole value equals them: as substrings they would eat
 * ordinary words ("u" would turn "up" into "[redacted]p"), and a key that short protects nothing. */
export const MIN_SUBSTRING_SECRET = 4;
/** A text that ends in at least this many first characters of a secret had it cut short: redacted. */
export const MIN_TAIL = 8;

// LiteLLM echoes part of a rejected key, and its hash; a misbehaving gateway might echo all of it.
const LITELLM_ECHOES = [/Received API Key = [^,\s]*,?\s*/g, /Key Hash \(Token\) =\s*\S+\s*/g];
// A private-use character stands in for the marker until every secret is done, so a short secret
// that happens to be part of "[redacted]" cannot redact the marker itself.
const HOLE = '\ue000';

/**
 * Every secret in `text` → "[redacted]", longest first (a key that contains another is gone whole),
 * plus a secret cut short at the end of the text (≥ MIN_TAIL first characters, before any "…"), plus
 * LiteLLM's key echoes. Only for free text: never run it over codes and enums (use redactStrings).
 */
export function redact(text: string, secrets: readonly string[]): string {
  // A secret in a URL (a redirect's Location) may come percent-encoded.
  const usable = [...new Set(secrets.flatMap((s) => [s, encodeURIComponent(s)]))].filter((s) => s !== '');
  if (usable.includes(text)) return REDACTED;
  let out = text;
  for (const re of LITELLM_ECHOES) out = out.replace(re, '');
  const long = usable.filter((s) => s.length >= MIN_SUBSTRING_SECRET).sort((a, b) => b.length - a.length);
  for (const s of long) out = out.split(s).join(HOLE);
  out = redactTail(out, long);
  return out.split(HOLE).join(REDACTED);
}

function redactTail(text: string, secrets: readonly string[]): string {
  const ellipsis = /(?:…|\.\.\.)$/.exec(text)?.[0] ?? '';
  const body = text.slice(0, text.length - ellipsis.length);
  for (const s of secrets) {
    for (let n = s.length - 1; n >= MIN_TAIL; n--) {
      if (body.endsWith(s.slice(0, n))) return `${body.slice(0, body.length - n)}${HOLE}${ellipsis}`;
    }
  }
  return text;
}

/**
 * A copy of `value` with every string redacted, except under the keys in `skipKeys` (their whole
 * subtree is kept): codes such as status, reason, kind and probe are not free text, and redacting
 * them would corrupt what code decides on. Walks plain objects and arrays; anything else is kept.
 */
export function redactStrings<T>(value: T, secrets: readonly string[], skipKeys: ReadonlySet<string>): T {
  if (secrets.every((s) => s === '')) return value;
  // `open` holds the containers being walked, so a cycle is kept as it is instead of looping.
  const open = new Set<object>();
  const walk = (v: unknown): unknown => {
    if (typeof v === 'string') return redact(v, secrets);
    if (v === null || typeof v !== 'object' || open.has(v)) return v;
    const proto: unknown = Object.getPrototypeOf(v);
    if (!Array.isArray(v) && proto !== Object.prototype && proto !== null) return v;
    open.add(v);
    try {
      if (Array.isArray(v)) return v.map(walk);
      const out: Record<string, unknown> = {};
      for (const [k, x] of Object.entries(v)) out[k] = skipKeys.has(k) ? x : walk(x);
      return out;
    } finally {
      open.delete(v);
    }
  };
  return walk(value) as T;
}
