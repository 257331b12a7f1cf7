// The runner under virtual time: every timeout, deadline and answer is a timer the test fires.
import { test } from 'node:test';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import assert from 'node:assert/strict';
import { makeFinding, measured } from '../../src/probes/finding.ts';
import { DEADLINE_BREATH_MS, JUDGE_WAIT_MS, planDeadline, runTasks, startOrder, type RunEvent } from '../../src/probes/runner.ts';
import type { Finding, ProbeTask } from '../../src/probes/types.ts';
import { FakeTime } from '../helpers/clock.ts';

const clock = (): Date => new Date('2026-12-03T03:00:00.000Z');

function finding(target: string, status: Finding['status']): Finding {
  return makeFinding(clock, {
    probe: 'alias',
    target,
    subject: { kind: 'alias', name: target, inInventory: true },
    status,
    reason: status === 'up' ? undefined : 'timeout',
    detail: status,
    provenance: measured({ how: 'http', method: 'GET', url: `http://127.0.0.1:1/${target}` }),
    latencyMs: 1,
    data: { kind: 'alias', aliasKind: 'chat', paid: false, routedTo: [], routedSeats: [], keys: [], exercised: true, attribution: null },
  });
}

/** A task that answers after `ms` of virtual time, or never (`ms === null`), and notices its abort signal. */
function task(time: FakeTime, target: string, ms: number | null, timeoutMs = 200, aborted: string[] = []): ProbeTask {
  return {
    id: target,
    group: 'aliases',
    probe: 'alias',
    target,
    subject: { kind: 'alias', name: target, inInventory: true },
    timeoutMs,
    run: (signal) =>
      new Promise((resolve) => {
        signal.addEventListener('abort', () => aborted.push(target), { once: true });
        if (ms !== null) time.setTimer(() => resolve([finding(target, 'up')]), ms);
      }),
    onTimeout: () => [finding(target, 'down')],
  };
}

test('a hanging task costs its own timeout and never delays the others; each streams as it finishes', async () => {
  const time = new FakeTime();
  const events: { target: string; at: number }[] = [];
  const aborted: string[] = [];
  const run = runTasks([task(time, 'hangs', null, 300, aborted), task(time, 'fast', 10), task(time, 'slow', 100)], {
    concurrency: 8,
    deadlineMs: 5000,
    setTimer: time.setTimer,
    clock,
    onEvent: (e: RunEvent) => {
      if (e.type === 'task') events.push({ target: e.task.target, at: time.now });
    },
  });
  await time.advance(10);
  assert.deepEqual(events, [{ target: 'fast', at: 10 }], 'fast is streamed at 10 ms, while the others still run');
  await time.advance(90);
  assert.deepEqual(events.map((e) => e.target), ['fast', 'slow']);
  await time.advance(200);
  const result = await run;
  assert.deepEqual(events, [
    { target: 'fast', at: 10 },
    { target: 'slow', at: 100 },
    { target: 'hangs', at: 300 },
  ]);
  assert.equal(result.findings.find((f) => f.target === 'hangs')?.status, 'down');
  assert.deepEqual(result.timedOut, ['hangs']);
  assert.deepEqual(aborted, ['hangs'], 'the timed-out task is told to stop its work');
  assert.equal(time.pending, 0, 'no timer left behind');
});

test('a task whose own timeout the runner keeps (waitMs): its signal says TimeoutError then, it words its own finding; one that ignores it is stopped at timeoutMs', async () => {
  const time = new FakeTime();
  const reasons: string[] = [];
  const kept = (target: string, listens: boolean): ProbeTask => ({
    ...task(time, target, null, 300),
    waitMs: 100,
    run: (signal) =>
      new Promise((resolve) => {
        if (!listens) return;
        signal.addEventListener('abort', () => {
          reasons.push(`${target}: ${(signal.reason as Error).name}: ${(signal.reason as Error).message}`);
          resolve([{ ...finding(target, 'down'), detail: 'its own words' }]);
        });
      }),
  });
  const events: { target: string; at: number; detail: string; timedOut: boolean }[] = [];
  const run = runTasks([kept('listens', true), kept('deaf', false)], {
    concurrency: 8,
    deadlineMs: 5000,
    setTimer: time.setTimer,
    clock,
    onEvent: (e: RunEvent) => {
      if (e.type === 'task') events.push({ target: e.task.target, at: time.now, detail: e.findings[0]!.detail, timedOut: e.timedOut });
    },
  });
  await time.advance(99);
  assert.deepEqual(reasons, [], 'nothing aborted before its own timeout');
  await time.advance(1);
  assert.deepEqual(reasons, ['listens: TimeoutError: no answer within 100 ms']);
  assert.deepEqual(events, [{ target: 'listens', at: 100, detail: 'its own words', timedOut: false }], 'its own finding, at its own timeout');
  await time.advance(200);
  assert.deepEqual(events[1], { target: 'deaf', at: 300, detail: 'down', timedOut: true }, 'the deaf one stopped by the runner at timeoutMs, with its onTimeout finding');
  await run;
  assert.equal(time.pending, 0, 'no timer left behind');
});

