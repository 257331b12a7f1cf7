// The incident verbs of /seat through the real Bolt app over signed HTTP: an incident's parent
// message and first step, free text shown as typed, who may record and who may only read, bad
// input answered privately, a replayed request recorded once.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { signedPost, slashCommandBody } from '../helpers/slack.ts';
import { ANA, BEN, SECRET, VISITOR, startIncidentHarness, type Harness } from '../helpers/slack-incident.ts';

let h: Harness;

before(async () => {
  h = await startIncidentHarness();
});

after(async () => {
  await h.stop();
});

const service = () => h.seat.incidents!;
const newest = async () => (await service().deps.store.newestOpen())!;

test('incident open: acked at once, the parent message posted, the thread stored; runbook start posts the first step in it', async () => {
  const before = h.log.length;
  const res = await h.command('incident open fv gateway answers 500 on every alias');
  assert.equal(res.status, 200);
  assert.equal(res.body, null, 'acked with nothing to say');
  const incident = (await newest());
  assert.equal(incident.title, 'gateway answers 500 on every alias');
  assert.deepEqual(incident.openedBy, { kind: 'slack', id: ANA.id, name: ANA.name });
  const posts = h.log.slice(before).filter((c) => c.method === 'chat.postMessage');
  assert.equal(posts.length, 1);
  assert.equal(posts[0]!.args.channel, 'C0INCIDENT');
  assert.equal(incident.slack?.thread, posts[0]!.answer.ts, 'the parent message is the incident’s thread');
  assert.match(JSON.stringify(posts[0]!.args.blocks), /Incident #\d+\* · site \*fv\*/);

  await h.command(`runbook start gateway-down ${incident.id}`, BEN);
  const thread = h.thread(incident.slack!.thread);
  assert.equal(thread.length, 1, 'the first step, in the thread');
  const step = JSON.stringify(thread[0]!.blocks);
  assert.match(step, /Step 1 of \d+ · /);
  assert.match(step, /`probe-gateway`/);
  assert.match(step, /_The gateway and the seats behind it are probed apart/, 'its one-line why');
  assert.deepEqual(h.buttons(thread[0]!.ts).map((b) => b.actionId), ['seat_step_done', 'seat_step_skip', 'seat_step_evidence']);
  assert.deepEqual(JSON.parse(h.buttons(thread[0]!.ts)[0]!.value), { incident: incident.id, step: 'probe-gateway', version: 0 });
  // The parent now names the runbook.
  assert.match(JSON.stringify(h.messages().get(incident.slack!.thread)!.blocks), /runbook \*gateway-down\*/);
});

test('free text is data: <!channel>, *bold*, backticks, emoji and any language are stored as typed and shown as typed', async () => {
  // What Slack sends for a typed "<!channel>": its HTML entities.
  const typed = 'Ünïcödé 電源が落ちた 🔥 &lt;!channel&gt; *bold* _it_ ~no~ `code` &amp; :fire:';
  const title = 'Ünïcödé 電源が落ちた 🔥 <!channel> *bold* _it_ ~no~ `code` & :fire:';
  const before = h.log.length;
  await h.command(`incident open fv ${typed}`);
  const incident = (await newest());
  assert.equal(incident.title, title, 'stored as typed');
  const post = h.log.slice(before).find((c) => c.method === 'chat.postMessage')!;
  const blocks = post.args.blocks as { type: string; text?: { type: string; text: string; emoji?: boolean } }[];
  const shown = blocks.find((b) => b.text?.type === 'plain_text');
  assert.deepEqual(shown?.text, { type: 'plain_text', text: title, emoji: false }, 'plain text: no formatting, no ping, no :emoji: shortcode');
  for (const b of blocks) if (b.text?.type === 'mrkdwn') assert.ok(!b.text.text.includes('<!channel>'), 'never in mrkdwn');
  assert.ok(!String(post.args.text).includes('<!channel>'), 'the notification text is escaped');
  assert.match(String(post.args.text), /&lt;!channel&gt;/);

  await h.command(`note --incident ${incident.id} ping &lt;!here&gt; *now* 🚨`);
  const note = (await service().deps.store.events(incident.id)).find((e) => e.kind === 'note');
  assert.equal(note?.payload.text, 'ping <!here> *now* 🚨');
  const line = h.thread(incident.slack!.thread).at(-1)!;
  assert.ok(!JSON.stringify(line.blocks).includes('"type":"mrkdwn","text":"ping'), 'the note is not mrkdwn');
  assert.match(JSON.stringify(line.blocks), /"type":"plain_text","text":"ping <!here> \*now\* 🚨"/);
});

test('only the on-call people record; anyone the channel allows may read', async () => {
  const incidents = (await service().deps.store.incidents()).length;
  const said = h.mark();
  const open = await h.command('incident open fv visitor thinks it is down', VISITOR);
  assert.equal(open.status, 200);
  assert.equal((await service().deps.store.incidents()).length, incidents, 'nothing recorded');
  assert.match(h.said(said).join('\n'), /:no_entry: only the on-call people may record decisions: <@U0ONCALL01>, <@U0ONCALL02>/);

  const n = h.mark();
  await h.command('incident list', VISITOR);
  await h.command(`journal ${(await newest()).id}`, VISITOR);
  await h.command('runbook list', VISITOR);
  const replies = h.slack.responses.slice(-3).map((r) => r.body);
  assert.equal(h.said(n).length, 3);
  assert.ok(replies.every((r) => r.response_type === 'ephemeral'));
  assert.match(JSON.stringify(replies[0]!.blocks), /Open incidents/);
  assert.match(JSON.stringify(replies[1]!.blocks), /incident\.opened/);
  assert.match(JSON.stringify(replies[2]!.blocks), /site-dark/);
});

test('bad input gets the error or usage privately, never a stack trace', async () => {
  const mars = await h.command('incident open mars the red planet');
  assert.equal(mars.body?.response_type, 'ephemeral');
  assert.match(String(mars.body?.text), /unknown site "mars"/);
  assert.match(String(mars.body?.text), /usage: \/seat/);
  const said = h.mark();
  await h.command(`step done no-such-step --incident ${(await newest()).id}`);
  await h.command('override approve 999 --incident 999');
  await h.command(`runbook start no-such-runbook ${(await newest()).id}`);
  const replies = h.said(said);
  assert.equal(replies.length, 3);
  assert.match(replies[0]!, /^:x: incident #\d+ has no runbook yet|^:x: runbook \S+ has no step "no-such-step"/);
  assert.match(replies[1]!, /^:x: no incident #999/);
  assert.match(replies[2]!, /^:x: no runbook "no-such-runbook"/);
  assert.ok(!replies.join('\n').match(/\n\s+at /), 'no stack trace');
});

test('a replayed /seat incident open (same trigger_id) opens one incident', async () => {
  const before = (await service().deps.store.incidents()).length;
  const posts = h.log.filter((c) => c.method === 'chat.postMessage').length;
  const body = slashCommandBody({ text: 'incident open fv replayed once', responseUrl: `${h.slack.base}/response/replay`, triggerId: '9001.replayed' });
  const ts = Math.floor(Date.now() / 1000);
  await signedPost(h.events, body, { secret: SECRET, timestamp: ts });
  await signedPost(h.events, body, { secret: SECRET, timestamp: ts });
  await h.seat.idle();
  assert.equal((await service().deps.store.incidents()).length, before + 1);
  assert.equal(h.log.filter((c) => c.method === 'chat.postMessage').length, posts + 1, 'one parent message');
});

test('journal verify answers privately that the chain holds', async () => {
  const said = h.mark();
  await h.command('journal verify', VISITOR);
  assert.match(h.said(said)[0]!, /^:white_check_mark: the journal holds: \d+ events in \d+ incidents, every hash and link recomputed/);
});

test('typed step verbs: evidence, a block, a skip, a refusal, an override asked and approved by someone else', async () => {
  await h.command('incident open fv typed verbs');
  const id = (await newest()).id;
  await h.command(`runbook start site-dark ${id}`);
  const thread = (await newest()).slack!.thread;
  const state = async (step: string) => (await service().view(id))!.steps.find((s) => s.spec.id === step)!.state;
  await h.command(`step evidence no-polling --incident ${id} --yes`);
  const ev = (await service().deps.store.events(id)).find((e) => e.kind === 'evidence');
  assert.deepEqual(ev?.payload.evidence, { kind: 'yesno', of: 'ups-reset', answer: true });
  await h.command(`step block blast-radius --incident ${id} waiting for the gateway host to boot`, BEN);
  assert.equal((await state('blast-radius')).state, 'blocked');
  await h.command(`step skip blast-radius --incident ${id} gateway host is dark too`);
  assert.equal((await state('blast-radius')).state, 'skipped');
  // no-polling has its evidence already: a typed Done runs its probe and records it.
  await h.command(`step done no-polling --incident ${id}`);
  assert.equal((await state('no-polling')).state, 'done');
  assert.ok((await service().deps.store.events(id)).some((e) => e.kind === 'probe.report' && e.step === 'no-polling'));
  await h.command(`step skip paid-coverage --incident ${id} no coverage: told the users in #fv-users`);
  await h.command(`step skip recover-power-log --incident ${id} the log is on a drive in the dark rack`);
  // No power log: the typed Done is refused, and the refusal is posted in the thread with its buttons.
  await h.command(`step done ups-rating --incident ${id} --load-w 1400`, BEN);
  assert.equal((await state('ups-rating')).state, 'blocked');
  const refused = h.thread(thread).at(-1)!;
  assert.match(JSON.stringify(refused.blocks), /Refused by power-log-first/);
  assert.deepEqual(h.buttons(refused.ts).map((b) => b.text), ['Done', 'Skip', 'Evidence', 'Ask for override']);
  const said = h.mark();
  await h.command(`override request ups-rating power-log-first --incident ${id} the vendor quote is due today`, BEN);
  const seq = (await service().view(id))!.overrides.at(-1)!.seq;
  assert.match(JSON.stringify(h.thread(thread).at(-1)!.blocks), /with `action=power-sizing loadW=1400`/);
  await h.command(`override approve ${seq} --incident ${id}`, BEN);
  assert.match(h.said(said).join('\n'), /ben asked for this override: a second on-call person must approve it/);
  await h.command(`override approve ${seq} --incident ${id}`, ANA);
  assert.ok((await service().view(id))!.overrides.at(-1)!.approved);
  await h.command(`step done ups-rating --incident ${id} --load-w 1400`, BEN);
  const done = (await state('ups-rating'));
  assert.equal(done.state, 'done');
  assert.equal(done.state === 'done' ? done.override : undefined, (await service().view(id))!.overrides.at(-1)!.approved!.seq);
  assert.ok((await service().deps.store.verify(id)).ok);
});
