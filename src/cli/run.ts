// The terminal front end: argv → the shared command parser → the core → text. Every side effect
// comes in through `io`, so tests drive it in-process.
import { existsSync } from 'node:fs';
import { Fleet } from '../inventory/fleet.ts';
import { loadInventory, type LoadResult } from '../inventory/load.ts';
import { helpFor, parseTokens, USAGE } from '../commands/parse.ts';
import { COMMANDS } from '../commands/table.ts';
import { journalPath } from '../journal/location.ts';
import { isPostgresUrl } from '../journal/spec.ts';
import type { CliIo, ExitCode } from './io.ts';
import { describeFleet } from './check.ts';
import { resolveVantage } from '../probes/vantage.ts';
import { PACKAGE_NAME, readVersion } from './version.ts';

export type { CliIo, ExitCode } from './io.ts';

/** The commands that only read the journal: they run without an inventory when the journal's place is known without one. */
const READS_JOURNAL: readonly string[] = ['journal', 'journal verify', 'journal status', 'journal import', 'export', 'incident list'];

const NO_INVENTORY = 'no inventory: pass --inventory FILE or set SEAT_INVENTORY (the drill fleet is drills/fleet.yaml)';

export async function runCli(argv: string[], io: CliIo): Promise<ExitCode> {
  // `seat journal migrate` / `seat journal copy` (journal-admin.ts): the schema owner's commands, run before any journal is opened.
  if (argv[0] === 'journal' && (argv[1] === 'migrate' || argv[1] === 'copy')) {
    const admin = await import('./journal-admin.ts');
    return argv[1] === 'migrate' ? admin.journalMigrate(argv.slice(2), io) : admin.journalCopy(argv.slice(2), io);
  }
  const split = splitGlobalOptions(argv);
  if (!split.ok) return usageError(io, split.error);
  // Verbs and flags are checked before any inventory is read: a typo is told as a typo, and
  // help and --version answer on a machine with no inventory yet.
  const early = parseTokens(split.rest, null);
  if (!early.ok) return usageError(io, early.error, split.rest);
  const command = early.command;
  switch (command.verb) {
    case 'help': {
      const text = command.topic === undefined ? USAGE : helpFor(command.topic);
      io.stdout.write(`${text ?? USAGE}\n`);
      return 0;
    }
    case 'version': {
      const version = await readVersion();
      io.stdout.write(`${PACKAGE_NAME} ${version ?? 'unknown (no package.json found beside the program)'}\n`);
      return 0;
    }
    case 'drill': {
      const { drillToTerminal } = await import('./drill.ts');
      return drillToTerminal(command, io, runCli);
    }
    case 'diagnose':
      if (command.seat !== undefined) break; // docker logs over ssh: the inventory says how
      return (await import('./diagnose.ts')).diagnoseToTerminal(command, null, io);
    case 'powerlog':
      // A power log read at 3 a.m. needs no inventory: without one it is not put beside a UPS.
      if (command.site !== undefined || (split.inventory ?? io.env.SEAT_INVENTORY)) break;
      return (await import('./powerlog.ts')).powerlogToTerminal(command, null, io);
    case 'runbook list':
    case 'runbook check': {
      const { runbooksToTerminal } = await import('./runbooks.ts');
      return runbooksToTerminal(command.verb, io);
    }
    default:
      break;
  }
  const inventoryPath = split.inventory ?? io.env.SEAT_INVENTORY;
  if (!inventoryPath) {
    // Reading, verifying and exporting a journal need no fleet: SEAT_JOURNAL, else the state folder's.
    if (!READS_JOURNAL.includes(command.verb)) return usageError(io, NO_INVENTORY, split.rest);
    const where = journalPath(io.env);
    if (!isPostgresUrl(where.path) && !existsSync(where.path)) {
      io.stderr.write(`seat: no journal at ${where.path} (${where.from === 'SEAT_JOURNAL' ? 'SEAT_JOURNAL' : 'the state folder'}): set SEAT_JOURNAL to the journal file, or pass --inventory FILE if the inventory names it\n`);
      return 2;
    }
    if (command.verb === 'export') return (await import('./export.ts')).exportToTerminal(command, null, io, null);
    const { incidentToTerminal } = await import('./incident.ts');
    return incidentToTerminal(command as Parameters<typeof incidentToTerminal>[0], null, io, null);
  }
  const loaded = await loadInventory(inventoryPath, io.inventoryRead);
  if (!loaded.ok) return badInventory(io, inventoryPath, loaded);
  for (const w of loaded.warnings) io.stderr.write(`seat: warning: ${w}\n`);
  const fleet = new Fleet(loaded.value);
  switch (command.verb) {
    case 'check':
      io.stdout.write(`${describeFleet(fleet, inventoryPath, io.env)}\n`);
      return 0;
    case 'bot': {
      // Loaded only here: Bolt is heavy, and a terminal probe at 3 a.m. should not pay for it.
      const { runBot } = await import('../slack/main.ts');
      return runBot(fleet, { ...io, inventoryPath });
    }
    case 'vantage':
      return (await import('./vantage.ts')).vantageToTerminal(fleet, io, inventoryPath);
    case 'probe': {
      // Now the sites are known: the site argument is checked against them.
      const parsed = parseTokens(split.rest, fleet.siteNames);
      if (!parsed.ok) return usageError(io, parsed.error, split.rest);
      if (parsed.command.verb !== 'probe') return usageError(io, `expected a probe command, got ${parsed.command.verb}`, split.rest);
      // Where the findings say they were measured from: a bad SEAT_VANTAGE is told, never guessed at.
      const vantage = resolveVantage(io.env, fleet.inventory.vantage);
      if (!vantage.ok) {
        io.stderr.write(`seat: ${vantage.error}\n`);
        return 2;
      }
      // Loaded only here: help, --version and check answer without the probes' code.
      const { probeToTerminal } = await import('./run-probe.ts');
      return probeToTerminal(parsed.command, fleet, io, inventoryPath);
    }
    case 'diagnose':
      return (await import('./diagnose.ts')).diagnoseToTerminal(command, fleet, io);
    case 'powerlog':
      return (await import('./powerlog.ts')).powerlogToTerminal(command, fleet, io);
    case 'watch gpus':
      return (await import('./watch.ts')).watchToTerminal(command, fleet, io);
    case 'export':
      return (await import('./export.ts')).exportToTerminal(command, fleet, io, inventoryPath);
    case 'walk':
      return (await import('./walk.ts')).walkToTerminal(command, fleet, io, inventoryPath);
    default: {
      // Now the sites are known: a site argument is checked against them.
      const parsed = parseTokens(split.rest, fleet.siteNames);
      if (!parsed.ok) return usageError(io, parsed.error, split.rest);
      const { incidentToTerminal } = await import('./incident.ts');
      return incidentToTerminal(parsed.command as Parameters<typeof incidentToTerminal>[0], fleet, io, inventoryPath);
    }
  }
}

