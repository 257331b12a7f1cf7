// The bot's probes off the event loop that acks Slack: in a child process of their own (what `seat
// bot` runs) or a worker thread. A probe's CPU — planning, thousands of requests, the children it
// starts, the report — would otherwise run on that loop, and an ack behind it waits; in a process,
// the forks of its pings and ssh are of a small process, not the bot's (a fork holds the forking
// process's memory map while it copies it). The other side runs commands/probe.ts's own runProbe
// (probe-thread-worker.ts); what crosses is data: the inventory, the request, the environment, the
// memory out; events, the children's pids and the report back. A probe whose deps are not data (a
// test's HTTP stand-in, its clock or timer) runs in-process, as before.
import { fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import type { Fleet } from '../inventory/fleet.ts';
import type { Inventory } from '../inventory/schema.ts';
import type { MemoryJson } from '../probes/memory.ts';
import { killGroup } from '../probes/edge/exec.ts';
import type { RunEvent } from '../probes/runner.ts';
import { runProbe, type ProbeDeps, type ProbeReport, type ProbeRequest } from './probe.ts';

/** What the thread is asked: one probe of a fleet, with the deps that are data. */
export interface ThreadRun {
  type: 'run';
  id: number;
  /** The inventory once per Fleet object (then by `fleetId`): 10,000 aliases are not copied per probe. */
  fleetId: number;
  inventory?: Inventory;
  req: ProbeRequest;
  deps: { env?: NodeJS.ProcessEnv; pathPrefix?: string[]; pingCommand?: string[]; memory?: MemoryJson };
}

export type ToThread = ThreadRun | { type: 'cancel'; id: number };

export type FromThread =
  | { type: 'event'; id: number; event: RunEvent }
  | { type: 'pid'; id: number; pid: number; tracked: boolean }
  | { type: 'done'; id: number; report: ProbeReport }
  | { type: 'failed'; id: number; message: string };

/** Where the probes run: a worker thread of this process, or a child process of its own. */
export type ProbeHostKind = 'thread' | 'process';

/** What this side needs of the other, whichever it is. */
interface Host {
  readonly pid?: number | undefined;
  postMessage(m: ToThread): void;
  on(event: 'message', listener: (m: FromThread) => void): void;
  on(event: 'error', listener: (err: Error) => void): void;
  on(event: 'exit', listener: (code: number | null) => void): void;
  ref(): void;
  unref(): void;
  terminate(): Promise<unknown>;
}

/** Slack's tokens stay in the bot: the probes need the gateway keys and the rest, never these. */
const SLACK_SECRETS = ['SLACK_BOT_TOKEN', 'SLACK_APP_TOKEN', 'SLACK_SIGNING_SECRET'];

function withoutSlackSecrets(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const out = { ...env };
  for (const name of SLACK_SECRETS) delete out[name];
  return out;
}

export interface ProbeThread {
  /** Same shape as runProbe: the probe runs in the thread when its deps allow, in-process otherwise. */
  runProbe(fleet: Fleet, req: ProbeRequest, deps?: ProbeDeps): Promise<ProbeReport>;
  /** How many probes ran off this loop (tests and the bench say which road was taken). */
  readonly threaded: number;
  /** The probe process's pid while one runs (a thread, or none started yet: undefined). */
  readonly pid: number | undefined;
  /** Ends the thread or process; probes still in it fail. */
  close(): Promise<void>;
}

/** Deps that cannot cross a thread: with any of them the probe runs in-process. */
const IN_PROCESS_ONLY = ['http', 'clock', 'monotonic', 'setTimer', 'origin'] as const;

interface Pending {
  resolve(report: ProbeReport): void;
  reject(err: Error): void;
  deps: ProbeDeps;
  pids: Set<number>;
}

export function createProbeThread(kind: ProbeHostKind = 'thread'): ProbeThread {
  let worker: Host | null = null;
  const pending = new Map<number, Pending>();
  const fleetIds = new WeakMap<Fleet, number>();
  /** Fleet ids the current worker has been sent the inventory of. */
  let known = new Set<number>();
  let nextId = 1;
  let nextFleet = 1;
  let threaded = 0;

  /** Fails every probe in flight. `orphaned`: the probe process is gone, and the children it had
   * started are known only here: killed, not forgotten (a thread's are this process's own). */
  const failAll = (why: string, orphaned = false): void => {
    for (const [id, p] of pending) {
      pending.delete(id);
      for (const pid of p.pids) {
        if (orphaned) killGroup(pid, 'SIGKILL');
        p.deps.reaper?.untrack(pid);
      }
      p.reject(new Error(why));
    }
  };

  const start = (): Host => {
    const w = kind === 'process' ? childHost() : threadHost();
    known = new Set();
    w.on('message', (m: FromThread) => {
      const p = pending.get(m.id);
      if (!p) return;
      switch (m.type) {
        case 'event':
          p.deps.onEvent?.(m.event);
          return;
        case 'pid':
          // The children are the process's: the reaper that kills them on the way out is this side's.
          if (m.tracked) {
            p.pids.add(m.pid);
            p.deps.reaper?.track(m.pid);
          } else {
            p.pids.delete(m.pid);
            p.deps.reaper?.untrack(m.pid);
          }
          return;
        case 'done':
          pending.delete(m.id);
          p.deps.memory?.learn(m.report.findings, Date.parse(m.report.finishedAt));
          p.resolve(m.report);
          break;
        case 'failed':
          pending.delete(m.id);
          p.reject(new Error(m.message));
          break;
      }
      if (pending.size === 0) w.unref();
    });
    w.on('error', (err: Error) => {
      if (worker === w) worker = null;
      failAll(`the probe ${kind} failed: ${err.message.split('\n')[0] ?? ''}`, kind === 'process');
    });
    w.on('exit', (code: number | null) => {
      if (worker === w) worker = null;
      failAll(`the probe ${kind} ended (exit ${code})`, kind === 'process');
    });
    w.unref();
    return w;
  };

  const inThread = (fleet: Fleet, req: ProbeRequest, deps: ProbeDeps): Promise<ProbeReport> => {
    const w = (worker ??= start());
    const id = nextId++;
    let fleetId = fleetIds.get(fleet);
    if (fleetId === undefined) fleetIds.set(fleet, (fleetId = nextFleet++));
    const msg: ThreadRun = {
      type: 'run',
      id,
      fleetId,
      ...(known.has(fleetId) ? {} : { inventory: fleet.inventory }),
      req,
      deps: {
        ...(deps.env ? { env: withoutSlackSecrets(deps.env) } : {}),
        ...(deps.pathPrefix ? { pathPrefix: deps.pathPrefix } : {}),
        ...(deps.pingCommand ? { pingCommand: deps.pingCommand } : {}),
        ...(deps.memory ? { memory: deps.memory.toJSON() } : {}),
      },
    };
    known.add(fleetId);
    threaded += 1;
    const signal = deps.signal;
    const cancel = (): void => w.postMessage({ type: 'cancel', id } satisfies ToThread);
    const settled = new Promise<ProbeReport>((resolve, reject) => {
      pending.set(id, { resolve, reject, deps, pids: new Set() });
      w.ref();
      w.postMessage(msg satisfies ToThread);
      if (signal?.aborted) cancel();
      else signal?.addEventListener('abort', cancel, { once: true });
    });
    // A run-long signal must not keep one listener per probe it outlived.
    const forget = (): void => signal?.removeEventListener('abort', cancel);
    settled.then(forget, forget);
    return settled;
  };

  return {
    runProbe: (fleet, req, deps = {}) => (IN_PROCESS_ONLY.some((k) => deps[k] !== undefined) ? runProbe(fleet, req, deps) : inThread(fleet, req, deps)),
    get threaded() {
      return threaded;
    },
    get pid() {
      return worker?.pid;
    },
    close: async () => {
      const w = worker;
      worker = null;
      if (w) await w.terminate();
    },
  };
}

/** Compiled, the other side is the .js beside this file; from the source, the .ts (tsx registered first). */
const SOURCE = import.meta.url.endsWith('.ts');

function threadHost(): Host {
  // A worker does not inherit the loader hooks of `--import tsx`: from the source it registers tsx itself.
  return SOURCE
    ? new Worker(
        `import(${JSON.stringify(import.meta.resolve('tsx/esm/api'))}).then((tsx) => { tsx.register(); return import(${JSON.stringify(new URL('./probe-thread-worker.ts', import.meta.url).href)}); })`,
        { eval: true },
      )
    : new Worker(new URL('./probe-thread-worker.js', import.meta.url));
}

/**
 * The probes in a child process: its CPU, and the forks of every ping, ssh and nvidia-smi it starts,
 * are off this process (a fork of a large process holds its memory map for milliseconds, and the
 * loop that acks Slack waits on it). Messages cross with the structured clone, as to a thread.
 */
function childHost(): Host {
  const child = fork(fileURLToPath(new URL(SOURCE ? './probe-thread-worker.ts' : './probe-thread-worker.js', import.meta.url)), [], {
    serialization: 'advanced',
    // tsx as this checkout has it, not as the working folder would resolve it (seat runs from anywhere).
    execArgv: SOURCE ? ['--import', import.meta.resolve('tsx')] : [],
    // A group of its own: a terminal's Ctrl-C or a service manager's group SIGTERM is the bot's to
    // handle (it lets the probes in flight finish, then closes this child), not the probes'.
    detached: true,
    env: withoutSlackSecrets(process.env),
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  return {
    pid: child.pid,
    postMessage: (m) => void (child.connected && child.send(m)),
    on: (event: string, listener: (...a: any[]) => void) => void child.on(event, listener),
    ref: () => {
      child.ref();
      child.channel?.ref();
    },
    unref: () => {
      child.unref();
      child.channel?.unref();
    },
    // Its channel closed, the child kills its own children and exits; one that does not is killed.
    terminate: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null || child.signalCode !== null) return resolve();
        const kill = setTimeout(() => child.kill('SIGKILL'), 2000);
        child.once('exit', () => {
          clearTimeout(kill);
          resolve();
        });
        if (child.connected) child.disconnect();
        else child.kill('SIGKILL');
      }),
  } as Host;
}
