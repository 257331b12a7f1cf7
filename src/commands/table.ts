// The command table: every command of both front ends, one row each. "/seat probe fv" in Slack
// and "seat probe fv" in a shell are the same row. A free-text command (a later issue: titles,
// notes, reasons) declares `{ kind: 'text' }` as its last argument: the rest of the line, as typed.
import { z } from 'zod';
import { PROBE_GROUPS, type ProbeGroup } from '../probes/types.ts';
import { defineCommand, type CommandFor, type FlagSpec, type FrontEnd } from './spec.ts';

export interface ProbeCommand {
  verb: 'probe';
  site: string;
  only: ProbeGroup[];
  json: boolean;
  timeoutMs: number | null;
  paid: boolean;
  /** Every finding, not only the problems (up rows are otherwise folded into counts). */
  all: boolean;
}
export interface HelpCommand {
  verb: 'help';
  /** A command to explain; none: the usage of every command. */
  topic?: string;
}
export interface CheckCommand { verb: 'check' }
export interface VersionCommand { verb: 'version' }
export interface BotCommand { verb: 'bot' }

const ProbeGroups = z
  .string()
  .transform((v) => v.split(',').filter(Boolean))
  .check((ctx) => {
    const unknown = ctx.value.filter((g) => !(PROBE_GROUPS as readonly string[]).includes(g));
    if (unknown.length > 0 || ctx.value.length === 0) {
      ctx.issues.push({ code: 'custom', input: ctx.value, message: `unknown probe ${JSON.stringify(unknown.join(','))} (known: ${PROBE_GROUPS.join(', ')})` });
    }
  })
  .transform((groups) => PROBE_GROUPS.filter((g) => groups.includes(g)));

const Milliseconds = z.string().regex(/^\d{1,9}$/).transform(Number).pipe(z.number().int().min(50).max(120_000));

const PROBE_FLAGS = {
  only: { type: 'string', value: PROBE_GROUPS.join(','), schema: ProbeGroups, help: `only these probe groups (${PROBE_GROUPS.join(', ')})` },
  json: { type: 'boolean', help: 'one JSON object instead of text (terminal only)', frontEnds: ['cli'] },
  timeout: { type: 'string', value: 'MS', schema: Milliseconds, expect: 'milliseconds 50-120000', help: 'per-probe timeout (default: the inventory’s settings.probeTimeoutMs)' },
  paid: { type: 'boolean', help: 'also send the one-token request to paid backends (billable); by default they are only listed' },
  all: { type: 'boolean', help: 'show every finding, not only the problems; up rows are folded into counts otherwise' },
} as const satisfies Record<string, FlagSpec>;

export const COMMANDS = [
  defineCommand({
    words: ['probe'],
    summary: 'probe one site (or all): gateway aliases, seats, GPUs, UPS, BMC, firewall',
    frontEnds: ['cli', 'slack'],
    needsInventory: true,
    args: [{ name: 'site', kind: 'site-or-all', required: true, shown: '<site|all>', help: 'a site of the inventory, or all' }],
    flags: PROBE_FLAGS,
    build: ({ args, flags }): ProbeCommand => ({
      verb: 'probe',
      site: args.site,
      only: flags.only ?? [...PROBE_GROUPS],
      json: flags.json,
      timeoutMs: flags.timeout ?? null,
      paid: flags.paid,
      all: flags.all,
    }),
  }),
  defineCommand({
    words: ['help', '--help', '-h'],
    summary: 'usage, or one command’s arguments and flags',
    frontEnds: ['cli', 'slack'],
    needsInventory: false,
    args: [{ name: 'topic', kind: 'command', required: false, shown: '[command]', help: 'the command to explain' }],
    flags: {},
    build: ({ args }): HelpCommand => (args.topic === undefined ? { verb: 'help' } : { verb: 'help', topic: args.topic }),
  }),
  defineCommand({
    words: ['check'],
    summary: 'validate the inventory and print what it describes, never a secret value',
    frontEnds: ['cli'],
    needsInventory: true,
    args: [],
    flags: {},
    build: (): CheckCommand => ({ verb: 'check' }),
  }),
  defineCommand({
    words: ['version', '--version'],
    summary: 'the version of seatbelt',
    frontEnds: ['cli'],
    needsInventory: false,
    args: [],
    flags: {},
    build: (): VersionCommand => ({ verb: 'version' }),
  }),
  defineCommand({
    words: ['bot'],
    summary: 'run the Slack front end',
    frontEnds: ['cli'],
    needsInventory: true,
    args: [],
    flags: {},
    build: (): BotCommand => ({ verb: 'bot' }),
  }),
] as const;

/** Flags of the terminal itself, taken off argv before the grammar sees it (a path is no token). */
export const CLI_GLOBAL_FLAGS = {
  inventory: { type: 'string', short: 'i', value: 'FILE', help: 'the fleet inventory (YAML); or set SEAT_INVENTORY' },
} as const satisfies Record<string, FlagSpec>;

/** Every command, in the terminal's hands. */
export type Command = CommandFor<typeof COMMANDS, FrontEnd>;
/** What a front end can be asked: `/seat check` is no Slack command. */
export type CommandOf<E extends FrontEnd> = CommandFor<typeof COMMANDS, E>;
export type SlackCommand = CommandOf<'slack'>;
