// The incident begins when it was detected: Start runbook on a probe report journals that report as
// the new incident's first finding (before the pin, timed when the probe finished), so the
// postmortem's time to detect is never negative. The real Bolt app over signed HTTP.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { ANA, startIncidentHarness, type Harness } from '../helpers/slack-incident.ts';
import { phasesOf, snapshotOf, timesOf } from '../../src/postmortem/facts.ts';

let h: Harness;

before(async () => {
  h = await startIncidentHarness();
});

after(async () => {
  await h.stop();
});

test('Start runbook from a probe report: the report is the incident’s first finding, detected before it was declared', async () => {
  await h.command('probe ana --only aliases,gpus', ANA);
  await h.seat.idle();
  const report = [...h.messages().entries()].find(([ts]) => h.buttons(ts).some((b) => b.actionId === 'seat_runbook_start'));
  assert.ok(report);
  await h.click(h.buttons(report[0]).find((b) => b.actionId === 'seat_runbook_start')!, ANA);
  await h.seat.idle();
  const incident = (await h.seat.incidents!.deps.store.newestOpen())!;
  const events = h.journalEvents(incident.id);
  assert.deepEqual(events.slice(0, 3).map((e) => e.kind), ['incident.opened', 'probe.report', 'runbook.pinned']);
  const detected = events[1]!;
  assert.ok(detected.happenedAt <= incident.openedAt, `${detected.happenedAt} ≤ ${incident.openedAt}`);
  const view = (await h.seat.incidents!.view(incident.id))!;
  const snaps = view.events.map(snapshotOf).filter((s) => s !== null);
  const times = timesOf(phasesOf(view, snaps));
  assert.ok(times.detect !== null && times.detect >= 0, `time to detect ${String(times.detect)} s`);
});
