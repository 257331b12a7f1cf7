// One grammar for both front ends: "/seat probe fv" in Slack and "seat probe fv" in a shell
// parse to the same typed command. The grammar is the table in table.ts; this file is its door.
// Parsing never throws; a bad input gets one line naming what was wrong.
import { parseWords, type ParseResult as Result } from './grammar.ts';
import { commandHelp, usageFor } from './help.ts';
import type { FrontEnd } from './spec.ts';
import { COMMANDS, type Command, type CommandOf } from './table.ts';
import { splitWords, tooLong, type Word } from './tokens.ts';

export { MAX_COMMAND_LENGTH, checkTokens, tokenize } from './tokens.ts';
export type { FrontEnd } from './spec.ts';
export type { Command, CommandOf, ProbeCommand, HelpCommand, SlackCommand } from './table.ts';

export type ParseResult<C = Command> = Result<C>;

/** The terminal's usage (lines Slack lacks say "terminal only"). */
export const USAGE = usageFor(COMMANDS, 'cli');

export function usage(frontEnd: FrontEnd = 'cli'): string {
  return usageFor(COMMANDS, frontEnd);
}

/** `seat help probe`; undefined for a word that is no command of this front end. */
export function helpFor(topic: string, frontEnd: FrontEnd = 'cli'): string | undefined {
  const offered = COMMANDS.filter((s) => (s.frontEnds as readonly FrontEnd[]).includes(frontEnd));
  const spec = offered.find((s) => s.words.includes(topic));
  if (spec) return commandHelp(spec, frontEnd);
  // `help incident`: the usage of each of its commands.
  const group = offered.filter((s) => s.words[0].startsWith(`${topic} `));
  return group.length > 0 ? group.map((s) => commandHelp(s, frontEnd)).join('\n\n') : undefined;
}

/**
 * Typed text (Slack, a console line). `sites: null` before the inventory is loaded: a site is then
 * only checked as a word, and verbs and flags are checked in full.
 */
export function parseCommand<E extends FrontEnd = 'cli'>(text: string, sites: readonly string[] | null, frontEnd?: E): ParseResult<CommandOf<E>> {
  const long = tooLong(text);
  if (long) return { ok: false, error: long };
  return parseWords(COMMANDS, splitWords(text), text, { frontEnd: frontEnd ?? 'cli', sites }) as ParseResult<CommandOf<E>>;
}

/** argv: each word as the shell gave it (a quoted word with a space in it is still one word). */
export function parseTokens<E extends FrontEnd = 'cli'>(tokens: string[], sites: readonly string[] | null, frontEnd?: E): ParseResult<CommandOf<E>> {
  const total = tokens.join(' ');
  const long = tooLong(total);
  if (long) return { ok: false, error: long };
  const words: Word[] = tokens.map((text) => ({ text, start: 0 }));
  return parseWords(COMMANDS, words, null, { frontEnd: frontEnd ?? 'cli', sites }) as ParseResult<CommandOf<E>>;
}
