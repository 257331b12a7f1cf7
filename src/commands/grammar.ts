// The parser made from the command table: words → a typed command, or one line naming what was
// wrong. Flags go through Node's own util.parseArgs (strict); this file only turns its refusals
// into plain words and checks arguments against the inventory. Never throws.
import { parseArgs, type ParseArgsConfig } from 'node:util';
import type { ArgSpec, CommandSpec, FlagSpec, FrontEnd, Input } from './spec.ts';
import { nearest } from './suggest.ts';
import { checkPath, checkToken, cleanFreeText, quote, type Word } from './tokens.ts';

export type ParseResult<C = { verb: string }> = { ok: true; command: C } | { ok: false; error: string };

export interface ParseContext {
  frontEnd: FrontEnd;
  /** The inventory's sites; null before it is loaded: a site is then only checked as a word. */
  sites: readonly string[] | null;
}

type Options = NonNullable<ParseArgsConfig['options']>;
const HELP_FLAG = { type: 'boolean', short: 'h' } as const;
const DEFAULT_TEXT_MAX = 500;

/**
 * `raw` is the text as typed when there is one (Slack, a console line): free text is then taken
 * from it verbatim. For argv it is null and the words are joined with one space.
 */
export function parseWords(table: readonly CommandSpec[], words: Word[], raw: string | null, ctx: ParseContext): ParseResult {
  const offered = table.filter((s) => s.frontEnds.includes(ctx.frontEnd));
  const first = words[0];
  const helpSpec = offered.find((s) => s.words[0] === 'help');
  if (!first) return helpSpec ? build(helpSpec, { args: {}, flags: {} }) : { ok: false, error: 'no command given' };
  const refused = checkToken(first.text);
  if (refused) return fail(refused);
  const found = findSpec(table, words);
  if (!found) return fail(unknownCommand(first.text, offered, words[1]?.text));
  const { spec, length } = found;
  const verb = spec.words[0];
  if (!spec.frontEnds.includes(ctx.frontEnd)) return fail(`${verb} is ${elsewhere(spec.frontEnds)}`);

  const textArg = spec.args.find((a) => a.kind === 'text');
  const fixed = spec.args.filter((a) => a.kind !== 'text');
  const rest = words.slice(length);
  const checked = splitWordsOf(rest, spec, fixed, textArg !== undefined);
  if (!checked.ok) return checked;
  if (checked.stray.length > 0) return fail(strayOption(checked, spec, raw, ctx.frontEnd));

  const options: Options = { help: HELP_FLAG };
  for (const [name, flag] of Object.entries(spec.flags)) options[name] = { type: flag.type, ...(flag.short ? { short: flag.short } : {}) };
  let parsed: ReturnType<typeof parseArgs<{ options: Options; allowPositionals: true; strict: true }>>;
  try {
    parsed = parseArgs({ args: checked.tokens, options, allowPositionals: true, strict: true });
  } catch {
    return fail(explainFlags(verb, checked.tokens, options, spec, ctx.frontEnd));
  }
  const { values, positionals } = parsed;
  if (values.help === true) return helpSpec ? build(helpSpec, { args: { topic: verb }, flags: {} }) : fail('no help here');

  const input: Input = { args: {}, flags: {} };
  for (const [name, flag] of Object.entries(spec.flags)) {
    const value = values[name];
    if (value !== undefined && !offeredOn(flag, spec, ctx.frontEnd)) return fail(`--${name} is ${elsewhere(flag.frontEnds ?? [])} (seat ${verb} ... --${name})`);
    if (flag.type === 'boolean') {
      input.flags[name] = value === true;
      continue;
    }
    if (typeof value !== 'string') continue;
    const converted = convertFlag(name, flag, value);
    if (!converted.ok) return converted;
    input.flags[name] = converted.value;
  }

  if (positionals.length > fixed.length) return fail(tooMany(verb, fixed, positionals, spec));
  for (const [i, arg] of fixed.entries()) {
    const value = positionals[i];
    if (value === undefined) {
      if (arg.required) return fail(needs(verb, arg, ctx));
      continue;
    }
    const error = checkArg(arg, value, table, offered, ctx);
    if (error) return fail(error);
    input.args[arg.name] = value;
  }
  if (textArg) {
    const text = freeText(checked.text, raw);
    const error = checkText(verb, textArg, text);
    if (error) return fail(error);
    if (text !== '') input.args[textArg.name] = text;
  }
  return build(spec, input);
}

/** What the words after the command's name are: parseArgs's tokens, the free text, and the words of each. */
interface Split {
  ok: true;
  /** For parseArgs: the flags (a string flag with its value as `--name=value`), the fixed arguments, `--`. */
  tokens: string[];
  /** The free text's words in runs: a flag among them ends a run. */
  text: Word[][];
  /** How the fixed arguments and flags were typed, for a refusal's fix. */
  structured: Word[];
  /** Words that read as an option the command does not have, standing where text goes. */
  stray: Word[];
}

