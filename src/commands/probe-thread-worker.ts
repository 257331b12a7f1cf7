// The probe thread's side (see probe-thread.ts), as a worker thread or a child process: each 'run'
// is commands/probe.ts's runProbe on the fleet it was sent, its events and children's pids posted
// back as they come, then its report.
import { parentPort } from 'node:worker_threads';
import { Fleet } from '../inventory/fleet.ts';
import { createReaper } from '../probes/edge/exec.ts';
import { ProbeMemory } from '../probes/memory.ts';
import type { TaskInfo } from '../probes/runner.ts';
import type { Reaper } from '../probes/types.ts';
import { runProbe } from './probe.ts';
import type { FromThread, ThreadRun, ToThread } from './probe-thread.ts';

/** The other side: the bot's thread (a worker's parentPort), or the bot's process (this process's IPC channel). */
interface Port {
  on(event: 'message', listener: (m: ToThread) => void): void;
  postMessage(m: FromThread): void;
}

/** The probes running here: how to stop each, and its reaper (a child process whose bot went away kills their children). */
const running = new Map<number, { stop: AbortController; own: Reaper }>();
const port: Port = parentPort ?? processPort();

function processPort(): Port {
  if (!process.send) throw new Error('probe-thread-worker runs as a worker thread or a child process with an IPC channel');
  // The bot gone (its channel closed, or a write to it failed): this process's children go with it, then this process.
  const gone = (): void => {
    for (const r of running.values()) r.own.killAll('SIGKILL');
    process.exit(0);
  };
  process.on('disconnect', gone);
  // The bot stops this process by closing the channel; a signal meant for the bot's group or its
  // service (Ctrl-C, a group SIGTERM) must not cut the probes it is letting finish.
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) process.on(signal, () => {});
  return {
    on: (_event, listener) => void process.on('message', listener as (m: unknown) => void),
    // A report finished as the bot went away has no one to go to (a write to a dead bot is EPIPE).
    postMessage: (m) => void (process.connected && process.send!(m, undefined, {}, (err) => err && gone())),
  };
}

const fleets = new Map<number, Fleet>();
const post = (m: FromThread): void => port.postMessage(m);

port.on('message', (m: ToThread) => {
  if (m.type === 'cancel') {
    running.get(m.id)?.stop.abort();
    return;
  }
  void run(m);
});

async function run(m: ThreadRun): Promise<void> {
  const stop = new AbortController();
  const own = createReaper();
  running.set(m.id, { stop, own });
  try {
    if (m.inventory) fleets.set(m.fleetId, new Fleet(m.inventory));
    const fleet = fleets.get(m.fleetId);
    if (!fleet) throw new Error('the probe thread was sent no inventory for this fleet');
    // This side's reaper kills its children as any would; the bot's learns of each, so that its own
    // reaper kills them too if the bot goes first.
    const reaper: Reaper = {
      track: (pid) => {
        own.track(pid);
        post({ type: 'pid', id: m.id, pid, tracked: true });
      },
      untrack: (pid) => {
        own.untrack(pid);
        post({ type: 'pid', id: m.id, pid, tracked: false });
      },
      killAll: (signal) => own.killAll(signal),
      get size() {
        return own.size;
      },
    };
    const report = await runProbe(fleet, m.req, {
      ...(m.deps.env ? { env: m.deps.env } : {}),
      ...(m.deps.pathPrefix ? { pathPrefix: m.deps.pathPrefix } : {}),
      ...(m.deps.pingCommand ? { pingCommand: m.deps.pingCommand } : {}),
      ...(m.deps.memory ? { memory: ProbeMemory.from(m.deps.memory) } : {}),
      reaper,
      signal: stop.signal,
      // A task's code stays here: the event carries what it was, not the task.
      onEvent: (e) => post({ type: 'event', id: m.id, event: e.type === 'task' ? { ...e, task: info(e.task) } : e }),
    });
    post({ type: 'done', id: m.id, report });
  } catch (err) {
    post({ type: 'failed', id: m.id, message: err instanceof Error ? (err.message.split('\n')[0] ?? '') : String(err) });
  } finally {
    running.delete(m.id);
  }
}

function info(t: TaskInfo): TaskInfo {
  return { id: t.id, group: t.group, probe: t.probe, target: t.target, subject: t.subject, ...(t.site !== undefined ? { site: t.site } : {}), ...(t.host !== undefined ? { host: t.host } : {}) };
}
