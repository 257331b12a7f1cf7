// The sampling window on virtual time: six minutes every ten seconds is 37 samples on a schedule
// from the start, and a stop keeps what was measured and drops the sample it cut.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { plannedSamples, watchWindow } from '../../src/watch/window.ts';
import type { GpuReading, Sampler } from '../../src/watch/sample.ts';
import { FakeTime } from '../helpers/clock.ts';

const reading = (free: number): GpuReading[] => [{ index: 0, totalMiB: 97_887, freeMiB: free, seatsMiB: {}, reason: null }];

test('6m every 10s: 37 samples, both ends of the window, at their scheduled times', async () => {
  const time = new FakeTime();
  const at: number[] = [];
  // Each sample takes 3 s: the schedule runs from the start, not from the end of the last sample.
  const sample: Sampler = async () => {
    at.push(time.now);
    await time.sleep(3_000);
    return reading(42_113);
  };
  const run = watchWindow({ sample, forMs: 360_000, everyMs: 10_000, now: () => time.now, setTimer: time.setTimer });
  await time.advance(400_000);
  const r = await run;
  assert.equal(plannedSamples(360_000, 10_000), 37);
  assert.equal(r.samples.length, 37);
  assert.deepEqual(at.slice(0, 3), [0, 10_000, 20_000]);
  assert.equal(at.at(-1), 360_000);
  assert.deepEqual(r.samples.slice(0, 2).map((s) => s.atMs), [0, 10_000]);
  assert.equal(r.stopped, false);
  assert.equal(r.coveredMs, 360_000);
  assert.equal(time.pending, 0, 'no timer left behind');
});

test('a sample slower than the interval: the next starts at once, none is skipped', async () => {
  const time = new FakeTime();
  const at: number[] = [];
  const sample: Sampler = async () => {
    at.push(time.now);
    await time.sleep(15_000);
    return reading(1);
  };
  const run = watchWindow({ sample, forMs: 30_000, everyMs: 10_000, now: () => time.now, setTimer: time.setTimer });
  await time.advance(100_000);
  assert.equal((await run).samples.length, 4);
  assert.deepEqual(at, [0, 15_000, 30_000, 45_000]);
});

test('stopped mid-window (Ctrl-C): what was measured is kept, the sample in flight is dropped, timers cleared', async () => {
  const time = new FakeTime();
  const ctl = new AbortController();
  const seen: number[] = [];
  const sample: Sampler = async (signal) => {
    await time.sleep(2_000);
    return signal.aborted ? [] : reading(40_000 + time.now / 1000);
  };
  const run = watchWindow({ sample, forMs: 360_000, everyMs: 10_000, now: () => time.now, setTimer: time.setTimer, signal: ctl.signal, onSample: (_s, n) => seen.push(n) });
  await time.advance(21_000); // samples at 0 and 10 s done; the one at 20 s is in flight
  ctl.abort();
  await time.advance(5_000);
  const r = await run;
  assert.equal(r.samples.length, 2);
  assert.deepEqual(seen, [1, 2]);
  assert.equal(r.stopped, true);
  assert.equal(r.planned, 37);
  assert.equal(r.coveredMs, 10_000);
  assert.equal(time.pending, 0);
});

test('stopped while waiting between samples: returns at once, without waiting out the interval', async () => {
  const time = new FakeTime();
  const ctl = new AbortController();
  const run = watchWindow({ sample: () => Promise.resolve(reading(5)), forMs: 360_000, everyMs: 10_000, now: () => time.now, setTimer: time.setTimer, signal: ctl.signal });
  await time.advance(5_000);
  ctl.abort();
  const r = await run;
  assert.equal(time.now, 5_000);
  assert.equal(r.samples.length, 1);
  assert.equal(time.pending, 0);
});