/** `--name`, `--name=value`, `-x`: never a quoted word, `-`, `-5`, `--` or `-x y` (one argv word). */
function looksLikeFlag(w: Word): boolean {
  return !w.quoted && /^--?[A-Za-z][^=\s]*(?:=|$)/.test(w.text);
}

function isEndOfFlags(w: Word): boolean {
  return !w.quoted && w.text === '--';
}

type Resolved = { name: string; flag: FlagSpec } | 'help' | null;

function resolveFlag(typed: string, spec: CommandSpec): Resolved {
  if (typed === '--help' || typed === '-h') return 'help';
  if (typed.startsWith('--')) {
    const name = typed.slice(2);
    const flag = Object.hasOwn(spec.flags, name) ? spec.flags[name] : undefined;
    return flag ? { name, flag } : null;
  }
  const short = typed.length === 2 ? typed[1] : undefined;
  const found = Object.entries(spec.flags).find(([, f]) => f.short !== undefined && f.short === short);
  return found ? { name: found[0], flag: found[1] } : null;
}

/**
 * A flag is a flag wherever it stands among the words, free text included (`note hello --incident 1`
 * is a note for #1); after `--` every word is an argument or text. The fixed arguments come first,
 * then the text. Names, numbers and flags are held to the narrow word alphabet; a string flag's
 * value to its own type (a free-text value such as `--value` to "no control characters": they are
 * stripped); a path (a path flag's value, a path argument) only to "no control characters".
 */
function splitWordsOf(rest: Word[], spec: CommandSpec, fixed: readonly ArgSpec[], hasText: boolean): Split | { ok: false; error: string } {
  const out: Split = { ok: true, tokens: [], text: [], structured: [], stray: [] };
  let positional = 0;
  let flagsEnded = false;
  let lastText = -2;
  const addText = (w: Word, i: number): void => {
    const run = out.text.at(-1);
    if (run && lastText === i - 1) run.push(w);
    else out.text.push([w]);
    lastText = i;
  };
  for (let i = 0; i < rest.length; i++) {
    const w = rest[i]!;
    if (!flagsEnded && isEndOfFlags(w)) {
      flagsEnded = true;
      out.tokens.push('--');
      continue;
    }
    if (!flagsEnded && looksLikeFlag(w)) {
      const eq = w.text.indexOf('=');
      const typed = eq < 0 ? w.text : w.text.slice(0, eq);
      const inline = eq < 0 ? undefined : w.text.slice(eq + 1);
      const resolved = resolveFlag(typed, spec);
      if (resolved === null && hasText) {
        out.stray.push(w);
        addText(w, i);
        continue;
      }
      const bad = checkToken(typed);
      if (bad) return fail(bad);
      if (resolved === null || resolved === 'help' || resolved.flag.type === 'boolean') {
        // parseArgs names an unknown option, or a value given to a boolean.
        out.tokens.push(w.text);
        out.structured.push(w);
        continue;
      }
      let value = inline;
      const next = rest[i + 1];
      out.structured.push(w);
      if (value === undefined && next && !looksLikeFlag(next) && !isEndOfFlags(next)) {
        value = next.text;
        out.structured.push(next);
        i++;
      }
      if (value === undefined) {
        out.tokens.push(w.text); // parseArgs says the value is missing
        continue;
      }
      const refused = checkFlagValue(typed, resolved.flag, value);
      if (refused) return fail(refused);
      out.tokens.push(`--${resolved.name}=${resolved.flag.text ? cleanFreeText(value) : value}`);
      continue;
    }
    if (hasText && (lastText >= 0 || positional >= fixed.length)) {
      addText(w, i);
      continue;
    }
    const arg = fixed[positional++];
    const bad = arg?.kind === 'path' ? (w.text === '-' ? null : checkPath(w.text)) : checkToken(w.text);
    if (bad) return fail(bad);
    out.tokens.push(w.text);
    out.structured.push(w);
  }
  return out;
}

/** A path flag's value: no controls. A free-text one: anything (controls are stripped). With its own type: that type judges. Else a word. */
function checkFlagValue(typed: string, flag: FlagSpec, value: string): string | null {
  if (flag.path) {
    const bad = checkPath(value);
    return bad ? `${typed}: ${bad}` : null;
  }
  if (flag.text || flag.schema) return null;
  return checkToken(value);
}

