// `/seat diagnose <pasted log>`: the paste reaches the log reader with its line breaks, and the
// person is answered with the numbers read, the seed's lesson and the options.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { ANA, BEN, startIncidentHarness, type Harness } from '../helpers/slack-incident.ts';

let h: Harness;
before(async () => {
  h = await startIncidentHarness();
});
after(async () => {
  await h.stop();
});

test('seed 004 pasted: the KV-cache error is read with its numbers and the boot-race options; markup in the paste is shown, not run', async () => {
  const paste = [
    "ValueError: To serve at least one request with the model's max seq len (131072),",
    '3.36 GiB KV cache is needed, which is larger than the available KV cache memory (2.13 GiB).',
    'Based on the available memory, the estimated maximum model length is 46528. <!channel> *bold*',
  ].join('\n');
  const mark = h.mark();
  const r = await h.command(`diagnose ${paste.replace(/</g, '&lt;').replace(/>/g, '&gt;')}`, ANA);
  assert.equal(r.status, 200);
  await h.seat.idle();
  const said = h.said(mark).join('\n');
  assert.match(said, /1 problem/);
  assert.match(said, /3\.36 GiB/);
  assert.match(said, /2\.13 GiB/);
  assert.match(said, /46,?528/);
  assert.match(said, /order|ordering/i);
  assert.ok(!said.includes('<!channel>'), 'a mention in the paste is escaped');
  assert.equal((await h.seat.incidents!.deps.store.incidents()).length, 0, 'nothing recorded');
});

test('an empty paste is told what to paste', async () => {
  const mark = h.mark();
  await h.command('diagnose', ANA);
  await h.seat.idle();
  assert.match(h.said(mark).join('\n'), /paste the log lines after `\/seat diagnose`/);
});

test('in a channel with an open incident, the diagnosis goes in its thread, for everyone on it', async () => {
  await h.command('incident open fv brutus will not boot', ANA);
  const incident = (await h.seat.incidents!.deps.store.newestOpen())!;
  const thread = incident.slack!.thread;
  const before = h.thread(thread).length;
  const mark = h.mark();
  await h.command('diagnose ValueError: To serve at least one request with the model\'s max seq len (131072), 3.36 GiB KV cache is needed, which is larger than the available KV cache memory (2.13 GiB).', BEN);
  const posted = h.thread(thread).slice(before);
  assert.equal(posted.length, 1, 'one message in the incident thread');
  assert.match(posted[0]!.text, /1 problem/);
  assert.match(posted[0]!.text, /3\.36 GiB/);
  assert.ok(!h.said(mark).some((t) => /1 problem/.test(t)), 'not a private reply');
});
