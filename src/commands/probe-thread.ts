// The bot's probes in a thread of their own. A probe's CPU — planning, thousands of requests, the
// children it starts (a spawn holds its thread for milliseconds), the report — would otherwise run on
// the event loop that acks Slack, and an ack behind it waits. The thread runs commands/probe.ts's own
// runProbe; what crosses is data: the inventory, the request, the environment, the memory out;
// events, the children's pids and the report back. A probe whose deps are not data (a test's HTTP
// stand-in, its clock or timer) runs in-process, as before.
import { Worker } from 'node:worker_threads';
import type { Fleet } from '../inventory/fleet.ts';
import type { Inventory } from '../inventory/schema.ts';
import type { MemoryJson } from '../probes/memory.ts';
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

export interface ProbeThread {
  /** Same shape as runProbe: the probe runs in the thread when its deps allow, in-process otherwise. */
  runProbe(fleet: Fleet, req: ProbeRequest, deps?: ProbeDeps): Promise<ProbeReport>;
  /** How many probes ran in the thread (tests and the bench say which road was taken). */
  readonly threaded: number;
  /** Ends the thread; probes still in it fail. */
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

export function createProbeThread(): ProbeThread {
  let worker: Worker | null = null;
  const pending = new Map<number, Pending>();
  const fleetIds = new WeakMap<Fleet, number>();
  /** Fleet ids the current worker has been sent the inventory of. */
  let known = new Set<number>();
  let nextId = 1;
  let nextFleet = 1;
  let threaded = 0;

  const failAll = (why: string): void => {
    for (const [id, p] of pending) {
      pending.delete(id);
      for (const pid of p.pids) p.deps.reaper?.untrack(pid);
      p.reject(new Error(why));
    }
  };

  const start = (): Worker => {
    // Compiled, the thread runs the .js beside this one; from the source, it registers tsx first (a
    // worker does not inherit the loader hooks of `--import tsx`).
    const w = import.meta.url.endsWith('.ts')
      ? new Worker(
          `import(${JSON.stringify(import.meta.resolve('tsx/esm/api'))}).then((tsx) => { tsx.register(); return import(${JSON.stringify(new URL('./probe-thread-worker.ts', import.meta.url).href)}); })`,
          { eval: true },
        )
      : new Worker(new URL('./probe-thread-worker.js', import.meta.url));
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
    w.on('error', (err) => {
      if (worker === w) worker = null;
      failAll(`the probe thread failed: ${err.message.split('\n')[0] ?? ''}`);
    });
    w.on('exit', (code) => {
      if (worker === w) worker = null;
      failAll(`the probe thread ended (exit ${code})`);
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
        ...(deps.env ? { env: { ...deps.env } } : {}),
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
    close: async () => {
      const w = worker;
      worker = null;
      if (w) await w.terminate();
    },
  };
}
