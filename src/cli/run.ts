// The terminal front end: argv → the shared command parser → the core → text. Every side effect
// comes in through `io`, so tests drive it in-process.
import { Fleet } from '../inventory/fleet.ts';
import { loadInventory } from '../inventory/load.ts';
import { parseTokens, USAGE, type Command } from '../commands/parse.ts';
import { exitCodeFor, reportJson, runProbe, type ProbeDeps } from '../commands/probe.ts';
import { findingLine, progressLine, renderReport } from './render.ts';

export interface CliIo {
  stdout: { write(s: string): unknown; isTTY?: boolean };
  stderr: { write(s: string): unknown };
  env: NodeJS.ProcessEnv;
  probeDeps?: ProbeDeps;
  /** For `seat bot`: resolves when the bot should stop (default: SIGINT/SIGTERM). */
  until?: Promise<void>;
}

export type ExitCode = 0 | 1 | 2 | 3;

export async function runCli(argv: string[], io: CliIo): Promise<ExitCode> {
  const split = splitGlobalOptions(argv);
  if (!split.ok) return usageError(io, split.error);
  const inventoryPath = split.inventory ?? io.env.SEAT_INVENTORY;

  // help needs no inventory: a newcomer can read it before writing one.
  const early = parseTokens(split.rest, []);
  if (early.ok && early.command.verb === 'help') {
    io.stdout.write(`${USAGE}\n`);
    return 0;
  }
  if (!inventoryPath) return usageError(io, 'no inventory: pass --inventory FILE or set SEAT_INVENTORY (the drill fleet is drills/fleet.yaml)');
  const loaded = await loadInventory(inventoryPath);
  if (!loaded.ok) {
    io.stderr.write(`seat: ${inventoryPath} is not a valid inventory:\n${loaded.errors.map((e) => `  ${e}`).join('\n')}\n`);
    return 2;
  }
  for (const w of loaded.warnings) io.stderr.write(`seat: warning: ${w}\n`);
  const fleet = new Fleet(loaded.value);
  // `bot` is the terminal's way into Slack, not part of the shared grammar.
  if (split.rest[0] === 'bot') {
    if (split.rest.length > 1) return usageError(io, `bot takes no arguments, got "${split.rest.slice(1).join(' ')}"`);
    // Loaded only here: Bolt is heavy, and a terminal probe at 3 a.m. should not pay for it.
    const { runBot } = await import('./bot.ts');
    return runBot(fleet, io);
  }
  const parsed = parseTokens(split.rest, fleet.siteNames);
  if (!parsed.ok) return usageError(io, parsed.error);
  return execute(parsed.command, fleet, io);
}

async function execute(command: Command, fleet: Fleet, io: CliIo): Promise<ExitCode> {
  switch (command.verb) {
    case 'help':
      io.stdout.write(`${USAGE}\n`);
      return 0;
    case 'probe': {
      const tty = io.stdout.isTTY === true && !command.json;
      const colour = tty && !io.env.NO_COLOR;
      let bad = 0;
      const report = await runProbe(fleet, command, {
        ...io.probeDeps,
        onEvent: (e) => {
          if (command.json) return;
          if (e.type === 'start') {
            if (tty) io.stdout.write(progressLine(command.site, 0, e.total, 0));
            return;
          }
          const problems = e.findings.filter((f) => f.status !== 'up');
          bad += problems.filter((f) => f.status !== 'unknown').length;
          if (tty) {
            // Problems stream above a rewritten status line; the full report follows at the end.
            const lines = problems.map((f) => `${findingLine(f, { colour })}\n`).join('');
            io.stdout.write(`\r\x1b[2K${lines}${progressLine(command.site, e.done, e.total, bad)}`);
          } else if (e.findings.length > 0) {
            // Piped: every finding once, as a plain line, as it arrives; then only the verdict.
            io.stdout.write(`${e.findings.map((f) => findingLine(f, { colour: false })).join('\n')}\n`);
          }
        },
      });
      if (command.json) io.stdout.write(`${JSON.stringify(reportJson(report), null, 2)}\n`);
      else io.stdout.write(`${tty ? '\r\x1b[2K\n' : '\n'}${renderReport(report, { colour, sections: tty })}\n`);
      return exitCodeFor(report);
    }
  }
}

function usageError(io: CliIo, message: string): 2 {
  io.stderr.write(`seat: ${message}\n${USAGE}\n`);
  return 2;
}

type Split = { ok: true; inventory: string | undefined; rest: string[] } | { ok: false; error: string };

/** `--inventory FILE` belongs to the terminal, not to the shared grammar (Slack has no files). */
function splitGlobalOptions(argv: string[]): Split {
  const rest: string[] = [];
  let inventory: string | undefined;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === '--inventory' || arg === '-i') {
      inventory = argv[++i];
      if (!inventory) return { ok: false, error: '--inventory needs a file path' };
    } else if (arg.startsWith('--inventory=')) {
      inventory = arg.slice('--inventory='.length);
    } else {
      rest.push(arg);
    }
  }
  return { ok: true, inventory, rest };
}
