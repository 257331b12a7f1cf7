// The one way a probe runs a program (nvidia-smi, xpu-smi, ssh, ping): an argument array, never a
// shell; only the environment the program needs; output capped; its own process group, killed whole
// on timeout, stop, overflow and when it is done. Never throws: every failure is a result.
//
// Wiring: one Reaper per process, made in main() and put in ProbeEnv:
//   const reaper = createReaper();
//   process.on('exit', () => reaper.killAll());            // sync: SIGKILL, the default
//   process.once('SIGINT', () => { reaper.killAll('SIGTERM'); ...stop the run, exit 130 });
// 'timeout' is our own timer ("no answer within N ms (killed)"); 'stopped' is the caller's signal
// (the runner's deadline or a cancel: the runner words those, the probe's words are discarded).
import { spawn, type ChildProcess } from 'node:child_process';
import type { Readable } from 'node:stream';
import { clean, cut, firstLine } from './text.ts';
import type { ProbeEnv } from '../types.ts';
import { isTimeout, KILL_AFTER_MS, realTimer, withTimeout, type SetTimer } from './timeout.ts';

export type CommandCode = 'ok' | 'exit' | 'timeout' | 'not_found' | 'killed' | 'stopped' | 'too_large' | 'error';

export interface CommandResult {
  /** Decoded as UTF-8, raw (escapes and all): parse it, clean what is shown. At most maxBytes; the
   * final newline is dropped (callers were written for execa's default, kept). */
  stdout: string;
  stderr: string;
  /** null when it did not exit by itself (a signal) or never started. */
  exitCode: number | null;
  signal: string | null;
  /** ok: exit 0. exit: another exit code. timeout: our timer killed it. stopped: the caller's signal did.
   * too_large: a stream went over maxBytes and it was killed. killed: a signal we did not send.
   * not_found: no such program on PATH. error: it could not be started for another reason. */
  code: CommandCode;
  /** An output stream was cut at maxBytes. */
  truncated: boolean;
  timedOut: boolean;
  isCanceled: boolean;
  /** For code 'error': one clean line saying why. */
  error?: string;
}

/** The process groups of children still running; the CLI and the bot own one each and call
 * killAll() when they stop (SIGINT, SIGTERM, exit): detached groups do not get the terminal's Ctrl-C. */
export interface Reaper {
  track(pid: number): void;
  untrack(pid: number): void;
  /** Signals every tracked group (default SIGKILL: safe inside process.on('exit'), which cannot wait). */
  killAll(signal?: NodeJS.Signals): void;
  readonly size: number;
}

export interface CommandOptions {
  timeoutMs: number;
  signal?: AbortSignal;
  /** Searched before env.PATH (tests put fake nvidia-smi, ssh and ping here). */
  pathPrefix?: string[];
  /** The caller's environment to pick from; never passed whole. */
  env: NodeJS.ProcessEnv;
  /** Further variable names to pass through, when set in `env`. */
  passEnv?: string[];
  /** Per stream; default 4 MiB. */
  maxBytes?: number;
  reaper: Reaper;
  setTimer?: SetTimer;
  /** Not started before this settles (ProbeEnv.programGate's `opened`); the wait is spent of timeoutMs,
   * and a stop or the timeout during it ends the command unstarted. */
  after?: Promise<void>;
}

/** What a probe's program runs with, from its run's ProbeEnv: its caps, PATH, passEnv, reaper and gate. */
export function probeCommandOptions(env: ProbeEnv, signal: AbortSignal, maxBytes: number = env.maxOutputBytes): CommandOptions {
  return {
    timeoutMs: env.timeoutMs,
    signal,
    env: env.env,
    maxBytes,
    reaper: env.reaper,
    ...(env.pathPrefix ? { pathPrefix: env.pathPrefix } : {}),
    ...(env.passEnv ? { passEnv: env.passEnv } : {}),
    ...(env.programGate ? { after: env.programGate.opened } : {}),
  };
}

export const DEFAULT_MAX_OUTPUT = 4 * 1024 * 1024;
const DEFAULT_PATH = '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin';

export function createReaper(kill: (pid: number, signal: NodeJS.Signals) => void = process.kill.bind(process)): Reaper {
  const groups = new Set<number>();
  return {
    track: (pid) => void groups.add(pid),
    untrack: (pid) => void groups.delete(pid),
    killAll: (signal = 'SIGKILL') => {
      for (const pid of groups) killGroup(pid, signal, kill);
    },
    get size() {
      return groups.size;
    },
  };
}

