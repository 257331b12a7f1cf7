// One grammar for both front ends: "/seat probe fv" in Slack and "seat probe fv" in a shell
// parse to the same typed command. Parsing never throws; a bad input names what was wrong.
import { z } from 'zod';
import { PROBE_GROUPS, type ProbeGroup } from '../probes/types.ts';

export type Command =
  | { verb: 'help' }
  | { verb: 'probe'; site: string; only: ProbeGroup[]; json: boolean; timeoutMs: number | null; paid: boolean };

export type ParseResult = { ok: true; command: Command } | { ok: false; error: string };

export const MAX_COMMAND_LENGTH = 512;

export const USAGE = [
  'usage: seat probe <site|all> [--only aliases,gpus,power] [--json] [--timeout MS] [--paid]',
  '       seat help',
  '       seat bot            (terminal only: run the Slack front end)',
].join('\n');

const TOKEN = /^[A-Za-z0-9][A-Za-z0-9._,=-]*$|^--[a-z][a-z-]*(?:=[A-Za-z0-9._,-]+)?$/;

/** Splits command text into words, refusing anything a shell or Slack could make dangerous. */
export function tokenize(text: string): { ok: true; tokens: string[] } | { ok: false; error: string } {
  if (text.length > MAX_COMMAND_LENGTH) {
    return { ok: false, error: `command is ${text.length} characters; the most is ${MAX_COMMAND_LENGTH}` };
  }
  const words = text.trim().split(/\s+/).filter(Boolean);
  if (words[0] === '/seat' || words[0] === 'seat') words.shift();
  return checkTokens(words);
}

export function checkTokens(words: string[]): { ok: true; tokens: string[] } | { ok: false; error: string } {
  for (const word of words) {
    if (word.length > 64) return { ok: false, error: `word ${quote(word)} is too long` };
    if (!TOKEN.test(word)) {
      const bad = [...word].find((ch) => !/[A-Za-z0-9._,=-]/.test(ch));
      return {
        ok: false,
        error: bad ? `unexpected character ${quote(bad)} in ${quote(word)}` : `unexpected word ${quote(word)}`,
      };
    }
  }
  return { ok: true, tokens: words };
}

export function parseCommand(text: string, sites: readonly string[]): ParseResult {
  const t = tokenize(text);
  return t.ok ? parseTokens(t.tokens, sites) : t;
}

export function parseTokens(input: string[], sites: readonly string[]): ParseResult {
  const checked = checkTokens(input);
  if (!checked.ok) return checked;
  const [verb, ...rest] = checked.tokens;
  switch (verb) {
    case undefined:
    case 'help':
    case '--help':
      if (rest.length > 0) return { ok: false, error: `help takes no arguments, got ${quote(rest.join(' '))}` };
      return { ok: true, command: { verb: 'help' } };
    case 'probe':
      return parseProbe(rest, sites);
    default:
      return { ok: false, error: `unknown command ${quote(verb)} (known: probe, help)` };
  }
}

const TimeoutMs = z.coerce.number().int().min(50).max(120_000);

function parseProbe(args: string[], sites: readonly string[]): ParseResult {
  let site: string | undefined;
  let only: ProbeGroup[] = [...PROBE_GROUPS];
  let json = false;
  let paid = false;
  let timeoutMs: number | null = null;
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    const [flag, inline] = arg.startsWith('--') ? (arg.split('=', 2) as [string, string | undefined]) : [arg, undefined];
    const value = (): string | undefined => inline ?? args[++i];
    switch (flag) {
      case '--json':
        json = true;
        break;
      case '--paid':
        paid = true;
        break;
      case '--only': {
        const v = value();
        if (!v) return { ok: false, error: `--only needs a list: ${PROBE_GROUPS.join(',')}` };
        const groups = v.split(',').filter(Boolean);
        const unknown = groups.filter((g) => !(PROBE_GROUPS as readonly string[]).includes(g));
        if (unknown.length > 0 || groups.length === 0) {
          return { ok: false, error: `--only: unknown probe ${quote(unknown.join(','))} (known: ${PROBE_GROUPS.join(', ')})` };
        }
        only = PROBE_GROUPS.filter((g) => groups.includes(g));
        break;
      }
      case '--timeout': {
        const v = value();
        const parsed = TimeoutMs.safeParse(v);
        if (!parsed.success) return { ok: false, error: `--timeout: expected milliseconds 50-120000, got ${quote(v ?? 'nothing')}` };
        timeoutMs = parsed.data;
        break;
      }
      default:
        if (flag.startsWith('--')) return { ok: false, error: `unknown option ${quote(flag)} for probe` };
        if (site !== undefined) return { ok: false, error: `probe takes one site, got ${quote(site)} and ${quote(arg)}` };
        site = arg;
    }
  }
  if (site === undefined) return { ok: false, error: `probe needs a site: ${[...sites, 'all'].join(', ')}` };
  if (site !== 'all' && !sites.includes(site)) {
    return { ok: false, error: `unknown site ${quote(site)} (known: ${[...sites, 'all'].join(', ')})` };
  }
  return { ok: true, command: { verb: 'probe', site, only, json, timeoutMs, paid } };
}

function quote(s: string): string {
  const shown = s.length > 40 ? `${s.slice(0, 37)}...` : s;
  return JSON.stringify(shown);
}
