// The probe report offers the runbook it proposes: "Start runbook <id>" opens an incident at the
// probed site, titled by the verdict, pins the runbook and posts its first step in the thread.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { ANA, VISITOR, startIncidentHarness, type Harness } from '../helpers/slack-incident.ts';

let h: Harness;

before(async () => {
  h = await startIncidentHarness();
});

after(async () => {
  await h.stop();
});

test('the drill probe of ana proposes gpu-oom-cotenant; its Start runbook button opens the incident and posts the first step', async () => {
  await h.command('probe ana --only aliases,gpus', ANA);
  await h.seat.idle();
  const report = [...h.messages().entries()].find(([ts]) => h.buttons(ts).some((b) => b.actionId === 'seat_runbook_start'));
  assert.ok(report, 'a report with a Start runbook button');
  const start = h.buttons(report[0]).find((b) => b.actionId === 'seat_runbook_start')!;
  assert.equal(start.text, 'Start runbook gpu-oom-cotenant');

  const mark = h.mark();
  await h.click(start, VISITOR);
  await h.seat.idle();
  assert.equal((await h.seat.incidents!.deps.store.incidents()).length, 0, 'someone not on call opens nothing');
  assert.ok(h.said(mark).some((s) => /may record decisions/.test(s)), h.said(mark).join(' | '));

  await h.click(start, ANA);
  await h.seat.idle();
  const incident = await h.seat.incidents!.deps.store.newestOpen();
  assert.ok(incident);
  assert.equal(incident.site, 'ana');
  assert.match(incident.title, /^ana: /, 'titled by the verdict');
  const view = (await h.seat.incidents!.view(incident.id))!;
  assert.equal(view.pin?.runbook, 'gpu-oom-cotenant');
  const thread = h.thread(incident.slack!.thread);
  assert.ok(thread.some((m) => h.buttons(m.ts).some((b) => b.actionId === 'seat_step_done' && JSON.parse(b.value).step === view.steps[0]!.spec.id)), 'the first step is posted with its buttons');
});