/** A child's whole group (it was started detached, as its own group's leader); gone already is fine. */
export function killGroup(pid: number, signal: NodeJS.Signals, kill: (pid: number, signal: NodeJS.Signals) => void = process.kill.bind(process)): void {
  try {
    kill(-pid, signal);
  } catch {
    // already gone
  }
}

/** What a child sees: PATH, a C locale, who it runs as, ssh's agent, a dumb terminal, and passEnv.
 * Not SLACK_* tokens, not the gateway keys, not anything else the bot was started with. */
export function childEnv(env: NodeJS.ProcessEnv, pathPrefix: string[] = [], passEnv: string[] = []): Record<string, string> {
  const out: Record<string, string> = {
    PATH: [...pathPrefix, env.PATH || DEFAULT_PATH].filter((p) => p !== '').join(':'),
    LANG: 'C',
    LC_ALL: 'C',
    TERM: 'dumb',
  };
  for (const name of ['HOME', 'USER', 'SSH_AUTH_SOCK', ...passEnv]) {
    const v = env[name];
    if (v !== undefined && !(name in out)) out[name] = v;
  }
  return out;
}

/** The last turn handed out (see spawnTurn). */
let lastTurn: Promise<void> = Promise.resolve();

/**
 * A turn of the event loop of its own for each program started: a fork blocks the thread for a few
 * milliseconds, and five at once held a key's listing, there since the first of them, and with it
 * every alias request, for 15 ms. One a turn, what came in meanwhile is read between two of them.
 */
function spawnTurn(): Promise<void> {
  const turn = lastTurn.then(() => new Promise<void>((resolve) => setImmediate(resolve)));
  lastTurn = turn;
  return turn;
}

export async function runCommand(argv: readonly string[], opts: CommandOptions): Promise<CommandResult> {
  const maxBytes = opts.maxBytes ?? DEFAULT_MAX_OUTPUT;
  const setTimer = opts.setTimer ?? realTimer;
  const none = { stdout: '', stderr: '', exitCode: null, signal: null, truncated: false, timedOut: false, isCanceled: false };
  const [file, ...args] = argv;
  if (file === undefined) return { ...none, code: 'error', error: 'no command' };
  if (opts.signal?.aborted) return { ...none, code: 'stopped', isCanceled: true };

  const { signal, clear } = withTimeout(opts.signal, opts.timeoutMs, setTimer);
  let why: 'timeout' | 'stopped' | 'too_large' | null = null;
  let cancelKill = (): void => {};
  let pid: number | undefined;
  const stop = (w: NonNullable<typeof why>): void => {
    if (why || pid === undefined) return;
    why = w;
    const group = pid;
    killGroup(group, 'SIGTERM');
    cancelKill = setTimer(() => killGroup(group, 'SIGKILL'), KILL_AFTER_MS);
  };
  const onAbort = (): void => stop(isTimeout(signal) ? 'timeout' : 'stopped');
  try {
    // Starting a process blocks the thread for milliseconds: the runner starts every task before any
    // of them spawns, so no task's clock (nor the gateway's first request) waits on another's fork;
    // in a probe run, not before the key listings either (`after`: edge/gate.ts).
    if (opts.after) await untilOrAborted(opts.after, signal);
    await spawnTurn();
    if (signal.aborted) return { ...none, code: isTimeout(signal) ? 'timeout' : 'stopped', timedOut: isTimeout(signal), isCanceled: !isTimeout(signal) };
    // node:child_process itself, not execa: ~130 modules and ~12 MiB that a probe run paid for while
    // its requests waited, for what these few lines do.
    let child: ChildProcess;
    try {
      child = spawn(file, args, {
        stdio: ['ignore', 'pipe', 'pipe'],
        env: childEnv(opts.env, opts.pathPrefix, opts.passEnv),
        // Its own process group: a wrapper's children (a remote shell, a stuck driver call) holding
        // stdout die with it instead of keeping this process waiting long after the report.
        detached: true,
      });
    } catch (err) {
      return { ...none, code: 'error', error: cut(clean(firstLine(err instanceof Error ? err.message : String(err))), 160) };
    }
    pid = child.pid;
    if (pid !== undefined) opts.reaper.track(pid);
    signal.addEventListener('abort', onAbort, { once: true });
    // Past the cap nothing more is kept, and the whole group is stopped: killing the leader alone
    // would not stop a grandchild that keeps writing.
    const stdout = capture(child.stdout, maxBytes, () => stop('too_large'));
    const stderr = capture(child.stderr, maxBytes, () => stop('too_large'));
    // The leader is done: its output is in the pipe; anything it left in its group goes now, so a
    // grandchild holding stdout cannot keep us waiting.
    child.once('exit', () => {
      if (pid !== undefined) killGroup(pid, 'SIGKILL');
    });
    const ended = await new Promise<{ exitCode: number | null; signal: NodeJS.Signals | null; failed?: NodeJS.ErrnoException }>((resolve) => {
      // A program that could not be started (ENOENT, EACCES) says so here, with no exit.
      child.on('error', (failed: NodeJS.ErrnoException) => resolve({ exitCode: null, signal: null, failed }));
      child.once('close', (exitCode: number | null, sig: NodeJS.Signals | null) => resolve({ exitCode, signal: sig }));
    });
    const out = {
      stdout: decode(stripFinalNewline(stdout.bytes())),
      stderr: decode(stripFinalNewline(stderr.bytes())),
      exitCode: ended.exitCode,
      signal: ended.signal,
      truncated: stdout.over || stderr.over || why === 'too_large',
    };
    const flags = { timedOut: why === 'timeout', isCanceled: why === 'stopped' };
    if (why) return { ...out, ...flags, code: why };
    if (out.truncated) return { ...out, ...flags, code: 'too_large' };
    if (ended.failed?.code === 'ENOENT') return { ...out, ...flags, code: 'not_found' };
    if (ended.failed) return { ...out, ...flags, code: 'error', error: cut(clean(firstLine(`${ended.failed.code ?? 'error'}: ${ended.failed.message}`)), 160) };
    if (out.exitCode === 0) return { ...out, ...flags, code: 'ok' };
    if (out.exitCode !== null) return { ...out, ...flags, code: 'exit' };
    if (out.signal !== null) return { ...out, ...flags, code: 'killed' };
    return { ...out, ...flags, code: 'error', error: 'could not run' };
  } catch (err) {
    return { ...none, code: 'error', error: cut(clean(firstLine(err instanceof Error ? err.message : String(err))), 160) };
  } finally {
    clear();
    cancelKill();
    signal.removeEventListener('abort', onAbort);
    if (pid !== undefined) {
      killGroup(pid, 'SIGKILL');
      opts.reaper.untrack(pid);
    }
  }
}