test('tasks run at once, not one after another: 20 × 100 ms tasks are all done at 100 ms', async () => {
  const time = new FakeTime();
  const run = runTasks(Array.from({ length: 20 }, (_, i) => task(time, `t${i}`, 100, 1000)), { concurrency: 32, deadlineMs: 5000, setTimer: time.setTimer, clock });
  await time.advance(100);
  const result = await run;
  assert.equal(result.findings.length, 20);
  assert.ok(result.findings.every((f) => f.status === 'up'));
});

test('the overall deadline stops running tasks and reports the ones never started, each with its own reason', async () => {
  const time = new FakeTime();
  const run = runTasks([task(time, 'a', null, 10_000), task(time, 'b', null, 10_000), task(time, 'c', 10, 10_000)], { concurrency: 2, deadlineMs: 200, setTimer: time.setTimer, clock });
  await time.advance(200);
  const result = await run;
  const byTarget = Object.fromEntries(result.findings.map((f) => [f.target, f]));
  assert.equal(byTarget.a!.status, 'unknown');
  assert.equal(byTarget.a!.reason, 'deadline');
  assert.equal(byTarget.a!.provenance.kind, 'inferred');
  assert.equal(byTarget.c!.reason, 'not_started');
  assert.equal(byTarget.c!.observedAt, '2026-12-03T03:00:00.000Z');
});

test('a run stopped by a person says stopped, not deadline', async () => {
  const time = new FakeTime();
  const ctl = new AbortController();
  const run = runTasks([task(time, 'a', null, 10_000), task(time, 'b', null, 10_000), task(time, 'c', 10, 10_000)], { concurrency: 2, deadlineMs: 5000, setTimer: time.setTimer, clock, signal: ctl.signal });
  await time.advance(1);
  ctl.abort();
  await time.advance(1);
  const result = await run;
  assert.deepEqual(new Set(result.findings.map((f) => f.reason)), new Set(['stopped']));
});

test('a probe that throws becomes an unknown finding with reason probe_crashed, and the run goes on', async () => {
  const time = new FakeTime();
  const broken: ProbeTask = { ...task(time, 'broken', 1), run: () => Promise.reject(new Error('boom\nstack')) };
  const run = runTasks([broken, task(time, 'fine', 5)], { concurrency: 4, deadlineMs: 1000, setTimer: time.setTimer, clock });
  await time.advance(5);
  const result = await run;
  const b = result.findings.find((f) => f.target === 'broken');
  assert.equal(b?.status, 'unknown');
  assert.equal(b?.reason, 'probe_crashed');
  assert.equal(b?.detail, 'the probe itself failed: boom');
  assert.equal(result.findings.find((f) => f.target === 'fine')?.status, 'up');
});

test('a probe that throws before it returns a promise is probe_crashed too, not the whole run lost', async () => {
  const time = new FakeTime();
  const thrower: ProbeTask = {
    ...task(time, 'thrower', 1),
    run: () => {
      throw new Error('bad plan');
    },
  };
  const run = runTasks([thrower, task(time, 'fine', 5)], { concurrency: 4, deadlineMs: 1000, setTimer: time.setTimer, clock });
  await time.advance(5);
  const result = await run;
  assert.deepEqual(
    result.findings.map((f) => [f.target, f.status, f.reason ?? null]).sort(),
    [
      ['fine', 'up', null],
      ['thrower', 'unknown', 'probe_crashed'],
    ],
  );
});

