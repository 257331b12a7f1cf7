// The shape of one row of the command table: its words, positional arguments, flags (each with
// a zod type), help text and the front ends it belongs to. Parsing, usage and per-command help
// are all made from these rows (grammar.ts, help.ts); nothing else knows a command's syntax.
import type { z } from 'zod';

export type FrontEnd = 'cli' | 'slack';
export const FRONT_ENDS: readonly FrontEnd[] = ['cli', 'slack'];

export type ArgKind =
  /** A site of the inventory, or `all`; checked against the inventory once it is loaded. */
  | 'site-or-all'
  /** A site of the inventory (not `all`). */
  | 'site'
  /** An incident's number: `7` or `#7`. */
  | 'incident'
  /** A number: an override request's `#3`. */
  | 'number'
  /** A strict name: a runbook, a step, a guardrail. */
  | 'name'
  /** A file path (terminal only): any characters but controls, `-` for standard input. */
  | 'path'
  /** A command word of this front end (`help probe`). */
  | 'command'
  /** The rest of the line, kept as typed (titles, notes, reasons): any language, capped, no controls. */
  | 'text';

export interface ArgSpec {
  readonly name: string;
  readonly kind: ArgKind;
  readonly required: boolean;
  readonly help: string;
  /** How usage shows it: `<site|all>`. */
  readonly shown: string;
  /** For text: the most characters (code points) kept; longer is refused, not cut. */
  readonly maxLength?: number;
}

export interface FlagSpec {
  readonly type: 'boolean' | 'string';
  readonly help: string;
  readonly short?: string;
  /** A string flag's value as usage shows it: `MS`, `aliases,gpus,power`. */
  readonly value?: string;
  /** A string flag's type: turns the typed text into the value, or names what was wrong. */
  readonly schema?: z.ZodType;
  /** What a string flag expects, in words, for "expected ..., got ...". */
  readonly expect?: string;
  /** A file path: its value is held to "no control characters", not to the narrow word alphabet. */
  readonly path?: boolean;
  /** Free text (a pasted log line): any characters, one value however many spaces (quote it), control characters stripped. */
  readonly text?: boolean;
  /** Where the flag makes sense, when narrower than its command (`--json`: the terminal). */
  readonly frontEnds?: readonly FrontEnd[];
}

type ArgValues<A extends readonly ArgSpec[]> = {
  [K in A[number] as K['name']]: K['required'] extends true ? string : string | undefined;
};
type FlagValue<F extends FlagSpec> = F['type'] extends 'boolean'
  ? boolean
  : F['schema'] extends z.ZodType<infer T>
    ? T | undefined
    : string | undefined;
type FlagValues<F extends Record<string, FlagSpec>> = { [K in keyof F]: FlagValue<F[K]> };

export interface Input {
  args: Record<string, string | undefined>;
  flags: Record<string, unknown>;
}

export interface CommandSpec<C extends { verb: string } = { verb: string }, F extends FrontEnd = FrontEnd> {
  /** The command's words: the first is its name, the others spell it too (`--version`). A name may be two words (`incident open`). */
  readonly words: readonly [C['verb'], ...string[]];
  readonly summary: string;
  readonly frontEnds: readonly F[];
  /** Whether it reads the inventory (help and version answer without one). */
  readonly needsInventory: boolean;
  readonly args: readonly ArgSpec[];
  readonly flags: Readonly<Record<string, FlagSpec>>;
  build(input: Input): C;
}

/**
 * One row of the table. The generics only check `build` against the declared arguments and flags;
 * the grammar fills `input` from exactly those declarations.
 */
export function defineCommand<
  C extends { verb: string },
  const F extends FrontEnd,
  const A extends readonly ArgSpec[],
  const Fl extends Record<string, FlagSpec>,
>(spec: {
  words: readonly [C['verb'], ...string[]];
  summary: string;
  frontEnds: readonly F[];
  needsInventory: boolean;
  args: A;
  flags: Fl;
  build: (input: { args: ArgValues<A>; flags: FlagValues<Fl> }) => C;
}): CommandSpec<C, F> {
  return spec as unknown as CommandSpec<C, F>;
}

/** The commands a front end offers, as a type: `CommandFor<typeof TABLE, 'slack'>`. */
export type CommandFor<T extends readonly CommandSpec<{ verb: string }, FrontEnd>[], E extends FrontEnd> = {
  [I in keyof T]: T[I] extends CommandSpec<infer C, infer F> ? (E extends F ? C : never) : never;
}[number];
