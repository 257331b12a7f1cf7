// Runs every probe task at once (bounded), each under its own timeout, all under one deadline,
// and streams findings as tasks finish. A hanging target costs its timeout, never more.
import { timeoutError } from './edge/timeout.ts';
import { inferred, renderProvenance } from './finding.ts';
import type { Finding, InferredWhy, ProbeTask, Reason } from './types.ts';
import { stampVantage } from './vantage.ts';

/** What an event says of the task that finished: its identity, not its code (an event may cross a thread). */
export type TaskInfo = Pick<ProbeTask, 'id' | 'group' | 'probe' | 'target' | 'subject' | 'site' | 'host'>;

export type RunEvent =
  | { type: 'start'; total: number }
  | { type: 'task'; task: TaskInfo; findings: Finding[]; done: number; total: number; timedOut: boolean };

/** Schedules `fn` after `ms`; returns a cancel. The runner's only source of time: tests drive it. */
export type SetTimer = (fn: () => void, ms: number) => () => void;

export interface RunOptions {
  concurrency: number;
  deadlineMs: number;
  onEvent?: (event: RunEvent) => void;
  /** Aborts the whole run (a person cancelled, the process is stopping). */
  signal?: AbortSignal;
  setTimer?: SetTimer;
  /** Wall clock for the findings the runner itself writes (deadline, crash). */
  clock?: () => Date;
  /**
   * The first `lead` tasks are started, then the event loop gets a turn before the others are: their
   * connections open and their requests leave first. Thousands of tasks start in one go otherwise, and
   * a gateway's model listing, which every alias task waits on, would only be asked after all of them.
   */
  lead?: number;
  /** Called once the last task has been started and its first turn is over (its request written), with
   * how many tasks are still running at any moment after: no new task will start, and those may ask
   * once more (a probe's pool keeps no more idle connections than that: HttpPool.drain). */
  onAllStarted?: (running: () => number) => void;
  /** Where this run measures from (probes/vantage.ts): every finding it reports carries it in its provenance. */
  vantage?: string;
}

export interface RunResult {
  findings: Finding[];
  /** Tasks that hit their own timeout or the overall deadline. */
  timedOut: string[];
}

export const realTimer: SetTimer = (fn, ms) => {
  const t = setTimeout(fn, ms);
  return () => clearTimeout(t);
};

/** Added to the deadline a plan needs: the run's own start and finish. */
export const DEADLINE_BREATH_MS = 500;
/** Measured tasks worded per turn of the event loop. */
const JUDGE_BATCH = 32;
/** The longest a measured task waits to be worded while other tasks still wait to start. */
export const JUDGE_WAIT_MS = 2000;
/** CPU each task may take on the one thread that starts them all, counted into the deadline. */
export const TASK_CPU_ALLOWANCE_MS = 1;

/**
 * The overall deadline a plan needs so that no task is cut short by it, however large the fleet: every
 * task taking its whole timeout, `concurrency` at a time. A greedy queue finishes within
 * (n − 1) / c × longest + longest (Graham's bound); one wave when every task has a slot at once.
 */
export function planDeadline(tasks: readonly Pick<ProbeTask, 'timeoutMs'>[], concurrency: number): number {
  if (tasks.length === 0) return DEADLINE_BREATH_MS;
  let longest = 0;
  for (const t of tasks) longest = Math.max(longest, t.timeoutMs);
  const c = Math.max(1, concurrency);
  const waves = tasks.length <= c ? 1 : (tasks.length - 1) / c + 1;
  return Math.ceil(waves * longest + tasks.length * TASK_CPU_ALLOWANCE_MS + DEADLINE_BREATH_MS);
}

/** What other tasks wait on (a key's model listing, which every alias task awaits): started before
 * anything else, and its request out before the rest are started (RunOptions.lead). */
export function isLead(t: Pick<ProbeTask, 'probe'>): boolean {
  return t.probe === 'gateway';
}

/**
 * The order tasks are started in. First what others wait on (a key's listing, which every alias task
 * awaits), then what is vital (the UPS, BMC and firewall): if hanging targets ever fill every slot,
 * these were already asked. The listing goes before the power probes because it only sends a request,
 * where they may start child processes (ping), and a spawn holds the thread until the child has started. Then the slow risks (`risky`: a target that cost its timeout last time),
 * so their clocks start first. Then the rest, one from each site and kind in turn (gpu@fv, alias@fv,
 * alias@ana, seat@fv, …) rather than the inventory's order, so a dark site's targets, hanging side by
 * side in the inventory, never hold every slot while the other sites queue behind them.
 */