test('progress events come in finishing order, not input order, each counted once', async () => {
  const time = new FakeTime();
  const seen: { target: string; done: number }[] = [];
  let total = -1;
  const run = runTasks([task(time, 'x', 30), task(time, 'y', 5), task(time, 'z', 15)], {
    concurrency: 3,
    deadlineMs: 1000,
    setTimer: time.setTimer,
    clock,
    onEvent: (e) => (e.type === 'start' ? (total = e.total) : seen.push({ target: e.task.target, done: e.done })),
  });
  await time.advance(5);
  assert.deepEqual(seen, [{ target: 'y', done: 1 }], 'y is reported when it finishes, not held for x');
  await time.advance(25);
  await run;
  assert.equal(total, 3);
  assert.deepEqual(seen, [
    { target: 'y', done: 1 },
    { target: 'z', done: 2 },
    { target: 'x', done: 3 },
  ]);
});

/** A task in two halves (ProbeTask.measure): measured after `ms` of virtual time, worded when judged. */
function measuredTask(time: FakeTime, target: string, ms: number, log: string[], judge?: () => Finding[]): ProbeTask {
  const measure = (): Promise<() => Finding[]> =>
    new Promise((resolve) => {
      log.push(`start ${target}`);
      time.setTimer(() => {
        const at = time.now;
        resolve(
          judge ??
            (() => {
              log.push(`judge ${target}`);
              return [{ ...finding(target, 'up'), detail: `measured at ${at} ms` }];
            }),
        );
      }, ms);
    });
  return { ...task(time, target, ms), measure, run: async () => (await measure())() };
}

test('a big fleet: every measuring task starts before any answer is worded; every answer is still reported', async () => {
  const time = new FakeTime();
  const log: string[] = [];
  const events: { target: string; done: number }[] = [];
  const tasks = Array.from({ length: 9 }, (_, i) => measuredTask(time, `a${i}`, 10 + i, log));
  const run = runTasks(tasks, { concurrency: 3, deadlineMs: 5000, setTimer: time.setTimer, clock, onEvent: (e) => e.type === 'task' && events.push({ target: e.task.target, done: e.done }) });
  await time.advance(100);
  const result = await run;
  const lastStart = log.findLastIndex((l) => l.startsWith('start'));
  const firstJudge = log.findIndex((l) => l.startsWith('judge'));
  assert.equal(log.filter((l) => l.startsWith('start')).length, 9);
  assert.ok(lastStart < firstJudge, `all started before any was worded: ${log.join(', ')}`);
  assert.equal(result.findings.length, 9);
  assert.equal(events.length, 9, 'each task reported once, as it was worded');
  assert.equal(new Set(events.map((e) => e.target)).size, 9);
  assert.deepEqual(events.map((e) => e.done), [1, 2, 3, 4, 5, 6, 7, 8, 9]);
  // Worded late, but the finding says when it was measured (a0 answered at 10 ms, in the first wave).
  assert.equal(result.findings.find((f) => f.target === 'a0')?.detail, 'measured at 10 ms');
  assert.deepEqual(result.timedOut, []);
});

test('hundreds measured and queued are all worded, a batch a turn, each once', async () => {
  const time = new FakeTime();
  const log: string[] = [];
  const tasks = Array.from({ length: 300 }, (_, i) => measuredTask(time, `a${i}`, 1 + (i % 7), log));
  const run = runTasks(tasks, { concurrency: 10, deadlineMs: 60_000, setTimer: time.setTimer, clock });
  await time.advance(1000);
  const result = await run;
  assert.equal(result.findings.length, 300);
  assert.equal(new Set(result.findings.map((f) => f.target)).size, 300);
  assert.equal(log.filter((l) => l.startsWith('judge')).length, 300, 'each worded once');
  assert.equal(time.pending, 0, 'no timer left behind');
});

test('answers measured at once (no waiting at all) are every one worded before the run returns', async () => {
  const judged: string[] = [];
  const instant = (target: string): ProbeTask => {
    const measure = (): Promise<() => Finding[]> =>
      Promise.resolve(() => {
        judged.push(target);
        return [finding(target, 'up')];
      });
    return { ...task(new FakeTime(), target, 1), measure, run: async () => (await measure())() };
  };
  const result = await runTasks(Array.from({ length: 500 }, (_, i) => instant(`i${i}`)), { concurrency: 8, deadlineMs: 60_000, clock });
  assert.equal(result.findings.length, 500);
  assert.equal(judged.length, 500);
});

