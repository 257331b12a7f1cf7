// The drill's NUT daemons as processes: spawned in the foreground as our children (so we hold their
// pids and reap them), with a parent-death signal where util-linux's setpriv exists, killed on our
// exit, and swept up at the next start when a killed test runner left some behind.
import { spawn, type ChildProcess } from 'node:child_process';
import { accessSync, constants, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DIR_PREFIX } from './config.ts';

export type DaemonName = 'upsd' | 'dummy-ups';

export interface SpawnOptions {
  nutDir: string;
  /** NUT_CONFPATH, NUT_STATEPATH and NUT_ALTPIDPATH. */
  dir: string;
  /** Each line of stdout and stderr, prefixed with the daemon's name. */
  log: (line: string) => void;
}

export function spawnDaemon(name: DaemonName, args: string[], o: SpawnOptions): ChildProcess {
  const argv = [join(o.nutDir, name), ...args, '-FF', ...(process.getuid?.() === 0 ? ['-u', 'root'] : [])];
  const [file, ...rest] = hasSetpriv() ? ['setpriv', '--pdeathsig', 'SIGKILL', ...argv] : argv;
  const child = spawn(file!, rest, {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, NUT_CONFPATH: o.dir, NUT_STATEPATH: o.dir, NUT_ALTPIDPATH: o.dir },
  });
  const keep = (chunk: Buffer): void => {
    for (const l of chunk.toString('utf8').split('\n').filter(Boolean)) o.log(`${name}: ${l}`);
  };
  child.stdout?.on('data', keep);
  child.stderr?.on('data', keep);
  child.on('error', (err) => o.log(`${name}: ${err.message}`));
  return child;
}

/** SIGTERM, then SIGKILL after 2 s; resolves once it has exited. */
export async function terminate(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  child.kill('SIGCONT'); // a frozen driver cannot act on SIGTERM
  child.kill('SIGTERM');
  const killer = setTimeout(() => child.kill('SIGKILL'), 2000);
  await exited;
  clearTimeout(killer);
}

/** Synchronous, for process exit: no waiting is possible there. */
export function killNow(children: (ChildProcess | null)[]): void {
  for (const c of children) {
    if (c && c.exitCode === null && c.signalCode === null) {
      c.kill('SIGCONT');
      c.kill('SIGKILL');
    }
  }
}

/** Who owns a dir's daemons, for sweepOrphans. */
export function writeOwner(dir: string, children: (ChildProcess | null)[]): void {
  const pids = children.map((c) => c?.pid).filter((p): p is number => typeof p === 'number');
  writeFileSync(join(dir, 'owner.json'), JSON.stringify({ owner: process.pid, pids }));
}

// Every instance this process started, so an exit (even an uncaught error) stops them.
const live = new Set<{ killNow(): void }>();
let exitHookInstalled = false;

export function track(inst: { killNow(): void }): () => void {
  if (!exitHookInstalled) {
    exitHookInstalled = true;
    process.on('exit', () => {
      for (const i of live) i.killNow();
    });
  }
  live.add(inst);
  return () => live.delete(inst);
}

let setprivCache: boolean | null = null;
function hasSetpriv(): boolean {
  if (setprivCache === null) {
    setprivCache = ['/usr/bin/setpriv', '/bin/setpriv'].some((p) => {
      try {
        accessSync(p, constants.X_OK);
        return true;
      } catch {
        return false;
      }
    });
  }
  return setprivCache;
}

/** Instances left by a process that died without stopping them: kill their daemons, remove their dirs. */
export function sweepOrphans(): void {
  let names: string[];
  try {
    names = readdirSync(tmpdir()).filter((n) => n.startsWith(DIR_PREFIX));
  } catch {
    return;
  }
  for (const name of names) {
    const dir = join(tmpdir(), name);
    let owner: { owner: number; pids: number[] };
    try {
      owner = JSON.parse(readFileSync(join(dir, 'owner.json'), 'utf8')) as typeof owner;
    } catch {
      continue; // being set up right now, or not ours to judge
    }
    if (owner.owner === process.pid || alive(owner.owner)) continue;
    for (const pid of owner.pids) {
      if (isNutDaemon(pid)) {
        try {
          process.kill(pid, 'SIGKILL');
        } catch {
          // gone already
        }
      }
    }
    rmSync(dir, { recursive: true, force: true });
  }
}

/** A process of that pid exists (ours or not: EPERM says it is there). */
export function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function isNutDaemon(pid: number): boolean {
  try {
    const cmd = readFileSync(`/proc/${pid}/cmdline`, 'utf8');
    return /\/(upsd|dummy-ups)\0/.test(cmd) || /\/(upsd|dummy-ups)$/.test(cmd);
  } catch {
    return false;
  }
}
