// What every terminal command is given and what it answers: its side effects (streams, environment,
// clock, probe parts) and its exit code. A file of its own, so the subcommands need not import run.ts.
import type { ProbeDeps } from '../commands/probe.ts';
import type { ReadOptions } from '../inventory/read.ts';

export interface CliIo {
  /** Text, or bytes already encoded (`seat probe --json` writes its report as bytes). */
  stdout: { write(s: string | Uint8Array): unknown; isTTY?: boolean };
  stderr: { write(s: string): unknown };
  env: NodeJS.ProcessEnv;
  probeDeps?: ProbeDeps;
  /** How the inventory file is read (its size cap and timeout); tests shorten them. */
  inventoryRead?: ReadOptions;
  /** For `seat bot`: resolves when the bot should stop (default: SIGINT/SIGTERM). */
  until?: Promise<void>;
  /** Lines a person types (`seat walk`). */
  stdin?: NodeJS.ReadableStream;
  /** The clock the journal records by; tests inject one. */
  now?: () => Date;
  /** When this command was asked, on performance.now()'s clock: 0 for a one-shot `seat` (the process's
   * start), the line's arrival in the console. `seat probe` counts its targets' timeout from it. */
  askedAt?: number;
}

/** 0 fine, 1 a finding or a failed check, 2 bad input, 3 a part that could not start (the journal, a drill). */
export type ExitCode = 0 | 1 | 2 | 3;

/** runCli as a parameter: the console runs each line through it without importing run.ts. */
export type RunCli = (argv: string[], io: CliIo) => Promise<ExitCode>;