test('while slow targets hold the slots, what was measured is worded within JUDGE_WAIT_MS, not after them', async () => {
  const time = new FakeTime();
  const log: string[] = [];
  const events: { target: string; at: number }[] = [];
  // Two slots: `quick` is measured at 1 ms, then two hanging targets hold both slots for 10 s while `later` waits to start.
  const tasks = [task(time, 'hangs1', null, 10_000), measuredTask(time, 'quick', 1, log), task(time, 'hangs2', null, 10_000), measuredTask(time, 'later', 1, log)];
  const run = runTasks(tasks, { concurrency: 2, deadlineMs: 60_000, setTimer: time.setTimer, clock, onEvent: (e) => e.type === 'task' && events.push({ target: e.task.target, at: time.now }) });
  await time.advance(JUDGE_WAIT_MS);
  assert.deepEqual(events, [], 'held while tasks wait to start');
  await time.advance(1);
  assert.deepEqual(events, [{ target: 'quick', at: 1 + JUDGE_WAIT_MS }], 'worded at its wait, though `later` has not started');
  await time.advance(10_000);
  const result = await run;
  assert.equal(result.findings.find((f) => f.target === 'quick')?.status, 'up');
  assert.equal(result.findings.find((f) => f.target === 'later')?.status, 'up');
});

test('a run stopped while answers wait to be worded still reports them as measured; the unstarted as stopped', async () => {
  const time = new FakeTime();
  const log: string[] = [];
  const ctl = new AbortController();
  const tasks = [task(time, 'hangs', null, 10_000), measuredTask(time, 'm0', 1, log), measuredTask(time, 'm1', 1, log), task(time, 'hangs2', null, 10_000), measuredTask(time, 'never', 1, log)];
  const run = runTasks(tasks, { concurrency: 2, deadlineMs: 60_000, setTimer: time.setTimer, clock, signal: ctl.signal });
  await time.advance(5);
  assert.deepEqual(log.filter((l) => l.startsWith('judge')), [], 'm0 and m1 measured, not yet worded');
  ctl.abort();
  await time.advance(1);
  const result = await run;
  const by = Object.fromEntries(result.findings.map((f) => [f.target, f]));
  assert.equal(by.m0?.status, 'up');
  assert.equal(by.m1?.status, 'up');
  assert.equal(by.never?.reason, 'stopped');
  assert.equal(by.hangs?.reason, 'stopped');
  assert.deepEqual(new Set(result.timedOut), new Set(['hangs', 'hangs2', 'never']), 'the measured ones did not time out');
});

test('a fleet within the concurrency: each answer is worded as it comes, nothing held back', async () => {
  const time = new FakeTime();
  const log: string[] = [];
  const events: { target: string; at: number }[] = [];
  const run = runTasks([measuredTask(time, 'fast', 5, log), measuredTask(time, 'slow', 50, log)], {
    concurrency: 8,
    deadlineMs: 5000,
    setTimer: time.setTimer,
    clock,
    onEvent: (e) => e.type === 'task' && events.push({ target: e.task.target, at: time.now }),
  });
  await time.advance(5);
  assert.deepEqual(events, [{ target: 'fast', at: 5 }]);
  await time.advance(45);
  await run;
  assert.deepEqual(events, [
    { target: 'fast', at: 5 },
    { target: 'slow', at: 50 },
  ]);
});

test('a wording that throws is that task\'s probe_crashed finding; the others are worded all the same', async () => {
  const time = new FakeTime();
  const log: string[] = [];
  const tasks = [
    measuredTask(time, 'bad', 1, log, () => {
      throw new Error('cannot word\nthis');
    }),
    ...Array.from({ length: 4 }, (_, i) => measuredTask(time, `ok${i}`, 2, log)),
  ];
  const run = runTasks(tasks, { concurrency: 2, deadlineMs: 5000, setTimer: time.setTimer, clock });
  await time.advance(20);
  const result = await run;
  const bad = result.findings.find((f) => f.target === 'bad');
  assert.equal(bad?.reason, 'probe_crashed');
  assert.equal(bad?.detail, 'the probe itself failed: cannot word');
  assert.equal(result.findings.filter((f) => f.status === 'up').length, 4);
});

test('a task answering 100,000 findings costs no stack: the run and its other results survive', async () => {
  const time = new FakeTime();
  const many: ProbeTask = { ...task(time, 'many', 1), run: () => Promise.resolve(Array.from({ length: 130_000 }, () => finding('m', 'up'))) };
  const run = runTasks([many, task(time, 'ups', 2)], { concurrency: 4, deadlineMs: 1000, setTimer: time.setTimer, clock });
  await time.advance(2);
  const result = await run;
  assert.equal(result.findings.length, 130_001);
  assert.ok(result.findings.some((f) => f.target === 'ups'));
});