/** An option the command lacks, where text goes: refused, with the line that records it as text. */
function strayOption(split: Split, spec: CommandSpec, raw: string | null, fe: FrontEnd): string {
  const word = split.stray[0]!;
  const prog = fe === 'slack' ? '/seat' : 'seat';
  const shown = (w: Word): string => (raw !== null && w.end !== undefined ? raw.slice(w.start, w.end) : shellWord(w.text));
  const head = [prog, spec.words[0], ...split.structured.map(shown)].join(' ');
  const text = split.text.map((run) => run.map(shown).join(' ')).join(' ');
  const line = cleanFreeText(`${head} -- ${text}`);
  const fix = [...line].length <= 160 ? line : `${cleanFreeText(head)} -- <text…>`;
  const said = unknownOption(word.text.split('=')[0]!, spec, fe);
  return `${said}${said.endsWith('?') ? '' : '.'} To write it as text, put the text after --: ${fix}`;
}

/** A word as a shell would need it typed again: bare when safe, else in single quotes. */
function shellWord(w: string): string {
  return /^[A-Za-z0-9._,:/=@%+#-]+$/.test(w) ? w : `'${w.replace(/'/g, "'\\''")}'`;
}

function unknownOption(rawName: string, spec: CommandSpec, fe: FrontEnd): string {
  const verb = spec.words[0];
  const known = Object.entries(spec.flags).filter(([, f]) => offeredOn(f, spec, fe)).map(([n]) => `--${n}`);
  const near = nearest(rawName, [...known, '--help']);
  if (near) return `unknown option ${quote(rawName)} for ${verb} — did you mean ${near}?`;
  return known.length > 0 ? `unknown option ${quote(rawName)} for ${verb} (known: ${known.join(', ')})` : `unknown option ${quote(rawName)}: ${verb} takes no options`;
}

function build(spec: CommandSpec, input: Input): ParseResult {
  return { ok: true, command: spec.build(input) };
}

function fail(error: string): { ok: false; error: string } {
  return { ok: false, error };
}

function offeredOn(flag: FlagSpec, spec: CommandSpec, fe: FrontEnd): boolean {
  return (flag.frontEnds ?? spec.frontEnds).includes(fe);
}

function elsewhere(frontEnds: readonly FrontEnd[]): string {
  return frontEnds.includes('cli') ? 'for the terminal only' : 'for Slack only';
}

/** The row whose words start the line: `incident open` (two words) before `incident` alone. */
function findSpec(table: readonly CommandSpec[], words: Word[]): { spec: CommandSpec; length: number } | undefined {
  let best: { spec: CommandSpec; length: number } | undefined;
  for (const spec of table) {
    for (const phrase of spec.words) {
      const parts = phrase.split(' ');
      if (parts.length > words.length || (best && parts.length <= best.length)) continue;
      if (parts.every((p, i) => words[i]!.text === p)) best = { spec, length: parts.length };
    }
  }
  return best;
}

export function unknownCommand(word: string, offered: readonly CommandSpec[], second?: string): string {
  const group = offered.filter((s) => s.words[0].startsWith(`${word} `)).map((s) => s.words[0].slice(word.length + 1));
  if (group.length > 0) {
    const near = second === undefined ? undefined : nearest(second, group);
    if (second === undefined) return `${word} needs one of: ${group.join(', ')}`;
    return near ? `unknown command ${quote(`${word} ${second}`)} — did you mean ${word} ${near}?` : `unknown command ${quote(`${word} ${second}`)} (${word} takes: ${group.join(', ')})`;
  }
  if (word.startsWith('-')) {
    const flag = nearest(word, offered.flatMap((s) => s.words.filter((w) => w.startsWith('-'))));
    return flag ? `unknown option ${quote(word)} — did you mean ${flag}?` : `unknown option ${quote(word)}: flags come after the command (seat probe fv --json)`;
  }
  const names = [...new Set(offered.map((s) => s.words[0].split(' ')[0]!))];
  const near = nearest(word, names);
  return near ? `unknown command ${quote(word)} — did you mean ${near}?` : `unknown command ${quote(word)} (known: ${names.join(', ')})`;
}

/** The free text: each run as typed (the raw text when there is one), runs joined by one space. */
function freeText(runs: Word[][], raw: string | null): string {
  const parts = runs.map((run) => {
    const first = run[0]!;
    const last = run.at(-1)!;
    if (raw === null || first.end === undefined) return run.map((w) => w.text).join(' ');
    return raw.slice(first.start, last.end ?? last.start + last.text.length);
  });
  return cleanFreeText(parts.join(' '));
}

function checkText(verb: string, arg: ArgSpec, text: string): string | null {
  if (text === '') return arg.required ? `${verb} needs ${arg.shown}: ${arg.help}` : null;
  const max = arg.maxLength ?? DEFAULT_TEXT_MAX;
  const length = [...text].length;
  return length > max ? `${arg.name} is ${length} characters; the most is ${max}` : null;
}

function convertFlag(name: string, flag: FlagSpec, value: string): { ok: true; value: unknown } | { ok: false; error: string } {
  if (!flag.schema) return { ok: true, value };
  const r = flag.schema.safeParse(value);
  if (r.success) return { ok: true, value: r.data };
  const issue = r.error.issues[0];
  const why = issue?.code === 'custom' ? issue.message : `expected ${flag.expect ?? flag.value ?? 'a value'}, got ${quote(value)}`;
  return { ok: false, error: `--${name}: ${why}` };
}

function explainFlags(verb: string, args: string[], options: Options, spec: CommandSpec, fe: FrontEnd): string {
  const { tokens } = parseArgs({ args, options, allowPositionals: true, strict: false, tokens: true });
  for (const t of tokens) {
    if (t.kind !== 'option') continue;
    const option = options[t.name];
    if (!option) return unknownOption(t.rawName, spec, fe);
    if (option.type === 'boolean' && t.value !== undefined) return `${t.rawName} takes no value, got ${quote(t.value)}`;
    if (option.type === 'string' && (t.value === undefined || (!t.inlineValue && t.value.startsWith('-')))) {
      const flag = spec.flags[t.name];
      return `${t.rawName} needs a value: ${flag?.value ?? 'VALUE'}${flag?.expect ? ` (${flag.expect})` : ''}`;
    }
  }
  return `the flags of ${verb} do not read: ${quote(args.join(' '))}`;
}

function tooMany(verb: string, fixed: ArgSpec[], positionals: string[], spec: CommandSpec): string {
  const said = tooManyWords(verb, fixed, positionals);
  const text = Object.entries(spec.flags).find(([, f]) => f.text);
  return text ? `${said} (a value with spaces goes in quotes: --${text[0]} "a b")` : said;
}

function tooManyWords(verb: string, fixed: ArgSpec[], positionals: string[]): string {
  const extra = positionals.slice(fixed.length);
  if (fixed.length === 0) return `${verb} takes no arguments, got ${quote(extra.join(' '))}`;
  if (fixed.length === 1) return `${verb} takes one ${fixed[0]!.name}, got ${quote(positionals[0]!)} and ${quote(extra.join(' '))}`;
  return `${verb} takes ${fixed.map((a) => a.shown).join(' ')}, got also ${quote(extra.join(' '))}`;
}

function needs(verb: string, arg: ArgSpec, ctx: ParseContext): string {
  if (arg.kind === 'site-or-all') return ctx.sites ? `${verb} needs a site: ${[...ctx.sites, 'all'].join(', ')}` : `${verb} needs a site (or all)`;
  if (arg.kind === 'site') return ctx.sites ? `${verb} needs a site: ${ctx.sites.join(', ')}` : `${verb} needs a site`;
  return `${verb} needs ${arg.shown}: ${arg.help}`;
}

function checkArg(arg: ArgSpec, value: string, table: readonly CommandSpec[], offered: readonly CommandSpec[], ctx: ParseContext): string | null {
  switch (arg.kind) {
    case 'site-or-all': {
      if (ctx.sites === null || value === 'all' || ctx.sites.includes(value)) return null;
      const known = `(known: ${[...ctx.sites, 'all'].join(', ')})`;
      const near = nearest(value, ctx.sites);
      return near ? `unknown site ${quote(value)} ${known} — did you mean ${near}?` : `unknown site ${quote(value)} ${known}`;
    }
    case 'site': {
      if (ctx.sites === null || ctx.sites.includes(value)) return null;
      const near = nearest(value, ctx.sites);
      return `unknown site ${quote(value)} (known: ${ctx.sites.join(', ')})${near ? ` — did you mean ${near}?` : ''}`;
    }
    case 'incident':
      return /^#?[1-9]\d{0,8}$/.test(value) ? null : `${arg.name}: expected an incident number like 7 or #7, got ${quote(value)}`;
    case 'number':
      return /^#?[1-9]\d{0,8}$/.test(value) ? null : `${arg.name}: expected a number like 3, got ${quote(value)}`;
    case 'name':
      return /^[a-z][a-z0-9-]{0,62}$/.test(value) ? null : `${arg.name}: expected a name of lower-case letters, digits and "-", got ${quote(value)}`;
    case 'command': {
      if (offered.some((s) => s.words.includes(value) || s.words[0].startsWith(`${value} `))) return null;
      const other = table.find((s) => s.words.includes(value));
      return other ? `${other.words[0]} is ${elsewhere(other.frontEnds)}` : unknownCommand(value, offered);
    }
    case 'text':
    case 'path':
      return null;
  }
}
