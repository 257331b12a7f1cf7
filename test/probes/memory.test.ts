// What one probe leaves for the next: the targets that cost their timeout, and containers' restart counts.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { MEMORY_MAX_ENTRIES, ProbeMemory, containerKey } from '../../src/probes/memory.ts';
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

test('restart counts are kept by host and container, and survive a round trip through the file', () => {
  const m = ProbeMemory.of([container('h1', 'vllm', 7), container('h2', 'vllm', null)]);
  assert.equal(m.restarts.get(containerKey('h1', 'vllm')), 7);
  assert.equal(m.restarts.has(containerKey('h2', 'vllm')), false, 'an unread count is not a count');
  const back = ProbeMemory.parse(JSON.stringify(m));
  assert.deepEqual([...back.restarts], [...m.restarts]);
});

test('anything but what toJSON wrote reads as an empty memory, and bad entries are dropped', () => {
  for (const text of ['', 'null', '[]', '{"v":2,"slow":["x"]}', '{', '"x"']) assert.equal(ProbeMemory.parse(text).slow.size, 0, text);
  const m = ProbeMemory.parse(JSON.stringify({ v: 1, slow: ['alias:a', 5, 'x'.repeat(5000)], restarts: [['h', 'c', 3], ['h', 'c2', -1], ['h'], 'no'] }));
  assert.deepEqual([...m.slow], ['alias:a']);
  assert.deepEqual([...m.restarts], [[containerKey('h', 'c'), 3]]);
});

test('memory is bounded: past its cap the oldest targets are forgotten', () => {
  const many = Array.from({ length: MEMORY_MAX_ENTRIES + 10 }, (_, i) => alias(`a${i}`, 'timeout'));
  const m = ProbeMemory.of(many);
  assert.equal(m.slow.size, MEMORY_MAX_ENTRIES);
  assert.ok(m.slow.has(`alias:a${MEMORY_MAX_ENTRIES + 9}`) && !m.slow.has('alias:a0'));
});
