// A decision's Slack message carries the short head hash of the journal as it recorded it, so the
// people in the thread hold a head outside the file: `seat journal verify --head` checks it later.
// The real Bolt app over signed HTTP, a recording Slack Web API on loopback, a real SQLite journal.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { ANA, startIncidentHarness, type Harness } from '../helpers/slack-incident.ts';

let h: Harness;
before(async () => {
  h = await startIncidentHarness();
});
after(async () => {
  await h.stop();
});

test('a step skipped in Slack: its message shows the journal head that decision made', async () => {
  await h.command('incident open fv testing the head line');
  const service = h.seat.incidents!;
  const id = (await service.deps.store.newestOpen())!.id;
  await h.command(`runbook start site-dark ${id}`);
  await h.command(`step skip blast-radius --incident ${id} gateway host is dark too`, ANA);
  const skipped = (await service.deps.store.events(id)).find((e) => e.kind === 'step.skipped' && e.step === 'blast-radius');
  assert.ok(skipped, 'the skip is in the journal');
  const thread = (await service.deps.store.incident(id))!.slack!.thread;
  const shown = h.thread(thread).map((m) => JSON.stringify(m.blocks)).filter((b) => b.includes('skipped by'));
  assert.equal(shown.length, 1, 'one message for the decided step');
  assert.ok(shown[0]!.includes(`journal head \`${skipped.hash.slice(0, 12)}\` (event #${skipped.seq})`), shown[0]);
});
