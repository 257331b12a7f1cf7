// The last-minutes window: bounded by time, and by count when the clock stands still.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { MAX_WINDOW_ENTRIES, TimeWindow } from '../../src/powerlog/window.ts';

test('the mean over (end − span, end]: an entry exactly a span before the end is out', () => {
  const w = new TimeWindow(300_000);
  for (let t = 0; t <= 600_000; t += 10_000) w.push(t, t === 600_000 ? 400 : 100);
  assert.deepEqual(w.meanEndingAt(600_000), { meanW: (29 * 100 + 400) / 30, samples: 30, fromMs: 310_000, toMs: 600_000 });
  assert.equal(w.meanEndingAt(2_000_000), null);
});

test('a clock that stands still keeps at most MAX_WINDOW_ENTRIES', () => {
  const w = new TimeWindow(300_000);
  for (let i = 0; i < MAX_WINDOW_ENTRIES * 3; i++) w.push(1000, i);
  const m = w.meanEndingAt(1000);
  assert.equal(m?.samples, MAX_WINDOW_ENTRIES);
  assert.equal(m?.meanW, MAX_WINDOW_ENTRIES * 2.5 - 0.5);
});
