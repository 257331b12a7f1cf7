// The console: a prompt where the terminal's commands are typed as in a shell or in Slack ("probe fv",
// "/seat probe fv"), each line parsed by the shared grammar and run through runCli. On a terminal:
// completion from the command table and what the session knows, history, Ctrl-C clears the line
// and twice ends it. Piped lines are run the same way, each echoed after the prompt.
import { createInterface } from 'node:readline';
import { PassThrough } from 'node:stream';
import { parseCommand } from '../commands/parse.ts';
import type { CommandSpec } from '../commands/spec.ts';
import { COMMANDS } from '../commands/table.ts';
import { splitWords } from '../commands/tokens.ts';
import type { CliIo, ExitCode, RunCli } from './io.ts';

export interface ConsoleWords {
  sites: string[];
  hosts: string[];
  runbooks: string[];
  guardrails: string[];
  /** Paths worth offering to `diagnose` and `powerlog`. */
  files: string[];
  /** The step ids of the current incident, read again after every command. */
  steps: () => Promise<string[]>;
}

export interface ConsoleOptions {
  prompt: string;
  /** Printed before the first prompt. */
  intro: string[];
  /** Put before each command's words (`--inventory FILE`). */
  argvPrefix: string[];
  /** io.stdin carries the typed lines. */
  io: CliIo;
  /** Runs each command's words (runCli, given by the caller: the console does not import run.ts). */
  run: RunCli;
  words: ConsoleWords;
  /** `runbook start` with neither an incident nor --site opens its incident at this site. */
  defaultSite?: string;
  /** Verbs refused here, each with the one line that says why. */
  refuse?: Record<string, string>;
}

const EXIT_WORDS = ['exit', 'quit'];
const FOOTER = 'in this console: `seat` and `/seat` before a command are optional · Tab completes · ↑ recalls · exit, quit or Ctrl-D ends it';
export type Spec = CommandSpec & { path: string[] };

/** Lines typed, in order, to whoever asks next: the console, or the command running (walk). */
class Lines {
  private readonly buf: string[] = [];
  private waiter: ((l: string | null) => void) | null = null;
  private ended = false;
  push(l: string): void {
    if (this.waiter) {
      const w = this.waiter;
      this.waiter = null;
      w(l);
    } else this.buf.push(l);
  }
  end(): void {
    this.ended = true;
    const w = this.waiter;
    this.waiter = null;
    w?.(null);
  }
  take(): Promise<string | null> {
    if (this.buf.length > 0) return Promise.resolve(this.buf.shift()!);
    if (this.ended) return Promise.resolve(null);
    return new Promise((resolve) => (this.waiter = resolve));
  }
  /** The one asking went away: a line that arrives later is kept for the next. */
  cancel(): void {
    this.waiter = null;
  }
}

export async function runConsole(o: ConsoleOptions): Promise<ExitCode> {
  const { io } = o;
  const input = io.stdin;
  if (!input) {
    io.stderr.write('seat: the console needs a terminal or lines on standard input\n');
    return 2;
  }
  const out = io.stdout as NodeJS.WritableStream & { isTTY?: boolean };
  const tty = (input as { isTTY?: boolean }).isTTY === true && out.isTTY === true && typeof out.on === 'function';
  const specs = consoleSpecs(o.refuse);
  let steps: string[] = [];
  const complete = (line: string): [string[], string] => completions(line, specs, { ...o.words, steps });

  for (const l of o.intro) out.write(`${l}\n`);
  const lines = new Lines();
  const rl = createInterface({ input, terminal: tty, historySize: 1000, removeHistoryDuplicates: true, prompt: o.prompt, ...(tty ? { output: out, completer: complete } : {}) });
  let walkIn: PassThrough | null = null;
  let busy = false;
  let interrupts = 0;
  let quit: () => void = () => {};
  const quitting = new Promise<'quit'>((resolve) => (quit = () => resolve('quit')));
  rl.on('line', (l) => {
    interrupts = 0;
    lines.push(l);
  });
  rl.on('close', () => lines.end());
  rl.on('SIGINT', () => {
    if (walkIn) {
      out.write('^C\n');
      walkIn.end(); // the walk stops; nothing undecided is recorded
      return;
    }
    interrupts += 1;
    if (interrupts >= 2) {
      out.write('^C\n');
      quit();
      return;
    }
    (rl as unknown as { clearLine?: () => void }).clearLine?.();
    out.write(`(Ctrl-C again, exit or Ctrl-D ends the console${busy ? '; the command runs on' : ''})\n`);
    if (!busy) rl.prompt();
  });

  /** Only `walk` reads lines: it gets one each time it asks (writes a prompt without a newline). */
  const runWith = async (argv: string[], walk: boolean): Promise<void> => {
    let tail = '';
    const sub = walk ? new PassThrough() : null;
    walkIn = sub;
    const stdout = {
      isTTY: out.isTTY,
      write: (written: string | Uint8Array): boolean => {
        out.write(written);
        if (!sub) return true;
        const s = typeof written === 'string' ? written : Buffer.from(written).toString('utf8');
        // On a terminal readline redraws its prompt when the line is edited: let it be the question.
        tail = `${tail}${s}`.split('\n').pop() ?? '';
        if (tty) rl.setPrompt(tail);
        if (!s.endsWith('\n')) {
          void lines.take().then((l) => {
            if (sub.writableEnded) return; // the walk was stopped (Ctrl-C) while this answer was on its way
            if (l === null) sub.end();
            else {
              if (!tty) out.write(`${l}\n`);
              sub.write(`${l}\n`);
            }
          });
        }
        return true;
      },
    };
    const cmdIo: CliIo = { ...io, stdout, askedAt: performance.now() };
    if (sub) cmdIo.stdin = sub;
    else delete cmdIo.stdin;
    try {
      await o.run([...o.argvPrefix, ...argv], cmdIo);
    } catch (err) {
      io.stderr.write(`seat: internal error: ${err instanceof Error ? (err.message.split('\n')[0] ?? '') : String(err)}\n`);
    } finally {
      walkIn = null;
      if (sub) {
        lines.cancel();
        sub.end();
      }
      rl.setPrompt(o.prompt);
    }
  };

  const handle = async (raw: string): Promise<'exit' | undefined> => {
    const text = raw.trim();
    if (text === '' || text.startsWith('#')) return undefined;
    const argv = splitWords(text).map((w) => w.text);
    const first = argv[0];
    if (first === undefined) return undefined;
    if (EXIT_WORDS.includes(first) && argv.length === 1) return 'exit';
    const parsed = parseCommand(text, o.words.sites);
    if (!parsed.ok) {
      io.stderr.write(`seat: ${parsed.error}\n`);
      return undefined;
    }
    const cmd = parsed.command;
    const refused = o.refuse?.[cmd.verb];
    if (refused) {
      io.stderr.write(`seat: ${refused}\n`);
      return undefined;
    }
    if ((cmd.verb === 'diagnose' && cmd.input === '-') || (cmd.verb === 'powerlog' && cmd.file === '-')) {
      io.stderr.write('seat: "-" reads standard input, which is this console here: give the file’s path\n');
      return undefined;
    }
    if (cmd.verb === 'runbook start' && cmd.incident === undefined && cmd.site === undefined && o.defaultSite) argv.push('--site', o.defaultSite);
    busy = true;
    try {
      await runWith(argv, cmd.verb === 'walk');
    } finally {
      busy = false;
    }
    if (cmd.verb === 'help' && cmd.topic === undefined) out.write(`${FOOTER}\n`);
    return undefined;
  };

  try {
    steps = await o.words.steps().catch(() => steps);
    for (;;) {
      // Piped: the prompt, then the line as if typed, so the output reads as the session it was.
      if (tty) rl.prompt();
      else out.write(o.prompt);
      const line = await Promise.race([lines.take(), quitting]);
      if (line === null || line === 'quit') {
        out.write('\n');
        break;
      }
      if (!tty) out.write(`${line}\n`);
      if ((await Promise.race([handle(line), quitting])) !== undefined) break;
      steps = await o.words.steps().catch(() => steps);
    }
  } finally {
    rl.close();
  }
  return 0;
}

