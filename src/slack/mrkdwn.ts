// Slack mrkdwn that stays whole: probe text escaped (&, <, >), cut before escaping so no entity,
// emoji or formatting of ours is split, and sections packed on line boundaries under 3000 chars.
import type { types } from '@slack/bolt';
import { clean } from '../probes/edge/text.ts';

type KnownBlock = types.KnownBlock;

export const MAX_SECTION = 3000;

/** Slack mrkdwn needs &, < and > escaped; everything a probe says is escaped before it is shown. */
export function esc(s: string): string {
  return s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

/**
 * `text` cleaned (one line, no control characters) and escaped, in at most `max` characters: cut between code points of the raw text (so never
 * inside an entity), without a dangling `:emoji` start, and ending in … when cut.
 */
export function fit(text: string, max: number): string {
  const raw = clean(text);
  const whole = esc(raw);
  if (whole.length <= max) return whole;
  let out = '';
  for (const ch of raw) {
    const e = esc(ch);
    if (out.length + e.length + 1 > max) break;
    out += e;
  }
  return `${out.replace(/:[a-z0-9_+-]*$/i, '').trimEnd()}…`;
}

/**
 * A line of our own mrkdwn that is somehow too long: cut at a space, never inside an entity or
 * `:emoji:`, with an open code span closed. Lines are built bounded; this is the backstop.
 */
export function cutLine(line: string, max: number): string {
  if (line.length <= max) return line;
  let head = line.slice(0, max - 2);
  const space = head.lastIndexOf(' ');
  if (space > max / 2) head = head.slice(0, space);
  head = head.replace(/&[a-z#0-9]*$/i, '').replace(/:[a-z0-9_+-]*$/i, '');
  if ((head.match(/`/g)?.length ?? 0) % 2 === 1) head += '`';
  return `${head}…`;
}

export function section(text: string): KnownBlock {
  return { type: 'section', text: { type: 'mrkdwn', text: cutSection(text) } };
}

/** Whole lines that fit one section; a lone over-long line is cut, never a line in the middle. */
function cutSection(text: string): string {
  if (text.length <= MAX_SECTION) return text;
  const lines = text.split('\n');
  let out = '';
  for (const line of lines) {
    const next = out ? `${out}\n${line}` : line;
    if (next.length > MAX_SECTION - 2) break;
    out = next;
  }
  return out ? `${out}\n…` : cutLine(lines[0] ?? '', MAX_SECTION);
}

/**
 * Packs items (a line, or a few lines that belong together) into as few sections as fit: a section
 * ends only between items.
 */
export function packSections(items: string[]): KnownBlock[] {
  const out: KnownBlock[] = [];
  let cur = '';
  for (const raw of items) {
    const item = raw.length > MAX_SECTION ? cutSection(raw) : raw;
    if (cur && cur.length + 1 + item.length > MAX_SECTION) {
      out.push(section(cur));
      cur = item;
    } else {
      cur = cur ? `${cur}\n${item}` : item;
    }
  }
  if (cur) out.push(section(cur));
  return out;
}
