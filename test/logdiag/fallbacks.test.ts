// FlashInfer autotuner OOM-fallbacks, counted per minute of the log's clock (seed 000: 56 per 3 min
// at util 0.41, zero over 6 min at 0.38); a total only when the log carries no time.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { FallbackCounter, filledMinutes, MAX_MINUTES } from '../../src/logdiag/fallbacks.ts';
import { diagnoseText } from '../../src/logdiag/diagnose.ts';
import { minuteAt, minuteIndex } from '../../src/logdiag/prepare.ts';
import { findingsOf, only } from './fixtures.ts';

test('seed 000 at util 0.41: 56 fallbacks in 3 minutes, 17 / 21 / 18, worst 16:46, in three wordings', async () => {
  const all = await findingsOf('gen-flashinfer-util041.txt');
  const fb = only(all, 'flashinfer_oom_fallback');
  assert.equal(fb.length, 1, 'one finding for all of them, not 56');
  const f = fb[0]!;
  assert.equal(f.severity, 'problem');
  assert.deepEqual(f.fields.perMinute, [
    { minute: '09-04 16:45', count: 17 },
    { minute: '09-04 16:46', count: 21 },
    { minute: '09-04 16:47', count: 18 },
  ]);
  assert.equal(f.fields.total, 56);
  assert.equal(f.fields.timed, 56);
  assert.equal(f.fields.untimed, 0);
  assert.deepEqual(f.fields.worstMinute, { minute: '09-04 16:46', count: 21 });
  assert.equal(f.fields.spanMinutes, 3);
  assert.equal(f.fields.perMinuteAverage, 18.7);
  assert.equal(f.line, 4);
  assert.equal(f.fields.lastLine, 111);
  assert.match(f.lesson ?? '', /56 FlashInfer autotuner OOM-fallbacks per 3 min.*zero over 6 min/);
  assert.equal(all[all.length - 1], f, 'the count comes once the log has ended');
});

test('seed 000 at util 0.38: six minutes of traffic, no fallback, no problem', async () => {
  const all = await findingsOf('gen-flashinfer-util038.txt');
  assert.deepEqual(only(all, 'flashinfer_oom_fallback'), []);
  assert.ok(all.every((f) => f.severity !== 'problem'));
});

test('no timestamps in the log: the total only, no minutes made up', async () => {
  const f = only(await findingsOf('flashinfer-untimed.txt'), 'flashinfer_oom_fallback')[0]!;
  assert.equal(f.fields.total, 5);
  assert.equal(f.fields.untimed, 5);
  assert.deepEqual(f.fields.perMinute, []);
  assert.equal(f.fields.worstMinute, null);
  assert.equal(f.fields.spanMinutes, null);
  assert.equal(f.minute, null);
});

test('fallbacks before the first timestamp are counted in the total, apart from the minutes', () => {
  const d = diagnoseText(['[Autotuner]: OOM detected, falling back to default tactic', 'INFO 09-04 16:45:00 [x.py:1] up', '[Autotuner]: OOM detected, falling back to default tactic'].join('\n'));
  const f = d.groups[0]!.first;
  assert.equal(f.kind, 'flashinfer_oom_fallback');
  if (f.kind !== 'flashinfer_oom_fallback') return;
  assert.equal(f.fields.total, 2);
  assert.equal(f.fields.untimed, 1);
  assert.deepEqual(f.fields.perMinute, [{ minute: '09-04 16:45', count: 1 }]);
});

test('minutes across midnight and month ends count as a span; quiet minutes are filled for showing', () => {
  assert.equal(minuteAt(minuteIndex('02-29 23:59')! + 1), '03-01 00:00');
  const c = new FallbackCounter();
  c.add(1, 'a', '12-31 23:59');
  c.add(2, 'b', '12-31 23:59');
  c.add(3, 'c', '12-31 23:57');
  const f = c.fields();
  assert.deepEqual(f.perMinute.map((m) => m.minute), ['12-31 23:57', '12-31 23:59']);
  assert.equal(f.spanMinutes, 3);
  assert.deepEqual(filledMinutes(f.perMinute), [
    { minute: '12-31 23:57', count: 1 },
    { minute: '12-31 23:58', count: 0 },
    { minute: '12-31 23:59', count: 2 },
  ]);
  assert.equal(filledMinutes([{ minute: '01-01 00:00', count: 1 }, { minute: '01-02 00:00', count: 1 }], 60), null, 'too long a run to list minute by minute');
});

test('the minute table is capped: past the cap only the total grows', () => {
  const c = new FallbackCounter();
  for (let i = 0; i < MAX_MINUTES + 50; i++) c.add(i + 1, 'x', minuteAt(i));
  const f = c.fields();
  assert.equal(f.total, MAX_MINUTES + 50);
  assert.equal(f.perMinute.length, MAX_MINUTES);
});
