// A real `seat bot` process for the tests: `node --import tsx src/cli/main.ts bot --inventory FILE`
// with the env it is given (HTTP mode, PORT=0 unless set), its Slack port read from the line it
// says when it runs ("HTTP on port N at /slack/events" on stderr). SIGKILL as a power cut would
// take it; every wait is bounded.
import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

export interface BotProcess {
  /** The name it was started under (SEAT_REPLICA) and its pid. */
  replica: string;
  pid: number;
  /** Its /slack/events URL, once it runs. */
  events: string;
  /** What it wrote so far: stderr (the human lines) and stdout (JSON lines). */
  err(): string;
  out(): string;
  /** Whether it has exited (killed or not). */
  gone(): boolean;
  /** SIGKILL, then waits (bounded) for the exit. */
  kill(): Promise<void>;
  /** Resolves with the exit code or signal once it has exited. */
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

export interface BotStart {
  inventory: string;
  replica: string;
  env: NodeJS.ProcessEnv;
  /** How long to wait for "running on" (default 60 s: two busy cores load the bot slowly). */
  timeoutMs?: number;
}

/** Starts one bot and resolves once it says it runs (else rejects with what it said, and kills it). */
export async function startBot(o: BotStart): Promise<BotProcess> {
  const env = { PORT: '0', SEAT_PROBE_MEMORY: 'off', ...o.env, SEAT_REPLICA: o.replica };
  const child: ChildProcess = spawn(process.execPath, ['--import', 'tsx', join(ROOT, 'src/cli/main.ts'), 'bot', '--inventory', o.inventory], { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let err = '';
  let out = '';
  child.stderr!.on('data', (b: Buffer) => void (err += b.toString()));
  child.stdout!.on('data', (b: Buffer) => void (out += b.toString()));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
  let gone = false;
  void exited.then(() => void (gone = true));
  const kill = async (): Promise<void> => {
    if (!gone) child.kill('SIGKILL');
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([exited, new Promise((r) => (timer = setTimeout(r, 10_000)))]);
    clearTimeout(timer);
  };
  const port = await new Promise<number>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`bot ${o.replica} did not say it runs within ${o.timeoutMs ?? 60_000} ms:\n${err.slice(-3000)}`)), o.timeoutMs ?? 60_000);
    const look = (): void => {
      const m = /HTTP on port (\d+) at \/slack\/events/.exec(err);
      if (m) {
        clearTimeout(timer);
        resolve(Number(m[1]));
      }
    };
    child.stderr!.on('data', look);
    void exited.then((e) => {
      clearTimeout(timer);
      reject(new Error(`bot ${o.replica} exited (${e.code ?? e.signal}) before it ran:\n${err.slice(-3000)}`));
    });
  }).catch(async (e: unknown) => {
    await kill();
    throw e;
  });
  return {
    replica: o.replica,
    pid: child.pid!,
    events: `http://127.0.0.1:${port}/slack/events`,
    err: () => err,
    out: () => out,
    gone: () => gone,
    kill,
    exited,
  };
}
