// Words of a command, before the grammar sees them. Verbs, site names and flags are held to a
// narrow alphabet (nothing a shell or Slack could turn into something else); free text is data,
// kept as typed, only stripped of control characters.

export const MAX_COMMAND_LENGTH = 512;

export type TokenResult = { ok: true; tokens: string[] } | { ok: false; error: string };

/** A word: a name, a number, a list, a flag (`--only=a,b`, `-h`) or the end-of-flags marker `--`. */
const TOKEN = /^[A-Za-z0-9][A-Za-z0-9._,=-]*$|^--[a-z][a-z0-9-]*(?:=[A-Za-z0-9._,-]+)?$|^-[a-zA-Z]$|^--$/;
const MAX_WORD = 64;

export function checkToken(word: string): string | null {
  if (word.length > MAX_WORD) return `word ${quote(word)} is too long`;
  if (TOKEN.test(word)) return null;
  const bad = [...word].find((ch) => !/[A-Za-z0-9._,=-]/.test(ch));
  return bad ? `unexpected character ${quote(bad)} in ${quote(word)}` : `unexpected word ${quote(word)}`;
}

export function checkTokens(words: string[]): TokenResult {
  for (const word of words) {
    const error = checkToken(word);
    if (error) return { ok: false, error };
  }
  return { ok: true, tokens: words };
}

export const MAX_PATH = 4096;

/** A path as given: any characters but controls (and not empty), at most 4,096. */
export function checkPath(value: string): string | null {
  if (value === '') return 'an empty path';
  if (value.length > MAX_PATH) return `a path of ${value.length} characters; the most is ${MAX_PATH}`;
  if (/[\x00-\x1f\x7f]/.test(value)) return `a control character in the path ${quote(value)}`;
  return null;
}

/**
 * A word of typed text and where it stands in it (`start`, `end`), so free text can be taken from
 * the text as typed. `quoted`: typed in quotes ("a b" or 'a b'); `text` is then what is inside
 * them, one word however many spaces it holds, and never read as a flag.
 */
export interface Word {
  text: string;
  start: number;
  end?: number;
  quoted?: boolean;
}

export function tooLong(text: string): string | null {
  return text.length > MAX_COMMAND_LENGTH ? `command is ${text.length} characters; the most is ${MAX_COMMAND_LENGTH}` : null;
}

/** An opening quote and the one that closes it: straight, and the curly ones phones type. */
const QUOTES: Readonly<Record<string, string>> = { '"': '"', "'": "'", '\u201c': '\u201d', '\u2018': '\u2019' };

/**
 * Splits typed text into words, dropping a leading `/seat` or `seat`. A word that starts with a
 * quote runs to the same quote followed by a space or the end (`--value "CUDA out of memory."`);
 * a quote with no such close is an ordinary character (`'tis`, `don't`). Checks nothing else.
 */
export function splitWords(text: string): Word[] {
  const words: Word[] = [];
  const space = /\s/;
  let i = 0;
  while (i < text.length) {
    if (space.test(text[i]!)) {
      i++;
      continue;
    }
    const close = QUOTES[text[i]!];
    const closedAt = close === undefined ? -1 : closingQuote(text, i + 1, close);
    if (closedAt >= 0) {
      words.push({ text: text.slice(i + 1, closedAt), start: i, end: closedAt + 1, quoted: true });
      i = closedAt + 1;
      continue;
    }
    let end = i;
    while (end < text.length && !space.test(text[end]!)) end++;
    words.push({ text: text.slice(i, end), start: i, end });
    i = end;
  }
  const first = words[0];
  if (first && !first.quoted && (first.text === '/seat' || first.text === 'seat')) words.shift();
  return words;
}

function closingQuote(text: string, from: number, close: string): number {
  for (let at = text.indexOf(close, from); at >= 0; at = text.indexOf(close, at + 1)) {
    const next = text[at + 1];
    if (next === undefined || /\s/.test(next)) return at;
  }
  return -1;
}

/** Splits command text into words, refusing anything a shell or Slack could make dangerous. */
export function tokenize(text: string): TokenResult {
  const long = tooLong(text);
  if (long) return { ok: false, error: long };
  return checkTokens(splitWords(text).map((w) => w.text));
}

// C0/C1 controls and the bidi overrides, embeddings and isolates that can make shown text lie
// about its order ("Trojan Source"); joiners and marks that real scripts need stay.
const LINE_BREAKS = /[\t\n\v\f\r\u0085\u2028\u2029]+/g;
const CONTROLS = /[\p{Cc}\u202A-\u202E\u2066-\u2069]/gu;

/** Free text as typed, on one line, without control characters. */
export function cleanFreeText(text: string): string {
  return text.replace(LINE_BREAKS, ' ').replace(CONTROLS, '').trim();
}

export function quote(s: string): string {
  const chars = [...s];
  const shown = chars.length > 40 ? `${chars.slice(0, 37).join('')}...` : s;
  return JSON.stringify(shown);
}