test('the deadline follows from the plan: one wave when every task has a slot, more as the fleet outgrows the concurrency', () => {
  const tasks = (n: number, ms = 3150): { timeoutMs: number }[] => Array.from({ length: n }, () => ({ timeoutMs: ms }));
  assert.equal(planDeadline([], 128), DEADLINE_BREATH_MS);
  // 30 tasks, 64 slots: every task starts at once; a hanging one costs its timeout.
  assert.equal(planDeadline(tasks(30), 64), 3150 + 30 + DEADLINE_BREATH_MS);
  // The longest timeout decides a wave.
  assert.equal(planDeadline([...tasks(10, 100), { timeoutMs: 5000 }], 64), 5000 + 11 + DEADLINE_BREATH_MS);
  // 10,000 aliases at 128: every task may take its whole timeout, 128 at a time — and the deadline
  // covers it, where a constant (the old 10 s, or timeout + 500 ms) would stop most of them unstarted.
  const big = planDeadline(tasks(10_000), 128);
  assert.ok(big >= Math.ceil(10_000 / 128) * 3150, `${big}`);
  assert.ok(big > 10_000 && big > 3150 + 500);
  // Monotone in the fleet's size, and falling with the concurrency.
  assert.ok(planDeadline(tasks(3000), 128) < planDeadline(tasks(3001), 128));
  assert.ok(planDeadline(tasks(3000), 256) < planDeadline(tasks(3000), 128));
});

test('a greedy queue never needs more than the planned deadline, whatever the mix of durations', async () => {
  // Graham's bound, checked on the runner itself under virtual time: random durations up to the timeout.
  let seed = 7;
  const rand = (): number => ((seed = (seed * 48271) % 2147483647) / 2147483647);
  for (const [n, c] of [[50, 8], [200, 16], [33, 32]] as const) {
    const time = new FakeTime();
    const ts = Array.from({ length: n }, (_, i) => task(time, `t${i}`, Math.round(rand() * 190) + 1, 200));
    const deadline = planDeadline(ts, c);
    const run = runTasks(ts, { concurrency: c, deadlineMs: deadline, setTimer: time.setTimer, clock });
    await time.advance(deadline);
    const result = await run;
    assert.equal(result.findings.filter((f) => f.status === 'up').length, n, `${n} tasks at ${c}: all done within ${deadline} ms`);
  }
});

test('start order: the vital and the awaited first, then one from each site and kind in turn', () => {
  const time = new FakeTime();
  const t = (id: string, over: Partial<ProbeTask>): ProbeTask => ({ ...task(time, id, 1), ...over });
  const site = new Map<string, string>();
  const mk = (id: string, probe: ProbeTask['probe'], group: ProbeTask['group'], where: string): ProbeTask => {
    site.set(id, where);
    return t(id, { probe, group });
  };
  const tasks = [
    mk('alias:fv1', 'alias', 'aliases', 'fv'),
    mk('alias:fv2', 'alias', 'aliases', 'fv'),
    mk('alias:fv3', 'alias', 'aliases', 'fv'),
    mk('alias:ana1', 'alias', 'aliases', 'ana'),
    mk('gpu:fv', 'gpu', 'gpus', 'fv'),
    mk('gpu:ana', 'gpu', 'gpus', 'ana'),
    mk('gateway:admin', 'gateway', 'aliases', ''),
    mk('power:ups:fv', 'ups', 'power', 'fv'),
    mk('power:bmc:ana', 'bmc', 'power', 'ana'),
  ];
  const order = startOrder(tasks, (x) => site.get(x.id) ?? '').map((x) => x.id);
  assert.deepEqual(order, ['gateway:admin', 'power:ups:fv', 'power:bmc:ana', 'alias:fv1', 'alias:ana1', 'gpu:fv', 'gpu:ana', 'alias:fv2', 'alias:fv3']);
  assert.equal(new Set(order).size, tasks.length, 'every task once');
  // A slow risk (it cost its timeout last time) starts right after the vital ones, its clock first.
  const risky = startOrder(tasks, (x) => site.get(x.id) ?? '', (x) => x.id === 'alias:fv3').map((x) => x.id);
  assert.deepEqual(risky.slice(0, 4), ['gateway:admin', 'power:ups:fv', 'power:bmc:ana', 'alias:fv3']);
});

