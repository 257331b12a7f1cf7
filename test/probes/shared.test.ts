// One measurement shared by every task of a run that needs it (a key's listing, a seat's /health):
// started once, answered to every caller, early or late; given up only when every caller has.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { shared } from '../../src/probes/gateway/shared.ts';

function deferred<T>(): { promise: Promise<T>; resolve(v: T): void; reject(e: Error): void } {
  let resolve!: (v: T) => void;
  let reject!: (e: Error) => void;
  const promise = new Promise<T>((res, rej) => ((resolve = res), (reject = rej)));
  return { promise, resolve, reject };
}

test('started once for every caller, the early ones and those that come after the answer', async () => {
  let starts = 0;
  const answer = deferred<string>();
  const listing = shared(() => (starts++, answer.promise), 10_000);
  const run = new AbortController().signal;
  const early = [listing(run), listing(run)];
  answer.resolve('200 models');
  assert.deepEqual(await Promise.all(early), ['200 models', '200 models']);
  assert.equal(await listing(run), '200 models', 'a caller after the answer gets it');
  assert.equal(starts, 1);
});

test('a failed measurement fails every caller the same way, after it too', async () => {
  let starts = 0;
  const listing = shared(() => (starts++, Promise.reject(new Error('ECONNREFUSED'))), 10_000);
  const run = new AbortController().signal;
  await assert.rejects(listing(run), /ECONNREFUSED/);
  await assert.rejects(listing(run), /ECONNREFUSED/);
  assert.equal(starts, 1);
});

test('a caller that gives up gets null; the work stops only when every caller has, and the next caller starts it again', async () => {
  const signals: AbortSignal[] = [];
  const listing = shared((signal) => {
    signals.push(signal);
    return new Promise<string>(() => {});
  }, 10_000);
  const a = new AbortController();
  const b = new AbortController();
  const pa = listing(a.signal);
  const pb = listing(b.signal);
  a.abort();
  assert.equal(await pa, null);
  assert.equal(signals[0]!.aborted, false, 'b still waits on it');
  b.abort();
  assert.equal(await pb, null);
  assert.equal(signals[0]!.aborted, true, 'nobody waits: stopped');
  const c = new AbortController();
  const pc = listing(c.signal);
  assert.equal(signals.length, 2, 'a fresh one for the next caller');
  assert.equal(await listing(a.signal), null, 'an already stopped caller waits on nothing');
  c.abort();
  assert.equal(await pc, null);
  assert.equal(signals[1]!.aborted, true);
});
