// `docker logs --timestamps` answers on two streams; merged back by docker's own stamps.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { dockerLogsArgv, mergeByTime } from '../../src/logdiag/docker.ts';

test('the argv: ssh with the probes\' options, docker logs as separate words, no remote shell string', () => {
  assert.deepEqual(dockerLogsArgv('drill@127.0.3.35', 'vllm-xpu-chat', '30m', 5), [
    'ssh', '-o', 'BatchMode=yes', '-o', 'ConnectTimeout=5', 'drill@127.0.3.35',
    'docker', 'logs', '--timestamps', '--since', '30m', '--tail', '20000', 'vllm-xpu-chat',
  ]);
});

test('stdout and stderr merged by their stamps, nanoseconds trimmed or not; ties keep stdout first', () => {
  const out = ['2026-09-13T06:56:04.1Z a', '2026-09-13T06:56:04.118302119Z b', '2026-09-13T06:56:06Z e'].join('\n');
  const err = ['2026-09-13T06:56:04.100000000Z a2', '2026-09-13T06:56:04.2Z c', 'no stamp: stays after c', '2026-09-13T06:56:05.9Z d'].join('\n');
  assert.deepEqual([...mergeByTime(out, err)].map((l) => l.replace(/^\S+Z /, '')), ['a', 'a2', 'b', 'c', 'no stamp: stays after c', 'd', 'e']);
});

test('one stream empty, or neither stamped: the other as it came', () => {
  assert.deepEqual([...mergeByTime('x\ny', '')], ['x', 'y']);
  assert.deepEqual([...mergeByTime('', 'p\nq\n')], ['p', 'q']);
  assert.deepEqual([...mergeByTime('x', 'p')], ['x', 'p']);
});