test('start order: a listing others wait on goes before the power probes, wherever the plan put it', () => {
  const time = new FakeTime();
  const t = (id: string, probe: ProbeTask['probe'], group: ProbeTask['group']): ProbeTask => ({ ...task(time, id, 1), probe, group });
  const tasks = [t('power:ups:fv', 'ups', 'power'), t('alias:a1', 'alias', 'aliases'), t('power:bmc:fv', 'bmc', 'power'), t('gateway:admin', 'gateway', 'aliases')];
  assert.deepEqual(
    startOrder(tasks, () => 'fv').map((x) => x.id),
    ['gateway:admin', 'power:ups:fv', 'power:bmc:fv', 'alias:a1'],
  );
});

test('lead tasks: their I/O gets a turn of the event loop before the next task is started', async () => {
  const log: string[] = [];
  const starting = (id: string, onStart: () => void): ProbeTask => ({
    ...task(new FakeTime(), id, 1),
    run: async () => {
      onStart();
      return [finding(id, 'up')];
    },
  });
  // The lead task's request would go out on the loop's next turn (setImmediate stands for it).
  const lead = starting('listing', () => void setImmediate(() => log.push('listing out')));
  const next = starting('alias', () => log.push('alias started'));
  await runTasks([lead, next], { concurrency: 8, deadlineMs: 5000, clock, lead: 1 });
  assert.deepEqual(log, ['listing out', 'alias started']);
  // Without a lead, every task starts in the same go, before anything goes out.
  log.length = 0;
  await runTasks([starting('listing', () => void setImmediate(() => log.push('listing out'))), starting('alias', () => log.push('alias started'))], { concurrency: 8, deadlineMs: 5000, clock });
  assert.deepEqual(log, ['alias started', 'listing out']);
});

test('onAllStarted: once, after the last task has started and its request has had its turn, told how many still run; not while tasks wait for a slot', async () => {
  const log: string[] = [];
  const time = new FakeTime();
  const starting = (id: string, ms: number): ProbeTask => ({
    ...task(time, id, ms),
    run: (signal) => {
      log.push(`${id} started`);
      // Its request goes out on the loop's next turn (setImmediate stands for it).
      setImmediate(() => log.push(`${id} out`));
      return task(time, id, ms).run(signal);
    },
  });
  // Two slots for three tasks: the third starts only when the first answers.
  let running: (() => number) | null = null;
  const run = runTasks([starting('a', 10), starting('b', 50), starting('c', 10)], {
    concurrency: 2,
    deadlineMs: 5000,
    clock,
    setTimer: time.setTimer,
    onAllStarted: (r) => {
      running = r;
      log.push('all started');
    },
  });
  await new Promise((r) => setImmediate(r));
  await new Promise((r) => setImmediate(r));
  assert.ok(!log.includes('all started'), log.join(', '));
  await time.advance(10);
  for (let i = 0; i < 3; i++) await new Promise((r) => setImmediate(r));
  assert.ok(log.includes('c out') && log.indexOf('all started') > log.indexOf('c out'), log.join(', '));
  // b and c are still running; as they end, fewer may ask again.
  assert.equal(running!(), 2);
  await time.advance(100);
  await run;
  assert.equal(running!(), 0);
  assert.equal(log.filter((l) => l === 'all started').length, 1);
});

test('a finished run holds nothing: its tasks and findings can be collected while the caller keeps its signal (the bot\'s long life)', async () => {
  setFlagsFromString('--expose-gc');
  const gc = runInNewContext('gc') as () => void;
  const caller = new AbortController(); // the bot's stop, alive as long as the bot
  let tasksRef: WeakRef<ProbeTask[]> | undefined;
  await (async () => {
    const time = new FakeTime();
    const log: string[] = [];
    const tasks = Array.from({ length: 5 }, (_, i) => measuredTask(time, `a${i}`, 1, log));
    tasksRef = new WeakRef(tasks);
    const run = runTasks(tasks, { concurrency: 2, deadlineMs: 5000, setTimer: time.setTimer, clock, signal: caller.signal });
    await time.advance(10);
    await run;
  })();
  for (let i = 0; i < 5 && tasksRef!.deref() !== undefined; i++) {
    await new Promise((r) => setImmediate(r));
    gc();
  }
  assert.equal(tasksRef!.deref(), undefined, 'the run is still reachable after it ended');
  assert.equal(caller.signal.aborted, false);
});
