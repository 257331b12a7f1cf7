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
import type { execa as Execa } from 'execa';
import { clean, cut, firstLine } from './text.ts';
import { isTimeout, KILL_AFTER_MS, realTimer, withTimeout, type SetTimer } from './timeout.ts';

export type CommandCode = 'ok' | 'exit' | 'timeout' | 'not_found' | 'killed' | 'stopped' | 'too_large' | 'error';

export interface CommandResult {
  /** Decoded as UTF-8, raw (escapes and all): parse it, clean what is shown. At most maxBytes; the
   * final newline is dropped (execa's default). */
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

function killGroup(pid: number, signal: NodeJS.Signals, kill: (pid: number, signal: NodeJS.Signals) => void = process.kill.bind(process)): void {
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

// execa is loaded by the first command run, not by every module that can run one: `seat --version`
// and `seat help` never pay for it.
let execaFn: typeof Execa | undefined;

export async function runCommand(argv: readonly string[], opts: CommandOptions): Promise<CommandResult> {
  const execa = (execaFn ??= (await import('execa')).execa);
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
    const sub = execa(file, args, {
      reject: false,
      stdin: 'ignore',
      encoding: 'buffer',
      maxBuffer: maxBytes,
      extendEnv: false,
      env: childEnv(opts.env, opts.pathPrefix, opts.passEnv),
      // Its own process group: a wrapper's children (a remote shell, a stuck driver call) holding
      // stdout die with it instead of keeping this process waiting long after the report.
      detached: true,
    });
    pid = sub.pid;
    if (pid !== undefined) opts.reaper.track(pid);
    signal.addEventListener('abort', onAbort, { once: true });
    // Our own count as well as execa's maxBuffer: execa stops reading and kills the leader, but only
    // a group kill stops a grandchild that keeps writing.
    for (const stream of [sub.stdout, sub.stderr]) {
      let seen = 0;
      stream?.on('data', (chunk: Uint8Array) => {
        seen += chunk.byteLength;
        if (seen > maxBytes) stop('too_large');
      });
    }
    // The leader is done: its output is in the pipe; anything it left in its group goes now, so a
    // grandchild holding stdout cannot keep us waiting.
    sub.once('exit', () => {
      if (pid !== undefined) killGroup(pid, 'SIGKILL');
    });
    const r = await sub;
    const out = {
      stdout: decode(r.stdout),
      stderr: decode(r.stderr),
      exitCode: typeof r.exitCode === 'number' ? r.exitCode : null,
      signal: r.signal ?? null,
      truncated: r.isMaxBuffer || why === 'too_large',
    };
    const flags = { timedOut: why === 'timeout', isCanceled: why === 'stopped' };
    if (why) return { ...out, ...flags, code: why };
    if (out.truncated) return { ...out, ...flags, code: 'too_large' };
    if (r.code === 'ENOENT') return { ...out, ...flags, code: 'not_found' };
    if (out.exitCode === 0) return { ...out, ...flags, code: 'ok' };
    if (out.exitCode !== null) return { ...out, ...flags, code: 'exit' };
    if (out.signal !== null) return { ...out, ...flags, code: 'killed' };
    return { ...out, ...flags, code: 'error', error: cut(clean(firstLine(r.shortMessage ?? r.message ?? 'could not run')), 160) };
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

function decode(v: unknown): string {
  if (v instanceof Uint8Array) return new TextDecoder().decode(v);
  return typeof v === 'string' ? v : '';
}
