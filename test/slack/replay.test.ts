// The replay guard alone, on an injected clock: one trigger_id passes once per window, and the
// set stays bounded however many requests come.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { replayGuard } from '../../src/slack/replay.ts';

test('a trigger_id passes once; again after the window; an empty one cannot be checked and passes', () => {
  let now = 0;
  const guard = replayGuard({ ttlMs: 600_000, now: () => now });
  assert.equal(guard.first('1.2.3'), true);
  now += 299_000;
  assert.equal(guard.first('1.2.3'), false, 'a replay within Bolt’s five minutes');
  now += 301_000;
  assert.equal(guard.first('1.2.3'), true, 'ten minutes on, it is forgotten');
  assert.equal(guard.first(''), true);
  assert.equal(guard.first(undefined), true);
});

test('at most `max` entries: the oldest goes first, and expired ones are dropped as time passes', () => {
  let now = 0;
  const guard = replayGuard({ ttlMs: 1000, max: 3, now: () => now });
  for (const id of ['a', 'b', 'c', 'd']) {
    assert.equal(guard.first(id), true);
    now += 10;
  }
  assert.equal(guard.size, 3);
  assert.equal(guard.first('a'), true, 'the oldest made room');
  assert.equal(guard.first('d'), false);
  now += 5000;
  assert.equal(guard.first('e'), true);
  assert.equal(guard.size, 1, 'expired entries are gone');
  const many = replayGuard({ now: () => now });
  for (let i = 0; i < 20_000; i++) many.first(`t${i}`);
  assert.ok(many.size <= 5000, `${many.size} remembered`);
});
