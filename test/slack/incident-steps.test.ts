// The step buttons and modals through the real Bolt app over signed HTTP: Done updates the step's
// message in place and only then posts the next step; a double click, a replay and a restart record
// once; of two people one wins and the other is told who; a guardrail's refusal is shown with why
// and what instead; an override needs a second on-call person.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { createSeatApp } from '../../src/slack/app.ts';
import { signedPost } from '../helpers/slack.ts';
import { ANA, BEN, SECRET, VISITOR, POWER_LOG, chosen, radio, sha256, startIncidentHarness, submissionBody, typed, type Button, type Harness } from '../helpers/slack-incident.ts';

let h: Harness;

before(async () => {
  h = await startIncidentHarness();
});

after(async () => {
  await h.stop();
});

const service = () => h.seat.incidents!;

async function start(runbook: string): Promise<{ id: number; thread: string }> {
  await h.command(`incident open fv testing ${runbook}`);
  const id = (await service().deps.store.newestOpen())!.id;
  await h.command(`runbook start ${runbook} ${id}`);
  return { id, thread: (await service().deps.store.incident(id))!.slack!.thread };
}

/** The latest message in the thread with buttons for this step. */
function stepTs(thread: string, step: string): string {
  const m = h.thread(thread).filter((x) => h.buttons(x.ts).some((b) => b.actionId === 'seat_step_done' && (JSON.parse(b.value) as { step: string }).step === step)).at(-1);
  assert.ok(m, `no message with buttons for ${step}`);
  return m.ts;
}

function button(ts: string, actionId: string): Button {
  const b = h.buttons(ts).find((x) => x.actionId === actionId);
  assert.ok(b, `no ${actionId} on ${ts}: ${h.buttons(ts).map((x) => x.actionId).join(', ')}`);
  return b;
}

const count = async (id: number, kind: string, step?: string) => (await service().deps.store.events(id)).filter((e) => e.kind === kind && (step === undefined || e.step === step)).length;

test('Done on a probe step: the probe runs, the message becomes a static line with its buttons gone, then the next step is posted', async () => {
  const { id, thread } = await start('gateway-down');
  const ts = stepTs(thread, 'probe-gateway');
  const mark = h.log.length;
  assert.equal(await h.click(button(ts, 'seat_step_done')), 200);
  const msg = h.messages().get(ts)!;
  assert.equal(h.buttons(ts).length, 0, 'buttons gone');
  assert.match(JSON.stringify(msg.blocks), /:white_check_mark: \*Step 1 of \d+ · [^*]+\* — done by <@U0ONCALL01> <!date\^\d+\^\{date_short_pretty\} \{time\}\|\d\d:\d\d UTC>/);
  assert.equal(await count(id, 'step.done', 'probe-gateway'), 1);
  assert.equal(await count(id, 'probe.report', 'probe-gateway'), 1);
  // Updated in place (never re-posted), and before the next step appeared.
  const calls = h.log.slice(mark);
  const lastUpdate = calls.findLastIndex((c) => c.method === 'chat.update' && c.args.ts === ts);
  const next = calls.findIndex((c) => c.method === 'chat.postMessage' && JSON.stringify(c.args.blocks).includes('`gateway-local`'));
  assert.ok(lastUpdate >= 0 && next > lastUpdate, `update at ${lastUpdate}, next step at ${next}`);
  assert.match(JSON.stringify(msg.blocks), /:mag: probe of fv: \*\w+\*/, 'a short result line on the step’s own message');
  assert.equal(stepTs(thread, 'gateway-local') !== ts, true);
});