/** The terminal's commands, less those refused here, each with its words split (`runbook start`). */
export function consoleSpecs(refuse: Record<string, string> = {}): Spec[] {
  return (COMMANDS as readonly CommandSpec[]).filter((s) => s.frontEnds.includes('cli') && !refuse[s.words[0]]).map((s) => ({ ...s, path: s.words[0].split(' ') }));
}

export interface Known extends Omit<ConsoleWords, 'steps'> {
  steps: string[];
}

/** What Tab offers: command words, then each argument's and flag's values as the session knows them. */
export function completions(line: string, specs: Spec[], known: Known): [string[], string] {
  const words = line.trimStart().split(/\s+/);
  const partial = words.pop() ?? '';
  if (words[0] === 'seat' || words[0] === '/seat') words.shift();
  const offer = (candidates: Iterable<string>): [string[], string] => {
    const hits = [...new Set(candidates)].filter((c) => c.startsWith(partial)).sort();
    // One left: complete the word and the space after it, as a shell does.
    return [hits.length === 1 ? [`${hits[0]!} `] : hits, partial];
  };
  if (words.length === 0) return offer([...specs.map((s) => s.path[0]!), ...EXIT_WORDS]);
  const spec = specs.filter((s) => s.path.every((w, i) => words[i] === w)).sort((a, b) => b.path.length - a.path.length)[0];
  if (!spec) return words.length === 1 ? offer(specs.filter((s) => s.path[0] === words[0] && s.path[1]).map((s) => s.path[1]!)) : [[], partial];
  const rest = words.slice(spec.path.length);
  const last = rest[rest.length - 1];
  const flag = last?.startsWith('--') ? spec.flags[last.slice(2)] : undefined;
  if (flag?.type === 'string') return offer(flagValues(last!.slice(2), known));
  const cliFlags = Object.entries(spec.flags).filter(([, f]) => (f.frontEnds ?? ['cli']).includes('cli'));
  if (partial.startsWith('-')) return offer(cliFlags.map(([n]) => `--${n}`));
  let position = 0;
  for (let i = 0; i < rest.length; i++) {
    const w = rest[i]!;
    if (!w.startsWith('-')) position += 1;
    else if (spec.flags[w.slice(2)]?.type === 'string' && !w.includes('=')) i += 1;
  }
  const arg = spec.args[position];
  if (!arg) return [[], partial];
  switch (arg.kind) {
    case 'site':
      return offer(known.sites);
    case 'site-or-all':
      return offer([...known.sites, 'all']);
    case 'command':
      return offer(specs.map((s) => s.path[0]!));
    case 'text':
      return offer(spec.path[0] === 'diagnose' || spec.path[0] === 'powerlog' ? known.files : []);
    case 'name':
      return offer(arg.name === 'runbook' ? known.runbooks : arg.name === 'step' ? known.steps : arg.name === 'guardrail' ? known.guardrails : arg.name === 'host' ? known.hosts : []);
    default:
      return [[], partial];
  }
}

function flagValues(flag: string, known: Known): string[] {
  switch (flag) {
    case 'site':
      return known.sites;
    case 'host':
      return known.hosts;
    case 'format':
      return ['md', 'html'];
    case 'method':
      return ['restart', 'recreate'];
    case 'bank':
      return ['battery', 'surge', 'bypass'];
    default:
      return [];
  }
}
