import { test } from 'node:test';
import assert from 'node:assert/strict';
import { runTasks, type RunEvent } from '../../src/probes/runner.ts';
import type { Finding, ProbeTask } from '../../src/probes/types.ts';

function finding(target: string, status: Finding['status'], detail = 'answered'): Finding {
  return { probe: 'alias', target, status, detail, measuredBy: 'test', latencyMs: 1 };
}

/** A task that answers after `ms`, or never (`ms === null`), and notices its abort signal. */
function task(target: string, ms: number | null, timeoutMs = 200, aborted: string[] = []): ProbeTask {
  return {
    id: target,
    group: 'aliases',
    probe: 'alias',
    target,
    timeoutMs,
    run: (signal) =>
      new Promise((resolve) => {
        signal.addEventListener('abort', () => aborted.push(target), { once: true });
        if (ms !== null) setTimeout(() => resolve([finding(target, 'up')]), ms);
      }),
    onTimeout: (t) => [finding(target, 'down', `no answer within ${t} ms`)],
  };
}

test('a hanging task costs its own timeout and never delays the others', async () => {
  const events: { target: string; at: number }[] = [];
  const t0 = performance.now();
  const aborted: string[] = [];
  const result = await runTasks([task('hangs', null, 300, aborted), task('fast', 10), task('slow', 100)], {
    concurrency: 8,
    deadlineMs: 5000,
    onEvent: (e: RunEvent) => {
      if (e.type === 'task') events.push({ target: e.task.target, at: performance.now() - t0 });
    },
  });
  const elapsed = performance.now() - t0;
  assert.deepEqual(events.map((e) => e.target), ['fast', 'slow', 'hangs']);
  assert.ok(events[0]!.at < 250, `fast streamed at ${events[0]!.at} ms, not held back by the hang`);
  assert.ok(elapsed >= 290 && elapsed < 1300, `whole run took ${elapsed} ms for a 300 ms timeout`);
  assert.equal(result.findings.find((f) => f.target === 'hangs')?.detail, 'no answer within 300 ms');
  assert.deepEqual(result.timedOut, ['hangs']);
  assert.deepEqual(aborted, ['hangs'], 'the timed-out task is told to stop its work');
});

test('tasks run at once, not one after another', async () => {
  const tasks = Array.from({ length: 20 }, (_, i) => task(`t${i}`, 100, 1000));
  const t0 = performance.now();
  const result = await runTasks(tasks, { concurrency: 32, deadlineMs: 5000 });
  const elapsed = performance.now() - t0;
  assert.equal(result.findings.length, 20);
  assert.ok(elapsed < 1000, `20 × 100 ms tasks took ${elapsed} ms: they were serialised`);
});

test('the overall deadline stops running tasks and reports the ones never started', async () => {
  const tasks = [task('a', null, 10_000), task('b', null, 10_000), task('c', 10, 10_000)];
  const t0 = performance.now();
  const result = await runTasks(tasks, { concurrency: 2, deadlineMs: 200 });
  const elapsed = performance.now() - t0;
  assert.ok(elapsed < 1200, `deadline of 200 ms held the run for ${elapsed} ms`);
  const byTarget = Object.fromEntries(result.findings.map((f) => [f.target, f]));
  assert.match(byTarget.a!.detail, /overall deadline/);
  assert.equal(byTarget.a!.status, 'unknown');
  assert.match(byTarget.c!.detail, /not probed: the overall deadline of 200 ms/);
});

test('a probe that throws becomes an unknown finding, and the run goes on', async () => {
  const broken: ProbeTask = { ...task('broken', 1), run: () => Promise.reject(new Error('boom\nstack')) };
  const result = await runTasks([broken, task('fine', 5)], { concurrency: 4, deadlineMs: 1000 });
  const b = result.findings.find((f) => f.target === 'broken');
  assert.equal(b?.status, 'unknown');
  assert.equal(b?.detail, 'the probe itself failed: boom');
  assert.equal(result.findings.find((f) => f.target === 'fine')?.status, 'up');
});

test('progress events count every task once, in order of finishing', async () => {
  const seen: number[] = [];
  let total = -1;
  await runTasks([task('x', 30), task('y', 5), task('z', 15)], {
    concurrency: 3,
    deadlineMs: 1000,
    onEvent: (e) => (e.type === 'start' ? (total = e.total) : seen.push(e.done)),
  });
  assert.equal(total, 3);
  assert.deepEqual(seen, [1, 2, 3]);
});
