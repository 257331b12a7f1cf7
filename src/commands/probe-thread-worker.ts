// The probe thread's side (see probe-thread.ts): each 'run' is commands/probe.ts's runProbe on the
// fleet it was sent, its events and children's pids posted back as they come, then its report.
import { parentPort } from 'node:worker_threads';
import { Fleet } from '../inventory/fleet.ts';
import { createReaper } from '../probes/edge/exec.ts';
import { ProbeMemory } from '../probes/memory.ts';
import type { TaskInfo } from '../probes/runner.ts';
import type { Reaper } from '../probes/types.ts';
import { runProbe } from './probe.ts';
import type { FromThread, ThreadRun, ToThread } from './probe-thread.ts';

const port = parentPort;
if (!port) throw new Error('probe-thread-worker.ts runs as a worker thread');

const fleets = new Map<number, Fleet>();
const running = new Map<number, AbortController>();
const post = (m: FromThread): void => port.postMessage(m);

port.on('message', (m: ToThread) => {
  if (m.type === 'cancel') {
    running.get(m.id)?.abort();
    return;
  }
  void run(m);
});

async function run(m: ThreadRun): Promise<void> {
  const stop = new AbortController();
  running.set(m.id, stop);
  try {
    if (m.inventory) fleets.set(m.fleetId, new Fleet(m.inventory));
    const fleet = fleets.get(m.fleetId);
    if (!fleet) throw new Error('the probe thread was sent no inventory for this fleet');
    // This thread's reaper kills its children as any would; the other side's learns of each, so that
    // the process's own reaper kills them too if the process goes first.
    const own = createReaper();
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
