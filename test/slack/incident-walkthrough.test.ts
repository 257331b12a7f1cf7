// Runbook site-dark walked to the end through the real Slack app: every step's message updated in
// place, the next posted after it, the power log measured by the bot, the journal's chain intact.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { POWER_LOG, runSiteDarkWalkthrough, sha256, startIncidentHarness, type Harness } from '../helpers/slack-incident.ts';

let h: Harness;

before(async () => {
  h = await startIncidentHarness();
});

after(async () => {
  await h.stop();
});

test('site-dark walked through in Slack: every step done, the journal verifies', async () => {
  const walked = await runSiteDarkWalkthrough(h);
  const service = h.seat.incidents!;
  const view = (await service.view(walked.incident))!;
  assert.equal(view.pin?.runbook, 'site-dark');
  assert.deepEqual(walked.steps.map((s) => s.id), view.steps.map((s) => s.spec.id), 'every step, in order');
  assert.ok(view.steps.every((s) => s.state.state === 'done'));
  assert.equal(view.incident.status, 'closed');
  const verify = await service.deps.store.verify();
  assert.ok(verify.ok, JSON.stringify(verify));
  // The power log was read by the bot, not typed.
  const log = walked.events.find((e) => e.kind === 'step.done' && e.step === 'recover-power-log');
  assert.deepEqual(log?.payload.evidence, { kind: 'file', of: 'power-log', name: 'power.log', size: POWER_LOG.length, sha256: sha256(POWER_LOG), measured: true, powerlog: { gpus: 2, samples: 2, peakW: 600.7, peakAt: '2026/09/13 06:56:04.100', lastWindowMeanW: 600, last: '2026/09/13 06:56:04.101', intervalMs: 10000 } });
  assert.ok(h.files.auth.every((a) => a === 'Bearer xoxb-test-0000000000'), 'downloaded with the bot token');
  // Probe steps stored their reports.
  assert.ok(walked.events.some((e) => e.kind === 'probe.report' && e.step === 'blast-radius'));
  // Each step message ended as a static line without buttons.
  const thread = h.thread(walked.thread);
  for (const s of view.steps) {
    const msgs = thread.filter((m) => m.text.includes(s.spec.title.replace(/&/g, '&amp;')));
    assert.ok(msgs.length >= 1, s.spec.id);
    assert.ok(msgs.every((m) => h.buttons(m.ts).length === 0), `${s.spec.id}: buttons gone`);
    assert.match(JSON.stringify(msgs.at(-1)!.blocks), /done by <@U0ONCALL0[12]>/);
  }
  assert.match(JSON.stringify(thread.at(-2)?.blocks ?? thread.at(-1)?.blocks), /Every step of \*site-dark\* is decided|closed by/);
  console.log(`walked ${walked.steps.length} steps, ${walked.events.length} events`);
});

test('/seat export uploads the postmortem to the incident thread, its head hash the one journal verify gives', async () => {
  const service = h.seat.incidents!;
  const incident = (await service.deps.store.incidents())[0]!;
  const uploads = h.slack.uploads.length;
  const mark = h.mark();
  await h.command(`export ${incident.id}`);
  await h.seat.idle();
  const raw = h.slack.uploads.slice(uploads).join('');
  const verified = await service.deps.store.verify(incident.id);
  assert.ok(verified.ok);
  assert.match(raw, /# DRILL — Postmortem: /);
  assert.ok(raw.includes(verified.heads.get(incident.id)!), 'the head hash is in the document');
  const done = h.slack.calls.filter((c) => c.method === 'files.completeUploadExternal').at(-1);
  assert.ok(done, 'the upload was completed');
  assert.equal(String((done.args as { thread_ts?: unknown }).thread_ts), incident.slack!.thread);
  assert.match(h.said(mark).join('\n'), new RegExp(`postmortem of incident #${incident.id} \\(md\\) is uploaded to its thread: journal head \`${verified.heads.get(incident.id)!.slice(0, 12)}\``), 'the person is told it is done');
});
