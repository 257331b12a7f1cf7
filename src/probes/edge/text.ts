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
// C0, DEL, C1, the bidi controls that reorder what is shown (Trojan Source), and the invisible ones
// (soft hyphen, zero-width space and joiners, word joiner, BOM) that split a key so that it reads the
// same on screen and escapes its redaction.
const CONTROLS = /[\x00-\x08\x0e-\x1f\x7f-\x9f\xad\u061c\u200b-\u200f\u202a-\u202e\u2060-\u2064\u2066-\u2069\ufeff]/g;
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
  return grouped(String(Math.round(n) || 0));
}

/** 1234.56 → "1,234.6" (at most `digits` decimals, none when whole); NaN and ±Infinity → "?". */
export function fmtNum(n: number, digits = 1): string {
  if (!Number.isFinite(n)) return '?';
  const plain = String(Math.abs(n));
  // Exponent forms (under 1e-6, from 1e21): rare enough to leave to Intl.
  if (plain.includes('e')) {
    const s = n.toLocaleString('en-US', { maximumFractionDigits: digits });
    return s === '-0' ? '0' : s;
  }
  const r = roundHalfUp(plain, Math.max(0, Math.trunc(digits)));
  return /^[0.]*$/.test(r) ? '0' : `${n < 0 ? '-' : ''}${grouped(r)}`;
}

/**
 * A plain decimal ("0.15", the shortest form that reads back as the number) rounded half up at
 * `digits` decimals, trailing zeros dropped: what Intl's en-US format does with maximumFractionDigits
 * (it rounds the shortest decimal, not the binary value: 0.15 → 0.2, where toFixed gives 0.1).
 */
function roundHalfUp(plain: string, digits: number): string {
  const dot = plain.indexOf('.');
  if (dot === -1) return plain;
  const cutAt = dot + 1 + digits;
  if (plain.length <= cutAt) return plain.replace(/\.?0+$/, '');
  const kept = (digits === 0 ? plain.slice(0, dot) : plain.slice(0, cutAt)).split('');
  if (plain.charCodeAt(cutAt) >= 0x35) {
    let i = kept.length - 1;
    for (; i >= 0; i--) {
      if (kept[i] === '.') continue;
      if (kept[i] === '9') kept[i] = '0';
      else {
        kept[i] = String.fromCharCode(kept[i]!.charCodeAt(0) + 1);
        break;
      }
    }
    if (i < 0) kept.unshift('1');
  }
  const out = kept.join('');
  return out.includes('.') ? out.replace(/\.?0+$/, '') : out;
}

/**
 * "-1234567.5" → "-1,234,567.5", as toLocaleString('en-US') writes it, without it: its first call
 * loads ICU's number formats (~20 ms of start-up, before the first probe could start).
 */
function grouped(plain: string): string {
  // String() writes 1e21 and above with an exponent: leave those to Intl.
  if (plain.includes('e')) return Number(plain).toLocaleString('en-US');
  const sign = plain.startsWith('-') ? '-' : '';
  const dot = plain.indexOf('.');
  const int = plain.slice(sign.length, dot === -1 ? undefined : dot);
  const frac = dot === -1 ? '' : plain.slice(dot);
  let out = '';
  for (let i = int.length; i > 0; i -= 3) out = `${int.slice(Math.max(0, i - 3), i)}${out === '' ? '' : ','}${out}`;
  return `${sign}${out}${frac}`;
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
  return makeRedactor(secrets)(text);
}

export type Redactor = (text: string) => string;

/**
 * `redact` with the secrets prepared once: a probe run redacts every string of thousands of findings
 * with the same few keys. A text holding none of them (nor their first MIN_TAIL characters, nor
 * LiteLLM's echo words) is answered without a copy.
 */
export function makeRedactor(secrets: readonly string[]): Redactor {
  // A secret in a URL (a redirect's Location) may come percent-encoded.
  const usable = [...new Set(secrets.flatMap((s) => [s, encodeURIComponent(s)]))].filter((s) => s !== '');
  const whole = new Set(usable);
  const long = usable.filter((s) => s.length >= MIN_SUBSTRING_SECRET).sort((a, b) => b.length - a.length);
  // A cut-short secret at the end holds at least its first MIN_TAIL characters.
  const tails = long.filter((s) => s.length > MIN_TAIL).map((s) => ({ s, head: s.slice(0, MIN_TAIL) }));
  return (text) => {
    if (whole.has(text)) return REDACTED;
    let out = text;
    if (out.includes('Received API Key = ') || out.includes('Key Hash (Token) =')) for (const re of LITELLM_ECHOES) out = out.replace(re, '');
    for (const s of long) if (out.includes(s)) out = out.split(s).join(HOLE);
    if (tails.some((t) => out.includes(t.head))) out = redactTail(out, tails);
    return out.includes(HOLE) ? out.split(HOLE).join(REDACTED) : out;
  };
}

function redactTail(text: string, secrets: readonly { s: string; head: string }[]): string {
  const ellipsis = /(?:…|\.\.\.)$/.exec(text)?.[0] ?? '';
  const body = text.slice(0, text.length - ellipsis.length);
  for (const { s, head } of secrets) {
    if (!body.includes(head)) continue;
    for (let n = s.length - 1; n >= MIN_TAIL; n--) {
      if (body.endsWith(s.slice(0, n))) return `${body.slice(0, body.length - n)}${HOLE}${ellipsis}`;
    }
  }
  return text;
}

/**
 * `value` with every string redacted, except under the keys in `skipKeys` (their whole subtree is
 * kept): codes such as status, reason, kind and probe are not free text, and redacting them would
 * corrupt what code decides on. Walks plain objects and arrays; anything else is kept. The input is
 * never modified: a container with something redacted in it is copied, one with nothing is shared.
 */
export function redactStrings<T>(value: T, secrets: readonly string[] | Redactor, skipKeys: ReadonlySet<string>): T {
  if (typeof secrets !== 'function' && secrets.every((s) => s === '')) return value;
  const redactor = typeof secrets === 'function' ? secrets : makeRedactor(secrets);
  // `open` holds the containers being walked, so a cycle is kept as it is instead of looping.
  const open = new Set<object>();
  const walk = (v: unknown): unknown => {
    if (typeof v === 'string') return redactor(v);
    if (v === null || typeof v !== 'object' || open.has(v)) return v;
    const proto: unknown = Object.getPrototypeOf(v);
    if (!Array.isArray(v) && proto !== Object.prototype && proto !== null) return v;
    open.add(v);
    try {
      if (Array.isArray(v)) {
        let copy: unknown[] | null = null;
        for (let i = 0; i < v.length; i++) {
          const x: unknown = v[i];
          const y = walk(x);
          if (y !== x) (copy ??= v.slice())[i] = y;
        }
        return copy ?? v;
      }
      let copy: Record<string, unknown> | null = null;
      for (const k of Object.keys(v)) {
        if (skipKeys.has(k)) continue;
        const x = (v as Record<string, unknown>)[k];
        const y = walk(x);
        if (y === x) continue;
        copy ??= { ...(v as Record<string, unknown>) };
        // A peer's JSON may hold a "__proto__" key: it stays an own property, never a prototype.
        Object.defineProperty(copy, k, { value: y, enumerable: true, writable: true, configurable: true });
      }
      return copy ?? v;
    } finally {
      open.delete(v);
    }
  };
  return walk(value) as T;
}