/**
 * A wrapper that started but could not start the program it wraps, in its own words, or null:
 * iproute2's `ip netns exec` (`exec of "ping" failed: No such file or directory`, any exit), or a
 * shell, `env` or a stand-in script exiting 127 (not found) or 126 (found, not executable), as POSIX
 * has them. Not for ssh: there 127 is the remote host's, and the caller says which host.
 */
export function wrappedNotStarted(r: CommandResult): string | null {
  if (r.code !== 'exit') return null;
  const ip = /exec of "[^"\n]{1,200}" failed: [^\n]{1,200}/.exec(r.stderr);
  if (ip) return cut(clean(ip[0]), 160);
  if (r.exitCode === 127 || r.exitCode === 126) return cut(clean(firstLine(r.stderr)), 160) || `exit ${r.exitCode}`;
  return null;
}

/** `p` settled, or `signal` aborted, whichever first (never rejects). */
function untilOrAborted(p: Promise<void>, signal: AbortSignal): Promise<void> {
  if (signal.aborted) return Promise.resolve();
  return new Promise<void>((resolve) => {
    const done = (): void => {
      signal.removeEventListener('abort', done);
      resolve();
    };
    signal.addEventListener('abort', done, { once: true });
    p.then(done, done);
  });
}

/** A stream's bytes up to `max`; past it, `onOver` once and the rest is read and dropped. */
function capture(stream: Readable | null, max: number, onOver: () => void): { bytes(): Uint8Array; readonly over: boolean } {
  const chunks: Buffer[] = [];
  let kept = 0;
  let over = false;
  stream?.on('data', (chunk: Buffer) => {
    if (over) return;
    const room = max - kept;
    if (chunk.length > room) {
      if (room > 0) chunks.push(chunk.subarray(0, room));
      kept = max;
      over = true;
      onOver();
      return;
    }
    chunks.push(chunk);
    kept += chunk.length;
  });
  stream?.on('error', () => {});
  return {
    bytes: () => Buffer.concat(chunks, kept),
    get over() {
      return over;
    },
  };
}

/** The final newline (LF or CRLF) dropped, as execa did by default and as callers were written for. */
function stripFinalNewline(b: Uint8Array): Uint8Array {
  if (b.at(-1) !== 0x0a) return b;
  return b.subarray(0, b.at(-2) === 0x0d ? -2 : -1);
}

function decode(v: Uint8Array): string {
  return v.length === 0 ? '' : new TextDecoder().decode(v);
}
