import assert from 'node:assert/strict';
import { test } from 'node:test';
import { readCapped } from '../../../src/probes/edge/capped.ts';

function stream(chunks: string[], fail?: Error, seen = { cancelled: false }): ReadableStream<Uint8Array> {
  let i = 0;
  return new ReadableStream<Uint8Array>({
    pull(c) {
      if (i < chunks.length) c.enqueue(new TextEncoder().encode(chunks[i++]));
      else if (fail) c.error(fail);
      else c.close();
    },
    cancel() {
      seen.cancelled = true;
    },
  });
}

test('exactly the cap is whole; one byte more is over, cut to the cap, and the stream cancelled', async () => {
  const whole = await readCapped(stream(['abc', 'def']), 6);
  assert.deepEqual({ over: whole.over, total: whole.total, text: new TextDecoder().decode(whole.bytes) }, { over: false, total: 6, text: 'abcdef' });

  const seen = { cancelled: false };
  const over = await readCapped(stream(['abc', 'defg', 'never read'], undefined, seen), 6);
  assert.deepEqual({ over: over.over, total: over.total, text: new TextDecoder().decode(over.bytes) }, { over: true, total: 7, text: 'abcdef' });
  assert.equal(seen.cancelled, true);
});

test('a stream that breaks mid-way: what came, and why it stopped', async () => {
  const r = await readCapped(stream(['abc'], new Error('socket hang up')), 100);
  assert.equal(new TextDecoder().decode(r.bytes), 'abc');
  assert.equal((r.broke as Error).message, 'socket hang up');
  assert.equal(r.over, false);
});

test('no body', async () => {
  assert.deepEqual(await readCapped(null, 10), { bytes: new Uint8Array(0), total: 0, over: false });
});
