// Runs every probe task at once (bounded), each under its own timeout, all under one deadline,
// and streams findings as tasks finish. A hanging target costs its timeout, never more.
import { setMaxListeners } from 'node:events';
import type { Finding, ProbeTask } from './types.ts';

export type RunEvent =
  | { type: 'start'; total: number }
  | { type: 'task'; task: ProbeTask; findings: Finding[]; done: number; total: number; timedOut: boolean };

export interface RunOptions {
  concurrency: number;
  deadlineMs: number;
  onEvent?: (event: RunEvent) => void;
  /** Aborts the whole run (a person cancelled, the process is stopping). */
  signal?: AbortSignal;
  setTimer?: (fn: () => void, ms: number) => () => void;
}

export interface RunResult {
  findings: Finding[];
  /** Tasks that hit their own timeout or the overall deadline. */
  timedOut: string[];
}

const defaultTimer = (fn: () => void, ms: number): (() => void) => {
  const t = setTimeout(fn, ms);
  return () => clearTimeout(t);
};

export async function runTasks(tasks: ProbeTask[], opts: RunOptions): Promise<RunResult> {
  const setTimer = opts.setTimer ?? defaultTimer;
  const total = tasks.length;
  const findings: Finding[] = [];
  const timedOut: string[] = [];
  let done = 0;
  opts.onEvent?.({ type: 'start', total });

  const deadline = new AbortController();
  const cancelDeadline = setTimer(() => deadline.abort(), opts.deadlineMs);
  const stopAll = opts.signal ? AbortSignal.any([deadline.signal, opts.signal]) : deadline.signal;
  // Every running task listens on it; dozens at once is the point, not a leak.
  setMaxListeners(0, stopAll);

  const finish = (task: ProbeTask, out: Finding[], late: boolean): void => {
    done += 1;
    findings.push(...out);
    if (late) timedOut.push(task.id);
    opts.onEvent?.({ type: 'task', task, findings: out, done, total, timedOut: late });
  };

  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < tasks.length) {
      const task = tasks[next++]!;
      if (stopAll.aborted) {
        finish(task, notStarted(task, opts.deadlineMs), true);
        continue;
      }
      const outcome = await runOne(task, stopAll, setTimer);
      finish(task, outcome.findings, outcome.timedOut);
    }
  };
  try {
    await Promise.all(Array.from({ length: Math.max(1, Math.min(opts.concurrency, total)) }, worker));
  } finally {
    cancelDeadline();
  }
  return { findings, timedOut };
}

async function runOne(
  task: ProbeTask,
  stopAll: AbortSignal,
  setTimer: NonNullable<RunOptions['setTimer']>,
): Promise<{ findings: Finding[]; timedOut: boolean }> {
  const own = new AbortController();
  const signal = AbortSignal.any([own.signal, stopAll]);
  let cancelTimer = (): void => {};
  let onStop = (): void => {};
  // The race: the task's answer, its own timeout, or the overall deadline — whichever comes first.
  const late = new Promise<'timeout' | 'deadline'>((resolve) => {
    cancelTimer = setTimer(() => resolve('timeout'), task.timeoutMs);
    onStop = () => resolve('deadline');
    stopAll.addEventListener('abort', onStop, { once: true });
  });
  const work = task.run(signal).then(
    (findings) => ({ findings }),
    (err: unknown) => ({ findings: [crashed(task, err)] }),
  );
  try {
    const first = await Promise.race([work, late]);
    if (typeof first === 'object') return { findings: first.findings, timedOut: false };
    own.abort();
    if (first === 'timeout') return { findings: task.onTimeout(task.timeoutMs), timedOut: true };
    return { findings: stoppedAtDeadline(task), timedOut: true };
  } finally {
    cancelTimer();
    stopAll.removeEventListener('abort', onStop);
  }
}

function crashed(task: ProbeTask, err: unknown): Finding {
  const message = err instanceof Error ? err.message : String(err);
  return {
    probe: task.probe,
    target: task.target,
    status: 'unknown',
    detail: `the probe itself failed: ${message.split('\n')[0]}`,
    measuredBy: 'inferred: probe error',
    latencyMs: null,
    ...(task.site ? { site: task.site } : {}),
    ...(task.host ? { host: task.host } : {}),
  };
}

function notStarted(task: ProbeTask, deadlineMs: number): Finding[] {
  return relabel(task, `not probed: the overall deadline of ${deadlineMs} ms ran out first`);
}

function stoppedAtDeadline(task: ProbeTask): Finding[] {
  return relabel(task, 'no answer before the overall deadline (stopped)');
}

function relabel(task: ProbeTask, detail: string): Finding[] {
  return task.onTimeout(task.timeoutMs).map((f) => ({ ...f, status: 'unknown', detail, measuredBy: 'inferred: deadline', latencyMs: null }));
}
