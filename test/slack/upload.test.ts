// A report longer than one message, or with rows folded: summarised in the message, the full text attached in its thread.
// And on-call given as a Slack user group, resolved through usergroups.users.list.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { parseInventory } from '../../src/inventory/load.ts';
import { Fleet } from '../../src/inventory/fleet.ts';
import { createSeatApp, type SeatApp } from '../../src/slack/app.ts';
import { startGateway, type AliasBehaviour } from '../../drills/litellm.ts';
import { signedPost, slashCommandBody, startSlackApi, type SlackApiStandIn } from '../helpers/slack.ts';

const SECRET = '0a1b2c3d4e5f60718293a4b5c6d7e8f9';
const KEY = 'sk-upload-test-key-000111';
let slack: SlackApiStandIn;
let gateway: Awaited<ReturnType<typeof startGateway>>;
let seat: SeatApp;
let events: string;

before(async () => {
  slack = await startSlackApi();
  slack.groups.set('S0ONCALL', ['U0GROUPMEMBER']);
  const aliases: Record<string, AliasBehaviour> = {};
  for (let i = 0; i < 60; i++) aliases[`alias-${i}`] = { mode: 'error', status: 500 };
  gateway = await startGateway({ keys: { admin: KEY }, aliases });
  const r = parseInventory(`
settings: { probeTimeoutMs: 800 }
oncall: { users: [U0ONCALL01], userGroup: S0ONCALL }
gateway: { baseUrl: ${gateway.url}, keys: { admin: { env: SEAT_TEST_KEY } } }
sites: { fv: { hosts: { fv-ml1: { address: 127.0.0.1, gpuVendor: none } } } }
aliases:
${Object.keys(aliases).map((a) => `  ${a}: { kind: chat, backend: { name: local, paid: false } }`).join('\n')}
`);
  if (!r.ok) throw new Error(r.errors.join('\n'));
  seat = createSeatApp({
    fleet: new Fleet(r.value),
    config: { botToken: 'xoxb-test-0000000000', mode: { kind: 'http', signingSecret: SECRET, port: 0 }, slackApiUrl: slack.url },
    probeDeps: { env: { SEAT_TEST_KEY: KEY } },
    updateIntervalMs: 50,
    logger: { debug() {}, info() {}, warn() {}, error() {}, setLevel() {}, getLevel: () => 'info' as never, setName() {} },
  });
  events = `http://127.0.0.1:${await seat.start()}/slack/events`;
});

after(async () => {
  await seat.idle();
  await seat.stop();
  await gateway.stop();
  await slack.close();
});

const run = (text: string, user: string) =>
  signedPost(events, slashCommandBody({ text, user, responseUrl: `${slack.base}/response/${user}` }), { secret: SECRET });

test('60 aliases down: the message stays within limits and the full report is uploaded into its thread', async () => {
  const before = slack.calls.length;
  await run('probe fv --only aliases', 'U0ONCALL01');
  await seat.idle();
  const calls = slack.calls.slice(before);
  const post = calls.find((c) => c.method === 'chat.postMessage');
  const final = calls.filter((c) => c.method === 'chat.update').at(-1);
  assert.ok(post && final);
  const blocks = final.args.blocks as unknown[];
  assert.ok(blocks.length <= 8, `${blocks.length} blocks: sized for a phone`);
  assert.match(JSON.stringify(blocks), /• \*backend:local\*: 60 aliases down — http status/, 'the 60 rows folded into one line: one place, one cause');
  const complete = calls.find((c) => c.method === 'files.completeUploadExternal');
  assert.ok(complete, calls.map((c) => c.method).join(', '));
  assert.equal(complete.args.channel_id, 'C0INCIDENT');
  assert.equal(complete.args.thread_ts, final.args.ts);
  const uploaded = slack.uploads.at(-1) ?? '';
  assert.match(uploaded, /^DOWN fv: 60 of 60 aliases down/m);
  assert.match(uploaded, /^ {2}DOWN alias {4}alias-59 /m, 'every row, with its detail');
  assert.match(uploaded, /^ {2}ok {3}gateway /m, 'the rows folded in the message are in the file');
  assert.match(uploaded, /^next: /m);
  assert.ok(!uploaded.includes(KEY));
});

test('a member of the on-call user group may probe; a non-member is told who can', async () => {
  const before = slack.calls.length;
  const ok = await run('probe fv --only power', 'U0GROUPMEMBER');
  assert.equal(ok.status, 200);
  await seat.idle();
  assert.ok(slack.calls.slice(before).some((c) => c.method === 'usergroups.users.list'));
  assert.ok(slack.calls.slice(before).some((c) => c.method === 'chat.postMessage'), 'the member’s probe was posted');
  const responses = slack.responses.length;
  await run('probe fv --only power', 'U0STRANGER');
  await slack.waitFor((s) => s.responses.length > responses);
  assert.match(String(slack.responses.at(-1)?.body.text), /only the on-call people may use \/seat: <@U0ONCALL01>, <!subteam\^S0ONCALL>/);
});

test('blocks Slack refuses (invalid_blocks): the verdict alone is posted and the full report attached', async () => {
  slack.maxBlocks = 8;
  const before = slack.calls.length;
  await run('probe fv --only aliases', 'U0ONCALL01');
  await seat.idle();
  slack.maxBlocks = 50;
  const calls = slack.calls.slice(before);
  const landed = calls.filter((c) => c.method === 'chat.update' && (c.args.blocks as unknown[]).length <= 8).at(-1);
  assert.ok(landed, calls.map((c) => c.method).join(', '));
  assert.match(String(landed.args.text), /^DOWN fv: 60 of 60 aliases down/);
  assert.match(JSON.stringify(landed.args.blocks), /full report is attached in the thread/);
  assert.ok(calls.some((c) => c.method === 'files.completeUploadExternal'), 'the rest is attached');
});

test('a long report that can only go privately says how to see all of it: there is no thread to attach to', async () => {
  slack.fail('chat.postMessage', 'channel_not_found');
  const responses = slack.responses.length;
  await run('probe fv --only aliases', 'U0ONCALL01');
  await seat.idle();
  slack.heal();
  const report = slack.responses.slice(responses).find((r) => /^DOWN fv: 60 of 60 aliases down/.test(String(r.body.text)));
  assert.ok(report, slack.responses.slice(responses).map((r) => String(r.body.text)).join('\n'));
  const blocks = JSON.stringify(report.body.blocks);
  assert.match(blocks, /for every row, run `seat probe fv --all` in a terminal/);
  assert.doesNotMatch(blocks, /attached in the thread/);
});
