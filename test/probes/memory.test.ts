// What one probe leaves for the next: the targets that cost their timeout, and containers' restart counts.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { MEMORY_MAX_ENTRIES, ProbeMemory, RESTART_MEMORY_MS, containerKey } from '../../src/probes/memory.ts';
import type { Finding } from '../../src/probes/types.ts';

const alias = (name: string, reason?: string): Finding =>
  ({ probe: 'alias', target: name, status: reason ? 'down' : 'up', ...(reason ? { reason } : {}), subject: { kind: 'alias', name, inInventory: true }, data: { kind: 'none' } }) as unknown as Finding;
const container = (host: string, name: string, restartCount: number | null): Finding =>
  ({ probe: 'container', target: name, status: 'up', subject: { kind: 'container', host, container: name }, data: { kind: 'container', container: { host, container: name, restartCount } } }) as unknown as Finding;

test('a target is slow while its last finding says it cost its timeout; others probed later keep what was known', () => {
  const m = ProbeMemory.of([alias('a', 'timeout'), alias('b'), alias('c', 'not_started'), alias('d', 'refused')]);
  assert.deepEqual([...m.slow].sort(), ['alias:a', 'alias:c']);
  m.learn([alias('a')]); // a answered this time; c was not probed (another scope)
  assert.deepEqual([...m.slow], ['alias:c']);
});

test('restart counts are kept by host and container with when they were read, compared for a day, and survive a round trip through the file', () => {
  const at = Date.UTC(2026, 11, 3, 7, 0);
  const m = ProbeMemory.of([container('h1', 'vllm', 7), container('h2', 'vllm', null)], at);
  assert.deepEqual(m.restartBefore('h1', 'vllm', at + 60_000), { count: 7, at });
  assert.equal(m.restartBefore('h2', 'vllm', at), null, 'an unread count is not a count');
  assert.equal(m.restartBefore('h1', 'vllm', at + RESTART_MEMORY_MS + 1), null, 'older than a day: not compared with');
  assert.equal(m.restartBefore('h1', 'vllm', at - 60_000), null, 'read "in the future" (a clock set back): not compared with');
  const back = ProbeMemory.parse(JSON.stringify(m));
  assert.deepEqual([...back.restarts], [...m.restarts]);
});

test('anything but what toJSON wrote reads as an empty memory, and bad entries are dropped', () => {
  for (const text of ['', 'null', '[]', '{"v":2,"slow":["x"]}', '{', '"x"']) assert.equal(ProbeMemory.parse(text).slow.size, 0, text);
  const m = ProbeMemory.parse(JSON.stringify({ v: 1, slow: ['alias:a', 5, 'x'.repeat(5000)], restarts: [['h', 'c', 3, 1000], ['h', 'c2', -1, 1000], ['h', 'c3', 3, 'then'], ['h', 'c4', 3], ['h'], 'no'] }));
  assert.deepEqual([...m.slow], ['alias:a']);
  assert.deepEqual([...m.restarts], [[containerKey('h', 'c'), { count: 3, at: 1000 }]]);
});

test('memory is bounded: past its cap the oldest targets are forgotten', () => {
  const many = Array.from({ length: MEMORY_MAX_ENTRIES + 10 }, (_, i) => alias(`a${i}`, 'timeout'));
  const m = ProbeMemory.of(many);
  assert.equal(m.slow.size, MEMORY_MAX_ENTRIES);
  assert.ok(m.slow.has(`alias:a${MEMORY_MAX_ENTRIES + 9}`) && !m.slow.has('alias:a0'));
});
