// The probe queue alone: at most `limit` jobs at once, the rest told their place and started in the
// order asked, and a job that fails (or a teller that throws) leaves its slot to the next. Jobs are
// held by hand; nothing here waits on a clock.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { MAX_PROBES_AT_ONCE, probeQueue, type Place } from '../../src/slack/probe-queue.ts';

/** A job that runs until the test lets it go. */
function holder() {
  const started: string[] = [];
  const gates = new Map<string, { release: () => void; fail: (e: Error) => void }>();
  let now = 0;
  let most = 0;
  const job = (name: string) => (): Promise<string> => {
    started.push(name);
    now += 1;
    most = Math.max(most, now);
    return new Promise<string>((resolve, reject) => {
      gates.set(name, { release: () => resolve(name), fail: reject });
    }).finally(() => (now -= 1));
  };
  return {
    job,
    started,
    release: (name: string) => gates.get(name)!.release(),
    fail: (name: string, e: Error) => gates.get(name)!.fail(e),
    get now() {
      return now;
    },
    get most() {
      return most;
    },
  };
}

/** Lets every settled promise run its reactions (one turn of the event loop, no timer). */
const settle = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

test('at most MAX_PROBES_AT_ONCE (4) jobs run at once, however many are asked for', async () => {
  const q = probeQueue();
  assert.equal(q.limit, MAX_PROBES_AT_ONCE);
  assert.equal(MAX_PROBES_AT_ONCE, 4);
  const h = holder();
  const names = Array.from({ length: 11 }, (_, i) => `p${i}`);
  const all = Promise.all(names.map((n) => q.run(h.job(n))));
  await settle();
  assert.equal(h.now, 4);
  assert.deepEqual(q.counts(), { running: 4, waiting: 7 });
  // Let them go out of order, one at a time: a slot freed is taken at once, never more than four.
  for (const n of ['p2', 'p0', 'p3', 'p1', 'p5', 'p4', 'p7', 'p6', 'p9', 'p8', 'p10']) {
    h.release(n);
    await settle();
    assert.ok(h.now <= 4, `${h.now} running after ${n} finished`);
  }
  assert.deepEqual(await all, names, 'each caller gets its own job’s result');
  assert.equal(h.most, 4, 'the bound was reached and never passed');
  assert.deepEqual(q.counts(), { running: 0, waiting: 0 });
});

test('a job that has to wait is told its place first: how many wait ahead of it, how many run', async () => {
  const q = probeQueue(2);
  const h = holder();
  const places: [string, Place][] = [];
  const ask = (n: string) => q.run(h.job(n), (p) => void places.push([n, p]));
  const runs = ['a', 'b', 'c', 'd', 'e'].map(ask);
  assert.deepEqual(places, [
    ['c', { ahead: 0, running: 2, limit: 2 }],
    ['d', { ahead: 1, running: 2, limit: 2 }],
    ['e', { ahead: 2, running: 2, limit: 2 }],
  ], 'told at once, before anything settles; the first two run and are told nothing');
  h.release('a');
  await settle();
  const f = ask('f');
  assert.deepEqual(places.at(-1), ['f', { ahead: 2, running: 2, limit: 2 }], 'c took a’s slot: d and e wait ahead of f');
  for (const n of ['b', 'c', 'd', 'e', 'f']) {
    await settle();
    h.release(n);
  }
  await Promise.all([...runs, f]);
});

test('waiting jobs start in the order they were asked, whichever running job finishes first', async () => {
  const q = probeQueue(2);
  const h = holder();
  const runs = ['a', 'b', 'c', 'd', 'e'].map((n) => q.run(h.job(n)));
  await settle();
  h.release('b');
  await settle();
  h.release('c');
  await settle();
  h.release('a');
  await settle();
  assert.deepEqual(h.started, ['a', 'b', 'c', 'd', 'e']);
  h.release('d');
  h.release('e');
  await Promise.all(runs);
});

test('a job that fails, throws at once, or whose teller throws does not jam the queue', async () => {
  const q = probeQueue(1);
  const h = holder();
  const failing = q.run(h.job('fails'));
  const throwing = q.run(() => {
    throw new Error('thrown before any promise');
  });
  const after = q.run(h.job('after'));
  await settle();
  h.fail('fails', new Error('ssh: connection refused'));
  await assert.rejects(failing, /connection refused/, 'the failure reaches its own caller');
  await assert.rejects(throwing, /thrown before any promise/);
  await settle();
  assert.deepEqual(h.started, ['fails', 'after'], 'the next job took the slot');
  await assert.rejects(q.run(h.job('never'), () => {
    throw new Error('the teller broke');
  }), /the teller broke/);
  h.release('after');
  assert.equal(await after, 'after');
  assert.deepEqual(q.counts(), { running: 0, waiting: 0 }, 'nothing left holding a slot');
  assert.equal(await q.run(async () => 'still running probes'), 'still running probes');
});

test('a queue runs at least one job at once', () => {
  assert.throws(() => probeQueue(0), /at least one probe at once, not 0/);
});
