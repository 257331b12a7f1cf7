// Free text from the journal (titles, notes, reasons, evidence names, a peer's words in a finding)
// is data: shown as typed, never read as Markdown or HTML. Everything a person or a peer wrote goes
// through `md()` before it joins the document, so no heading, list, link, emphasis, strikethrough or
// tag can be injected; the HTML export escapes again on top (see html.ts).
import { clean } from '../probes/edge/text.ts';

// Every character that starts Markdown inline syntax in GFM as marked reads it: emphasis (* _),
// code (`), links and images ([ ] !), autolinks and HTML (< >), entities (&), strikethrough (~),
// table cells (|), headings (#) and the escape itself (\). `@` breaks e-mail autolinks.
const INLINE = /[\\`*_[\]<>&~|#!@]/g;
// GFM's extended autolinks: `https://…` and `www.…` become links without any brackets.
const URL_START = /(\w)(:)(\/\/)|\b([wW]{3})(\.)/g;
// At the start of a line (a list item's content, a table cell) these would open a block.
const LEADING = /^(\d+)([.)])|^([-+=])/;

// Text that clean() would give back unchanged: printable, no control, bidi or line-break
// character, no surrogate, no run of spaces, no space at either end. Most of a journal is.
const UNSAFE = /[\x00-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069\u2028\u2029\ud800-\udfff]/;
const plain = (s: string): boolean => !UNSAFE.test(s) && !s.includes('  ') && !s.startsWith(' ') && !s.endsWith(' ');
const INLINE_ANY = /[\\`*_[\]<>&~|#!@]/;
const URL_ANY = /:\/\/|www\./i;

/** One line of free text, safe inside any Markdown inline context (paragraph, list item, table cell). */
export function md(s: string): string {
  // Each pass only where it has something to do: a timeline of 10,000 events calls this often.
  let t = plain(s) ? s : clean(s);
  if (INLINE_ANY.test(t)) t = t.replace(INLINE, '\\$&');
  if (URL_ANY.test(t)) {
    t = t.replace(URL_START, (_m, a: string | undefined, colon: string | undefined, slashes: string | undefined, www: string | undefined, dot: string | undefined) =>
      colon ? `${a ?? ''}\\${colon}${slashes ?? ''}` : `${www ?? ''}\\${dot ?? ''}`,
    );
  }
  const c = t.charCodeAt(0);
  if ((c >= 48 && c <= 57) || c === 45 || c === 43 || c === 61) {
    t = t.replace(LEADING, (_m, n: string | undefined, p: string | undefined, sign: string | undefined) => (sign ? `\\${sign}` : `${n ?? ''}\\${p ?? ''}`));
  }
  return t;
}

// Identifiers that are safe verbatim inside a code span: a step or runbook id, a hash, a seat name.
const WORD = /^[\w.:@/+=-]{1,200}$/;

/** A code span for an identifier; free text that is not a plain word is escaped instead. */
export function code(s: string): string {
  return WORD.test(s) ? `\`${s}\`` : md(s);
}

const HTML: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

/** Text safe in HTML content and in a quoted attribute. */
export function html(s: string): string {
  return s.replace(/[&<>"']/g, (c) => HTML[c] ?? c);
}

/** A hex digest as shown: the digest itself when it is one, else the escaped text. */
export function hex(s: string): string {
  return /^[0-9a-f]{8,128}$/i.test(s) ? `\`${s}\`` : md(s);
}