function badInventory(io: CliIo, path: string, loaded: Extract<LoadResult, { ok: false }>): 2 {
  io.stderr.write(`seat: ${path} is not a valid inventory:\n${loaded.errors.map((e) => `  ${e}`).join('\n')}\n`);
  return 2;
}

/** The message, then the usage of the command the words name (`step done`, `journal`); all of them only for an unknown command. */
function usageError(io: CliIo, message: string, words: readonly string[] = []): 2 {
  io.stderr.write(`seat: ${message}\n${commandUsage(words) ?? USAGE}\n`);
  return 2;
}

function commandUsage(words: readonly string[]): string | undefined {
  for (const n of [2, 1]) {
    const topic = words.slice(0, n).join(' ');
    if (words.length >= n && COMMANDS.some((s) => (s.words as readonly string[]).includes(topic))) return helpFor(topic);
  }
  return undefined;
}

type Split = { ok: true; inventory: string | undefined; rest: string[] } | { ok: false; error: string };

/**
 * A command that leaves nothing running once it has returned: a one-shot `seat probe` (its pool closed
 * or draining, its memory saved, its children reaped at exit). `seat` may end the process then rather
 * than wait for node to wind down. Not so the console (`seat drill`), whose command may run on after
 * the console is closed, nor `seat bot`.
 */
export function endsWhenDone(argv: string[]): boolean {
  const split = splitGlobalOptions(argv);
  return split.ok && split.rest[0] === 'probe';
}

/** `--inventory FILE` belongs to the terminal, not to the shared grammar (Slack has no files). */
function splitGlobalOptions(argv: string[]): Split {
  const rest: string[] = [];
  let inventory: string | undefined;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === '--') {
      rest.push(...argv.slice(i));
      break;
    }
    if (arg === '--inventory' || arg === '-i') {
      inventory = argv[++i];
      if (!inventory) return { ok: false, error: '--inventory needs a file path' };
    } else if (arg.startsWith('--inventory=')) {
      inventory = arg.slice('--inventory='.length);
      if (!inventory) return { ok: false, error: '--inventory needs a file path' };
    } else {
      rest.push(arg);
    }
  }
  return { ok: true, inventory, rest };
}