test('a double click runs one probe and records once; a replayed click records nothing; nor does the same modal after a restart', async () => {
  const { id, thread } = await start('gateway-down');
  const done = button(stepTs(thread, 'probe-gateway'), 'seat_step_done');
  const said = h.mark();
  await Promise.all([h.click(done), h.click(done)]);
  assert.equal(await count(id, 'step.done', 'probe-gateway'), 1, 'one decision');
  assert.equal(await count(id, 'probe.report', 'probe-gateway'), 1, 'one probe');
  assert.match(h.said(said).join('\n'), /already running|was already done by <@U0ONCALL01>/, 'the second click is told');

  // The same signed request again (a redelivery within Bolt's five minutes).
  const evTs = stepTs(thread, 'gateway-local');
  const gl = button(evTs, 'seat_step_done');
  const triggerId = '8001.replayed';
  const opened = () => h.slack.calls.filter((c) => c.method === 'views.open').length;
  const before = opened();
  await h.click(gl, ANA, { triggerId, actionTs: '1767225999.000001' });
  await h.click(gl, ANA, { triggerId, actionTs: '1767225999.000001' });
  assert.equal(opened(), before + 1, 'one modal for one click');
  const view = h.lastView();
  const body = submissionBody({ view, values: { ev_yesno: radio('no') }, user: ANA, viewId: 'V0REPLAYED1' });
  const stamp = Math.floor(Date.now() / 1000);
  await signedPost(h.events, body, { secret: SECRET, timestamp: stamp });
  await signedPost(h.events, body, { secret: SECRET, timestamp: stamp });
  await h.seat.idle();
  assert.equal(await count(id, 'step.done', 'gateway-local'), 1, 'one submission, one decision');
  const events = (await service().deps.store.events(id)).length;

  // A restarted bot (nothing remembered in memory) gets the same submission: the journal knows it.
  const again = createSeatApp({
    fleet: service().deps.fleet,
    config: { botToken: 'xoxb-test-0000000000', mode: { kind: 'http', signingSecret: SECRET, port: 0 }, slackApiUrl: h.slack.url },
    journal: h.journal,
    tokenVerification: false,
    sleep: async () => {},
    logger: { debug: () => {}, info: () => {}, warn: () => {}, error: () => {}, setLevel: () => {}, getLevel: () => 'info' as never, setName: () => {} },
  });
  const port = await again.start();
  try {
    const n = h.slack.calls.length;
    await signedPost(`http://127.0.0.1:${port}/slack/events`, body, { secret: SECRET, timestamp: stamp });
    await again.idle();
    assert.equal((await service().deps.store.events(id)).length, events, 'nothing new in the journal');
    const told = h.slack.calls.slice(n).filter((c) => c.method === 'chat.postEphemeral').map((c) => String(c.args.text));
    assert.match(told.join('\n'), /already recorded \(journal event #\d+ by <@U0ONCALL01>/);
  } finally {
    await again.stop();
  }
});

test('two people press Done on one step: one decision, and the other is told who and when', async () => {
  const { id, thread } = await start('gateway-down');
  await h.click(button(stepTs(thread, 'probe-gateway'), 'seat_step_done'));
  await h.click(button(stepTs(thread, 'gateway-local'), 'seat_step_done'));
  assert.equal(await h.submit(h.lastView(), { ev_yesno: radio('yes') }, BEN), null);
  const done = button(stepTs(thread, 'gateway-logs'), 'seat_step_done');
  const said = h.mark();
  await Promise.all([h.click(done, ANA), h.click(done, BEN)]);
  assert.equal(await count(id, 'step.done', 'gateway-logs'), 1);
  const winner = (await service().view(id))!.steps.find((s) => s.spec.id === 'gateway-logs')!.state;
  assert.equal(winner.state, 'done');
  const told = h.said(said);
  assert.equal(told.length, 1, told.join('\n'));
  assert.match(told[0]!, new RegExp(`^:warning: step \`gateway-logs\` was already done by <@${winner.state === 'done' && winner.by.kind === 'slack' ? winner.by.id : '?'}> <!date\\^\\d+`));
});

test('someone not on call cannot record: told who can, no modal, nothing in the journal', async () => {
  const { id, thread } = await start('gateway-down');
  const events = (await service().deps.store.events(id)).length;
  const modals = h.slack.calls.filter((c) => c.method === 'views.open').length;
  const said = h.mark();
  const ts = stepTs(thread, 'probe-gateway');
  await h.click(button(ts, 'seat_step_done'), VISITOR);
  await h.click(button(ts, 'seat_step_skip'), VISITOR);
  await h.command(`step skip probe-gateway --incident ${id} not my job`, VISITOR);
  assert.equal((await service().deps.store.events(id)).length, events);
  assert.equal(h.slack.calls.filter((c) => c.method === 'views.open').length, modals);
  const told = h.said(said);
  assert.equal(told.length, 3);
  for (const t of told) assert.match(t, /^:no_entry: only the on-call people may record decisions: <@U0ONCALL01>, <@U0ONCALL02>/);
  assert.equal(h.buttons(ts).length, 3, 'the step still waits');
});

test('site-dark: power sizing before the power log is refused, shown with why and instead; A asks, A cannot approve, B approves, and the step goes through', async () => {
  const { id, thread } = await start('site-dark');
  for (const step of ['blast-radius', 'no-polling', 'paid-coverage', 'recover-power-log']) {
    await h.click(button(stepTs(thread, step), 'seat_step_skip'));
    const modal = h.lastView();
    assert.equal(modal.callback_id, 'seat_step_skip_modal');
    assert.deepEqual(await h.submit(modal, { reason: typed('   ') }), { response_action: 'errors', errors: { reason: 'a reason is needed' } }, 'an empty reason keeps the modal open');
    assert.equal(await h.submit(modal, { reason: typed(`testing the guardrail, not ${step}`) }), null);
  }
  assert.equal(await count(id, 'step.skipped'), 4);
  const ts = stepTs(thread, 'ups-rating');
  await h.click(button(ts, 'seat_step_done'), ANA);
  const modal = h.lastView();
  assert.equal(modal.callback_id, 'seat_step_done_modal');
  assert.deepEqual(await h.submit(modal, { in_loadW: typed('lots') }), { response_action: 'errors', errors: { in_loadW: 'expected a whole number' } });
  assert.equal(await h.submit(modal, { in_loadW: typed('1400') }, ANA), null);
  assert.equal(await count(id, 'step.blocked', 'ups-rating'), 1, 'the refusal is recorded');
  const shown = JSON.stringify(h.messages().get(ts)!.blocks);
  assert.match(shown, /:no_entry: \*Refused by power-log-first:\* power sizing \(step ups-rating\) before the power log is recorded/);
  assert.match(shown, /\*Why:\* after a site goes dark, the power log holds the only load figures/);
  assert.match(shown, /\*Instead:\* recover the power log first/);
  assert.match(shown, /\*Waits for:\* the power log's size and sha256/);
  assert.deepEqual(h.buttons(ts).map((b) => b.text), ['Done', 'Skip', 'Evidence', 'Ask for override'], 'buttons kept, and the override offered');
  assert.equal((JSON.parse(button(ts, 'seat_step_done').value) as { version: number }).version, 1, 'the buttons carry the new version');

  // A asks for the override.
  await h.click(button(ts, 'seat_override_ask'), ANA);
  const ask = h.lastView();
  assert.equal(ask.callback_id, 'seat_override_modal');
  assert.equal(await h.submit(ask, { reason: typed('the vendor quote is due today; the log is on a drive in the dark rack') }, ANA), null);
  const request = h.thread(thread).at(-1)!;
  const words = JSON.stringify(request.blocks);
  assert.match(words, /<@U0ONCALL01> asks to go past \*power-log-first\* for step/);
  assert.match(words, /\*Exact action:\* step `ups-rating` with `action=power-sizing loadW=1400`/);
  assert.match(words, /expires <!date\^\d+/);
  const approve = button(request.ts, 'seat_override_approve');

  // A cannot approve A's own request.
  let said = h.mark();
  await h.click(approve, ANA);
  assert.match(h.said(said).join('\n'), /^:no_entry: ana asked for this override: a second on-call person must approve it/);
  assert.equal(await count(id, 'override.approved'), 0);
  // B can.
  said = h.mark();
  await h.click(approve, BEN);
  assert.equal(await count(id, 'override.approved'), 1);
  assert.equal(h.buttons(request.ts).length, 0, 'approved: the button is gone');
  assert.match(JSON.stringify(h.messages().get(request.ts)!.blocks), /approved by <@U0ONCALL02>/);

  // A presses Done again: the modal holds the refused action as it was, and it goes through.
  await h.click(button(ts, 'seat_step_done'), ANA);
  const again = h.lastView() as unknown as { blocks: { block_id?: string; element?: { initial_value?: string } }[] };
  assert.equal(again.blocks.find((b) => b.block_id === 'in_loadW')?.element?.initial_value, '1400');
  assert.equal(await h.submit(h.lastView(), { in_loadW: typed('1400') }, ANA), null);
  const done = (await service().view(id))!.steps.find((s) => s.spec.id === 'ups-rating')!.state;
  assert.equal(done.state, 'done');
  assert.equal(done.state === 'done' ? typeof done.override : '', 'number', 'done by override');
  assert.equal(h.buttons(ts).length, 0);
  assert.match(JSON.stringify(h.messages().get(ts)!.blocks), /past a guardrail by override/);
  assert.ok(stepTs(thread, 'power-plan'), 'the next step is posted');
});

test('Evidence: a bad hash or size is named in the modal; a typed one is recorded as declared; a Slack file is downloaded and measured', async () => {
  const { id, thread } = await start('site-dark');
  for (const step of ['blast-radius', 'no-polling', 'paid-coverage']) {
    await h.click(button(stepTs(thread, step), 'seat_step_skip'));
    await h.submit(h.lastView(), { reason: typed('later') });
  }
  const ts = stepTs(thread, 'recover-power-log');
  await h.click(button(ts, 'seat_step_evidence'));
  const modal = h.lastView();
  assert.equal(modal.callback_id, 'seat_step_evidence_modal');
  assert.deepEqual(await h.submit(modal, {}), { response_action: 'errors', errors: { ev_file: 'upload the file, name one already in Slack, or type its sha256 and size' } });
  assert.deepEqual(await h.submit(modal, { ev_sha256: typed('abc'), ev_size: typed('10') }), { response_action: 'errors', errors: { ev_sha256: 'expected 64 hex digits (the output of sha256sum)' } });
  assert.deepEqual(await h.submit(modal, { ev_sha256: typed('a'.repeat(64)), ev_size: typed('ten') }), { response_action: 'errors', errors: { ev_size: 'expected the file’s size in bytes (a whole number)' } });
  assert.equal(await h.submit(modal, { ev_sha256: typed('A'.repeat(64)), ev_size: typed('2100000'), ev_name: typed('power.log') }), null);
  const declared = (await service().deps.store.events(id)).filter((e) => e.kind === 'evidence').at(-1);
  assert.deepEqual(declared?.payload.evidence, { kind: 'file', of: 'power-log', name: 'power.log', size: 2100000, sha256: 'a'.repeat(64), measured: false });
  assert.match(JSON.stringify(h.messages().get(ts)!.blocks), /evidence so far: power.log 2.1 MB sha256 aaaaaaaaaaaa… \(declared, not measured\)/);
  assert.equal(h.buttons(ts).length, 3, 'the step still waits for Done');

  // A file already in Slack, named by its link: the bot downloads it with its token and hashes it.
  const url = h.files.add('F0LOGLINK1', POWER_LOG);
  h.slack.answer('files.info', { ok: true, file: { id: 'F0LOGLINK1', name: 'power-0913.log', size: POWER_LOG.length, mimetype: 'text/plain', url_private_download: url } });
  await h.click(button(ts, 'seat_step_done'));
  // Evidence of the kind asked for is recorded: Done decides at once, no modal.
  assert.equal(await count(id, 'step.done', 'recover-power-log'), 1);
  const other = await start('site-dark');
  for (const step of ['blast-radius', 'no-polling', 'paid-coverage']) {
    await h.click(button(stepTs(other.thread, step), 'seat_step_skip'));
    await h.submit(h.lastView(), { reason: typed('later') });
  }
  await h.click(button(stepTs(other.thread, 'recover-power-log'), 'seat_step_done'));
  assert.equal(await h.submit(h.lastView(), { ev_file_id: typed('https://drill.slack.example/files/U0ONCALL01/F0LOGLINK1/power-0913.log') }), null);
  const measured = (await service().deps.store.events(other.id)).find((e) => e.kind === 'step.done' && e.step === 'recover-power-log');
  assert.deepEqual(measured?.payload.evidence, { kind: 'file', of: 'power-log', name: 'power-0913.log', size: POWER_LOG.length, sha256: sha256(POWER_LOG), measured: true, powerlog: { gpus: 2, samples: 2, peakW: 600.7, peakAt: '2026/09/13 06:56:04.100', lastWindowMeanW: 600, last: '2026/09/13 06:56:04.101', intervalMs: 10000 } });
});

test('a rate-limited update is waited out (Retry-After) before the next step is posted', async () => {
  const { thread } = await start('gateway-down');
  const ts = stepTs(thread, 'probe-gateway');
  h.sleeps.length = 0;
  const mark = h.log.length;
  h.slack.fail('chat.update', 'ratelimited', 1, 2, (args) => String(args.text).startsWith('Step 1 done'));
  await h.click(button(ts, 'seat_step_done'));
  h.slack.heal();
  assert.deepEqual(h.sleeps, [2000], 'waited Slack’s Retry-After once');
  const calls = h.log.slice(mark);
  const refused = calls.findIndex((c) => c.method === 'chat.update' && c.answer.ok === false);
  const landed = calls.findIndex((c, i) => i > refused && c.method === 'chat.update' && c.answer.ok === true && c.args.ts === ts);
  const next = calls.findIndex((c) => c.method === 'chat.postMessage' && JSON.stringify(c.args.blocks).includes('`gateway-local`'));
  assert.ok(refused >= 0 && landed > refused && next > landed, `refused ${refused}, landed ${landed}, next ${next}`);
  assert.equal(h.buttons(ts).length, 0);
});

void chosen;