export function startOrder(tasks: readonly ProbeTask[], siteOf: (t: ProbeTask) => string, risky: (t: ProbeTask) => boolean = () => false): ProbeTask[] {
  const lead: ProbeTask[] = [];
  const vital: ProbeTask[] = [];
  const slow: ProbeTask[] = [];
  const groups = new Map<string, ProbeTask[]>();
  for (const t of tasks) {
    if (isLead(t) || t.group === 'power') {
      (isLead(t) ? lead : vital).push(t);
      continue;
    }
    if (risky(t)) {
      slow.push(t);
      continue;
    }
    const key = `${t.probe}@${siteOf(t)}`;
    const g = groups.get(key);
    if (g) g.push(t);
    else groups.set(key, [t]);
  }
  const queues = [...groups.values()];
  const out = [...lead, ...vital, ...slow];
  for (let i = 0, left = queues.length; left > 0; i++) {
    left = 0;
    for (const q of queues) {
      if (i < q.length) out.push(q[i]!);
      if (i + 1 < q.length) left += 1;
    }
  }
  return out;
}

export async function runTasks(tasks: ProbeTask[], opts: RunOptions): Promise<RunResult> {
  const setTimer = opts.setTimer ?? realTimer;
  const clock = opts.clock ?? (() => new Date());
  const total = tasks.length;
  const findings: Finding[] = [];
  const timedOut: string[] = [];
  let done = 0;
  opts.onEvent?.({ type: 'start', total });

  const deadline = new AbortController();
  const cancelDeadline = setTimer(() => deadline.abort(), opts.deadlineMs);
  const stopAll = opts.signal ? AbortSignal.any([deadline.signal, opts.signal]) : deadline.signal;
  // The running tasks' stops: one listener on the run's stop for all of them, not one each (adding and
  // removing a listener on an AbortSignal costs more per task than a set).
  const running = new Set<() => void>();
  const stopRunning = (): void => {
    for (const stop of [...running]) stop();
  };
  // Removed when the run ends: Node keeps a composite signal (AbortSignal.any) alive while it has a
  // listener, and this one would hold the whole run.
  stopAll.addEventListener('abort', stopRunning, { once: true });
  const stoppedWhy = (): 'deadline' | 'stopped' => (opts.signal?.aborted ? 'stopped' : 'deadline');

  const vantage = opts.vantage;
  const finish = (task: ProbeTask, measuredOut: Finding[], late: boolean): void => {
    done += 1;
    const out = vantage === undefined ? measuredOut : measuredOut.map((f) => stampVantage(f, vantage));
    // One at a time: a peer's 100,000 findings must not overflow the stack through push(...many).
    for (const f of out) findings.push(f);
    if (late) timedOut.push(task.id);
    opts.onEvent?.({ type: 'task', task, findings: out, done, total, timedOut: late });
  };

  // Measured, not yet worded (ProbeTask.measure): worded once the last task has started, or when the
  // oldest has waited JUDGE_WAIT_MS (progress never stalls longer, however many waves a dark site takes).
  const unjudged: { task: ProbeTask; judge: () => Finding[] }[] = [];
  const word = (task: ProbeTask, judge: () => Finding[]): Finding[] => {
    try {
      return judge();
    } catch (err) {
      return crashed(task, clock, err);
    }
  };
  let judging: Promise<void> | null = null;
  const judgeTimer: { cancel: (() => void) | null } = { cancel: null };
  /** Words every queued measurement, JUDGE_BATCH a turn, so the answers still coming in are read (and
   * their latency taken) between batches. One loop at a time; a call while it runs joins it. */
  const judgeQueued = (): Promise<void> =>
    (judging ??= (async () => {
      // Always a turn of the loop first: what the caller just started (a request) leaves before the
      // wording, and `judging` is set before this clears it.
      do {
        await new Promise<void>((r) => setImmediate(r));
        for (const u of unjudged.splice(0, JUDGE_BATCH)) finish(u.task, word(u.task, u.judge), false);
      } while (unjudged.length > 0);
      judging = null;
    })());
  // A failure in finish() surfaces from the run's own final judgeQueued(), which returns the same promise.
  const judgeSoon = (): void => void judgeQueued().catch(() => {});
  const queue = (task: ProbeTask, judge: () => Finding[]): void => {
    unjudged.push({ task, judge });
    judgeTimer.cancel ??= setTimer(() => {
      judgeTimer.cancel = null;
      judgeSoon();
    }, JUDGE_WAIT_MS);
  };

  let next = 0;
  const lead = opts.lead ?? 0;
  // Once the lead tasks are started: one turn of the loop (their requests go out), then the rest.
  let gate: Promise<void> | null = null;
  let gateOpen = lead <= 0 || lead >= tasks.length;
  const worker = async (): Promise<void> => {
    while (next < tasks.length) {
      if (next === lead && !gateOpen) {
        await (gate ??= new Promise<void>((r) =>
          setImmediate(() => {
            gateOpen = true;
            r();
          }),
        ));
        continue;
      }
      const task = tasks[next++]!;
      const last = next === tasks.length;
      if (last) judgeSoon();
      if (stopAll.aborted) {
        const why = stoppedWhy();
        finish(task, relabel(task, clock, why === 'stopped' ? 'stopped' : 'not_started', why === 'stopped' ? 'not probed: the run was stopped' : `not probed: the overall deadline of ${opts.deadlineMs} ms ran out first`), true);
        continue;
      }
      const started = runOne(task, stopAll, running, setTimer, clock, stoppedWhy);
      // After the last task's start, and a turn after what that start set going (its request written).
      if (last && opts.onAllStarted) {
        const told = opts.onAllStarted;
        setImmediate(() => told(() => running.size));
      }
      const outcome = await started;
      if (!outcome.judge) finish(task, outcome.findings, outcome.timedOut);
      else if (next < tasks.length) queue(task, outcome.judge);
      else finish(task, word(task, outcome.judge), false);
    }
  };
  try {
    await Promise.all(Array.from({ length: Math.max(1, Math.min(opts.concurrency, total)) }, worker));
    await judgeQueued();
  } finally {
    cancelDeadline();
    judgeTimer.cancel?.();
    stopAll.removeEventListener('abort', stopRunning);
  }
  return { findings, timedOut };
}

