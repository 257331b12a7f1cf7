// The one pattern each listener is registered under: a button or modal id of ours and nothing else.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { exactly } from '../../src/slack/listeners/match.ts';

test('exactly(): each id whole, never a prefix, a longer id, or a pattern character read as a pattern', () => {
  const re = exactly(['seat_step_done', 'probe_again', 'a.b']);
  for (const id of ['seat_step_done', 'probe_again', 'a.b']) assert.ok(re.test(id), id);
  for (const id of ['seat_step_done_modal', 'xseat_step_done', 'seat_step', 'axb', 'probe_again\n', '']) assert.ok(!re.test(id), JSON.stringify(id));
});
