// The progress throttle: the first state goes at once, the rest at most once an interval, and a
// message that just opened waits a whole interval before its first progress update.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { throttle } from '../../src/slack/throttle.ts';

// Long enough for a zero-delay timer to run; the interval (10 s) is never waited out.
const tick = (): Promise<void> => new Promise((r) => setTimeout(r, 20));

test('a push goes at once when nothing was sent; after sent() (the message just opened) it waits, and flush drops it for the final', async () => {
  let t = 0;
  const sent: number[] = [];
  const fresh = throttle<number>(async (v) => void sent.push(v), 10_000, () => t);
  fresh.push(1);
  await tick();
  assert.deepEqual(sent, [1]);

  const opened = throttle<number>(async (v) => void sent.push(v), 10_000, () => t);
  sent.length = 0;
  opened.sent();
  t += 500;
  opened.push(2);
  opened.push(3);
  await tick();
  assert.deepEqual(sent, [], 'within the interval of the message opening: nothing');
  await opened.flush();
  assert.deepEqual(sent, [], 'the caller sends the final state itself');
});
