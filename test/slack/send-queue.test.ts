// One channel's sends go one at a time and in order; a 429 is waited out (Retry-After, capped) and
// the call tried again; other failures go back to the caller; channels do not wait for each other.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Logger } from '@slack/bolt';
import { sendQueue } from '../../src/slack/send-queue.ts';

const quiet: Logger = { debug() {}, info() {}, warn() {}, error() {}, setLevel() {}, getLevel: () => 'info' as never, setName() {} };
const rateLimited = (s: number) => Object.assign(new Error('rate limited'), { code: 'slack_webapi_rate_limited_error', retryAfter: s });

test('calls to one channel run in order, each after the one before settled', async () => {
  const q = sendQueue({ sleep: async () => {}, log: quiet });
  const seen: string[] = [];
  let release!: () => void;
  const gate = new Promise<void>((r) => (release = r));
  const first = q.run('C1', 'a', async () => {
    await gate;
    seen.push('a');
  });
  const second = q.run('C1', 'b', async () => void seen.push('b'));
  const other = q.run('C2', 'c', async () => void seen.push('c'));
  await other;
  assert.deepEqual(seen, ['c'], 'another channel does not wait');
  release();
  await Promise.all([first, second]);
  assert.deepEqual(seen, ['c', 'a', 'b']);
});

test('a 429 is waited out (at most 30 s) and tried again; a third refusal and any other error reach the caller', async () => {
  const sleeps: number[] = [];
  const q = sendQueue({ sleep: async (ms) => void sleeps.push(ms), log: quiet });
  let tries = 0;
  assert.equal(await q.run('C1', 'update', async () => (++tries === 1 ? Promise.reject(rateLimited(120)) : 'ok')), 'ok');
  assert.deepEqual(sleeps, [30_000]);
  await assert.rejects(q.run('C1', 'update', async () => Promise.reject(rateLimited(1))), /rate limited/);
  assert.deepEqual(sleeps, [30_000, 1000, 1000], 'three tries in all');
  await assert.rejects(q.run('C1', 'post', async () => Promise.reject(new Error('channel_not_found'))), /channel_not_found/);
  assert.equal(await q.run('C1', 'after', async () => 'still sending'), 'still sending', 'a failure does not stop the queue');
});
