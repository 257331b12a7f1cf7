import assert from 'node:assert/strict';
import { getEventListeners } from 'node:events';
import { test } from 'node:test';
import { GRACE_MS, graceFor, isTimeout, KILL_AFTER_MS, withTimeout } from '../../../src/probes/edge/timeout.ts';
import { ManualTimers } from './helpers.ts';

test('its own timer fires: aborted with a TimeoutError', () => {
  const timers = new ManualTimers();
  const outer = new AbortController();
  const { signal } = withTimeout(outer.signal, 3000, timers.setTimer);
  assert.equal(signal.aborted, false);
  assert.equal(timers.fire(3000), 1);
  assert.equal(signal.aborted, true);
  assert.equal(isTimeout(signal), true);
  assert.equal((signal.reason as Error).message, 'no answer within 3000 ms');
  assert.equal(getEventListeners(outer.signal, 'abort').length, 0, 'no listener left on the run-long signal');
});

test('the outer signal first: its reason, not a timeout, and the timer is cancelled', () => {
  const timers = new ManualTimers();
  const outer = new AbortController();
  const { signal } = withTimeout(outer.signal, 3000, timers.setTimer);
  outer.abort(new Error('run stopped'));
  assert.equal(signal.aborted, true);
  assert.equal(isTimeout(signal), false);
  assert.equal((signal.reason as Error).message, 'run stopped');
  assert.equal(timers.count, 0);
});

test('an outer TimeoutError (a shared request timing out) still reads as a timeout', () => {
  const outer = new AbortController();
  const { signal } = withTimeout(outer.signal, 3000, new ManualTimers().setTimer);
  outer.abort(new DOMException('no answer within 3000 ms', 'TimeoutError'));
  assert.equal(isTimeout(signal), true);
});

test('already aborted outside: aborted at once, nothing scheduled', () => {
  const timers = new ManualTimers();
  const outer = new AbortController();
  outer.abort();
  const { signal, clear } = withTimeout(outer.signal, 3000, timers.setTimer);
  assert.equal(signal.aborted, true);
  assert.equal(isTimeout(signal), false);
  assert.equal(timers.count, 0);
  clear();
});

test('clear(): no timer, no listener; a thousand requests on one run signal leave nothing behind', () => {
  const timers = new ManualTimers();
  const outer = new AbortController();
  for (let i = 0; i < 1000; i++) withTimeout(outer.signal, 3000, timers.setTimer).clear();
  assert.equal(timers.count, 0);
  assert.equal(getEventListeners(outer.signal, 'abort').length, 0);
});

test('no outer signal: only the timeout', async () => {
  const { signal } = withTimeout(undefined, 1);
  await new Promise<void>((resolve) => signal.addEventListener('abort', () => resolve(), { once: true }));
  assert.equal(isTimeout(signal), true);
});

test('graceFor: the runner stops a task a little after its own timeout, never less than the kill grace', () => {
  assert.equal(graceFor(3000), GRACE_MS);
  assert.equal(graceFor(10_000), 500);
  assert.equal(graceFor(600_000), 1000);
  assert.equal(graceFor(0), GRACE_MS);
  assert.equal(graceFor(Number.NaN), GRACE_MS);
  for (const t of [1, 100, 3000, 10_000, 1e9]) assert.ok(graceFor(t) > KILL_AFTER_MS, String(t));
});