async function runOne(
  task: ProbeTask,
  stopAll: AbortSignal,
  running: Set<() => void>,
  setTimer: SetTimer,
  clock: () => Date,
  stoppedWhy: () => 'deadline' | 'stopped',
): Promise<{ findings: Finding[]; timedOut: boolean; judge?: () => Finding[] }> {
  // The task's signal: aborted by its own timeout or by the run's stop (through `running`), not
  // AbortSignal.any, which costs more per task than the rest of starting it.
  const own = new AbortController();
  const signal = own.signal;
  let cancelTimer = (): void => {};
  // The race: the task's answer, its own timeout, or the overall deadline — whichever settles `first`
  // first (one promise, settled once, rather than Promise.race over three: less to make per task).
  let settle!: (r: { findings: Finding[]; judge?: () => Finding[] } | 'timeout' | 'deadline') => void;
  const first = new Promise<{ findings: Finding[]; judge?: () => Finding[] } | 'timeout' | 'deadline'>((r) => (settle = r));
  const wait = task.waitMs;
  if (wait !== undefined && wait < task.timeoutMs) {
    // Its own timeout first, on its signal (it words "no answer within …" itself), then the stop.
    cancelTimer = setTimer(() => {
      own.abort(timeoutError(wait));
      cancelTimer = setTimer(() => settle('timeout'), task.timeoutMs - wait);
    }, wait);
  } else cancelTimer = setTimer(() => settle('timeout'), task.timeoutMs);
  const onStop = (): void => {
    settle('deadline');
    own.abort(stopAll.reason);
  };
  running.add(onStop);
  const failed = (err: unknown): void => settle({ findings: crashed(task, clock, err) });
  try {
    if (task.measure) task.measure(signal).then((judge) => settle({ findings: [], judge }), failed);
    else task.run(signal).then((findings) => settle({ findings }), failed);
  } catch (err) {
    failed(err); // a probe that threw before its first await
  }
  try {
    const won = await first;
    if (typeof won === 'object') return { ...won, timedOut: false };
    own.abort();
    if (won === 'timeout') return { findings: task.onTimeout(task.timeoutMs), timedOut: true };
    const why = stoppedWhy();
    return { findings: relabel(task, clock, why, why === 'stopped' ? 'no answer before the run was stopped' : 'no answer before the overall deadline (stopped)'), timedOut: true };
  } finally {
    cancelTimer();
    running.delete(onStop);
  }
}

function crashed(task: ProbeTask, clock: () => Date, err: unknown): Finding[] {
  const message = err instanceof Error ? err.message : String(err);
  return relabel(task, clock, 'probe_crashed', `the probe itself failed: ${(message.split('\n')[0] ?? '').slice(0, 200)}`);
}

/** The task's own timeout findings (they carry its subjects and data), marked as not measured and why. */
function relabel(task: ProbeTask, clock: () => Date, why: InferredWhy & Reason, detail: string): Finding[] {
  let base: Finding[];
  try {
    base = task.onTimeout(task.timeoutMs);
  } catch {
    base = [];
  }
  if (base.length === 0 && why === 'probe_crashed') {
    base = [
      {
        probe: task.probe,
        target: task.target,
        status: 'unknown',
        subject: task.subject,
        detail,
        measuredBy: '',
        provenance: inferred(why, task.subject),
        observedAt: '',
        latencyMs: null,
        ...(task.site ? { site: task.site } : {}),
        ...(task.host ? { host: task.host } : {}),
        data: { kind: 'none' },
      },
    ];
  }
  const observedAt = clock().toISOString();
  return base.map((f) => {
    const provenance = inferred(why, f.subject);
    // Frozen, as makeFinding's are: what is taken from a finding as it comes in stays true of it.
    return Object.freeze({ ...f, status: 'unknown', reason: why, detail, measuredBy: renderProvenance(provenance), provenance, observedAt, latencyMs: null });
  });
}
