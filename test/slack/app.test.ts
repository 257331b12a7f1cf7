// The real Bolt app receiving signed HTTP requests on loopback, its Web API calls going to a
// recording Slack stand-in, its probes going to a LiteLLM-speaking gateway stand-in.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { parseInventory } from '../../src/inventory/load.ts';
import { Fleet } from '../../src/inventory/fleet.ts';
import { createSeatApp, type SeatApp } from '../../src/slack/app.ts';
import { startGateway } from '../../drills/litellm.ts';
import { blockActionBody, signedPost, slashCommandBody, startSlackApi, type SlackApiStandIn } from '../helpers/slack.ts';

const SECRET = 'f0e1d2c3b4a5968778695a4b3c2d1e0f';
const KEY = 'sk-drill-admin-0123456789';

let slack: SlackApiStandIn;
let gateway: Awaited<ReturnType<typeof startGateway>>;
let seat: SeatApp;
let events: string;
/** Every wait the app asked for (Slack's Retry-After): recorded, not slept. */
const sleeps: number[] = [];

function inventory(gatewayUrl: string): Fleet {
  const r = parseInventory(`
fleet: slack-test
settings: { probeTimeoutMs: 600, deadlineMs: 2000 }
oncall: { users: [U0ONCALL01, U0ONCALL02], channels: [C0INCIDENT, C0OTHER] }
gateway: { baseUrl: ${gatewayUrl}, keys: { admin: { env: SEAT_TEST_ADMIN_KEY } } }
sites:
  fv:
    hosts: { fv-ml1: { address: 127.0.0.1, gpuVendor: none } }
aliases:
  gen: { kind: chat, backend: { name: local-test, paid: false } }
  summarizer: { kind: chat, backend: { name: local-test, paid: false } }
  classifier: { kind: chat, backend: { name: local-test, paid: false } }
  stuck: { kind: chat, backend: { name: local-test, paid: false } }
`);
  if (!r.ok) throw new Error(r.errors.join('\n'));
  return new Fleet(r.value);
}

const logger = quietLogger();

before(async () => {
  slack = await startSlackApi();
  gateway = await startGateway({
    keys: { admin: KEY },
    aliases: { gen: { mode: 'ok' }, summarizer: { mode: 'ok' }, classifier: { mode: 'error', status: 500 }, stuck: { mode: 'hang' } },
  });
  seat = createSeatApp({
    fleet: inventory(gateway.url),
    config: { botToken: 'xoxb-test-0000000000', mode: { kind: 'http', signingSecret: SECRET, port: 0 }, slackApiUrl: slack.url },
    probeDeps: { env: { SEAT_TEST_ADMIN_KEY: KEY } },
    // As `seat bot` runs: the probes in a thread of their own.
    probeThread: true,
    updateIntervalMs: 100,
    logger,
    sleep: async (ms) => void sleeps.push(ms),
  });
  const port = await seat.start();
  events = `http://127.0.0.1:${port}/slack/events`;
});

after(async () => {
  await seat.idle();
  await seat.stop();
  await gateway.stop();
  await slack.close();
});

function quietLogger() {
  const lines: string[] = [];
  const log = (...m: unknown[]): void => void lines.push(m.join(' '));
  return { debug: log, info: log, warn: log, error: log, setLevel: () => {}, getLevel: () => 'info' as never, setName: () => {}, lines };
}

const command = (text: string, extra: { user?: string; channel?: string } = {}) =>
  signedPost(events, slashCommandBody({ text, responseUrl: `${slack.base}/response/${Math.random().toString(36).slice(2)}`, ...extra }), { secret: SECRET });

test('/seat probe fv: acked at once, posted, updated as findings arrive, then the final report with a Probe again button', async () => {
  const before = slack.calls.length;
  const res = await command('probe fv --only aliases');
  assert.equal(res.status, 200);
  assert.equal(res.text, '', 'acked at once, with nothing to say');
  await seat.idle();
  const calls = slack.calls.slice(before);
  const post = calls.find((c) => c.method === 'chat.postMessage');
  assert.ok(post, calls.map((c) => c.method).join(','));
  assert.equal(post.args.channel, 'C0INCIDENT');
  assert.match(String(post.args.text), /^probing fv: 0 of [1-9]\d* …/);
  const updates = calls.filter((c) => c.method === 'chat.update');
  assert.ok(updates.length >= 1);
  const final = updates.at(-1)!;
  const blocks = JSON.stringify(final.args.blocks);
  assert.match(String(final.args.text), /^DOWN fv: /);
  assert.match(blocks, /classifier/);
  assert.match(blocks, /stuck/);
  assert.match(blocks, /Probe again/);
  assert.match(JSON.stringify(post.args.blocks), /asked by <@U0ONCALL01>/, 'the channel sees who ran it');
  assert.match(blocks, /asked by <@U0ONCALL01>/);
  assert.ok(!blocks.includes(KEY) && !JSON.stringify(calls).includes(KEY), 'the gateway key never reaches Slack');
  assert.equal(seat.threadedProbes, 1, 'the probe ran in the probe thread');
});

test('a signed Probe again click re-runs the probe into the same message and says who asked', async () => {
  const before = slack.calls.length;
  const value = JSON.stringify({ site: 'fv', only: ['aliases'], timeoutMs: null, paid: false });
  const res = await signedPost(events, blockActionBody({ value, ts: '1767225600.000777', responseUrl: `${slack.base}/response/click` }), { secret: SECRET });
  assert.equal(res.status, 200);
  await slack.waitFor((s) => s.calls.slice(before).some((c) => c.method === 'chat.update' && /^DOWN fv/.test(String(c.args.text))));
  await seat.idle();
  const updates = slack.calls.slice(before).filter((c) => c.method === 'chat.update');
  assert.ok(updates.every((u) => u.args.ts === '1767225600.000777'), 'same message, updated in place');
  assert.ok(slack.calls.slice(before).every((c) => c.method !== 'chat.postMessage'), 'no new message');
  assert.match(JSON.stringify(updates.at(-1)!.args.blocks), /asked by <@U0ONCALL02>/);
});

test('a forged signature and a timestamp older than 5 minutes are refused, and nothing is posted', async () => {
  const before = slack.calls.length;
  const body = slashCommandBody({ text: 'probe fv', responseUrl: `${slack.base}/response/x` });
  const forged = await signedPost(events, body, { secret: SECRET, signature: 'v0=' + '0'.repeat(64) });
  const wrongSecret = await signedPost(events, body, { secret: 'not-the-secret-at-all' });
  const stale = await signedPost(events, body, { secret: SECRET, timestamp: Math.floor(Date.now() / 1000) - 6 * 60 });
  for (const r of [forged, wrongSecret, stale]) assert.equal(r.status, 401);
  // Refused before any listener runs: there is no work after the ack to wait for.
  await seat.idle();
  assert.equal(slack.calls.length, before);
});

test('someone outside the on-call list gets an ephemeral refusal that says who can', async () => {
  const before = slack.calls.length;
  const res = await command('probe fv', { user: 'U0VISITOR9' });
  assert.equal(res.status, 200);
  const body = JSON.parse(res.text) as { response_type: string; text: string };
  assert.equal(body.response_type, 'ephemeral');
  assert.match(body.text, /only the on-call people may use \/seat: <@U0ONCALL01>, <@U0ONCALL02>/);
  assert.equal(slack.calls.length, before, 'no probe, no post');
});

test('outside the configured channels /seat says where it works', async () => {
  const res = await command('probe fv', { channel: 'C0RANDOM' });
  const body = JSON.parse(res.text) as { text: string };
  assert.match(body.text, /\/seat works in <#C0INCIDENT>, <#C0OTHER> only/);
});

for (const [text, expected] of [
  ['probe <@U123ABC>', /a user mention \(<@U123ABC>\) is not an argument/],
  ['probe <#C1ABC|general>', /a channel link \(<#C1ABC\|general>\) is not an argument/],
  ['probe fv &lt;script&gt;', /unexpected character "<"/],
  ['probe ' + 'x'.repeat(4000), /4006 characters; the most is 512/],
  ['probe mars', /unknown site "mars"/],
  ['reboot fv', /unknown command "reboot"/],
] as const) {
  test(`hostile text ${JSON.stringify(text.slice(0, 30))} gets an ephemeral usage reply`, async () => {
    const before = slack.calls.length;
    const res = await command(text);
    assert.equal(res.status, 200);
    const body = JSON.parse(res.text) as { response_type: string; text: string };
    assert.equal(body.response_type, 'ephemeral');
    assert.match(body.text, expected);
    assert.match(body.text, /usage: \/seat probe <site\|all>/);
    assert.equal(slack.calls.length, before);
  });
}

test('/seat help answers with the usage', async () => {
  const res = await command('help');
  const body = JSON.parse(res.text) as { text: string };
  assert.match(body.text, /\/seat probe <site\|all> \[--only aliases,gpus,power\]/);
  assert.ok(!body.text.includes('seat bot'), 'terminal-only verbs are not offered in Slack');
});

test('channel_not_found: the person hears why by response_url and still gets the report; the bot keeps running', async () => {
  slack.fail('chat.postMessage', 'channel_not_found');
  const responsesBefore = slack.responses.length;
  await command('probe fv --only aliases');
  await seat.idle();
  const replies = slack.responses.slice(responsesBefore).map((r) => String(r.body.text));
  assert.ok(replies.some((t) => /could not post in this channel \(channel_not_found\): invite the bot/.test(t)), replies.join('\n'));
  assert.ok(replies.some((t) => /^DOWN fv: /.test(t)), 'the report came by the other path');
  const again = await command('probe fv --only aliases');
  assert.equal(again.status, 200);
  await seat.idle();
});

test('channel gone and the response_url expired: every failure is logged with its code, and the bot keeps answering', async () => {
  slack.fail('chat.postMessage', 'channel_not_found');
  slack.fail('response_url', 'expired_url', 10);
  const logged = logger.lines.length;
  await command('probe fv --only power');
  await seat.idle();
  slack.heal();
  const lines = logger.lines.slice(logged).join('\n');
  assert.match(lines, /chat\.postMessage in C0INCIDENT failed: channel_not_found/);
  assert.match(lines, /the report could not be delivered by any path: response_url_http_404 \(expired\)/);
  assert.ok(!lines.includes(KEY) && !lines.includes('xoxb-test'), 'no secret in the log');
  // Still running: the next probe is posted as usual.
  const before = slack.calls.length;
  assert.equal((await command('probe fv --only power')).status, 200);
  await seat.idle();
  assert.ok(slack.calls.slice(before).some((c) => c.method === 'chat.update' && /^OK fv: /.test(String(c.args.text))));
});

test('a rate-limited progress update is skipped and the final report still lands', async () => {
  slack.fail('chat.update', 'ratelimited', 1);
  const before = slack.calls.length;
  await command('probe fv --only aliases');
  await seat.idle();
  const updates = slack.calls.slice(before).filter((c) => c.method === 'chat.update');
  assert.match(String(updates.at(-1)?.args.text), /^DOWN fv: /);
});

test('--json is refused in Slack with where it belongs; a phone’s em dash still reads as --', async () => {
  const json = JSON.parse((await command('probe fv --json')).text) as { text: string };
  assert.match(json.text, /--json is for the terminal/);
  const before = slack.calls.length;
  const res = await command('probe fv —only aliases');
  assert.equal(res.text, '', 'acked without complaint');
  await seat.idle();
  assert.ok(slack.calls.slice(before).some((c) => c.method === 'chat.postMessage'));
});

test('Probe again on an ephemeral report (no message to update) posts a new one', async () => {
  const before = slack.calls.length;
  const value = JSON.stringify({ site: 'fv', only: ['aliases'], timeoutMs: null, paid: false });
  const payload = JSON.parse(new URLSearchParams(blockActionBody({ value, ts: 'x', responseUrl: `${slack.base}/response/eph` })).get('payload')!) as Record<string, unknown>;
  delete payload.message;
  payload.container = { type: 'message', message_ts: '1767225600.000999', channel_id: 'C0INCIDENT', is_ephemeral: true };
  const res = await signedPost(events, new URLSearchParams({ payload: JSON.stringify(payload) }).toString(), { secret: SECRET });
  assert.equal(res.status, 200);
  await slack.waitFor((s) => s.calls.slice(before).some((c) => c.method === 'chat.update' && /^DOWN fv/.test(String(c.args.text))));
  assert.ok(slack.calls.slice(before).some((c) => c.method === 'chat.postMessage' && c.args.channel === 'C0INCIDENT'));
});

test('a final update Slack keeps rate-limiting is retried after Retry-After, then delivered to the person with why', async () => {
  slack.fail('chat.update', 'ratelimited', 1000, 1);
  const responses = slack.responses.length;
  sleeps.length = 0;
  await command('probe fv --only power');
  await seat.idle();
  slack.heal();
  assert.deepEqual(sleeps, [1000], 'waited out Retry-After (1 s) once before the second try');
  const reply = slack.responses.slice(responses).map((r) => String(r.body.text)).find((t) => t.includes('could not be posted'));
  assert.ok(reply, 'the report came by response_url');
  assert.match(reply, /the report could not be posted in the channel \(ratelimited \(retry after 1 s\)\); here it is: OK fv: /);
});

test('a final update that succeeds on the retry lands in the channel, after Retry-After, and nothing goes private', async () => {
  const before = slack.calls.length;
  const responses = slack.responses.length;
  // Only the final report is refused, once: progress updates go through.
  slack.fail('chat.update', 'ratelimited', 1, 1, (args) => /^OK fv: /.test(String(args.text)));
  sleeps.length = 0;
  await command('probe fv --only power');
  await seat.idle();
  slack.heal();
  const finals = slack.calls.slice(before).filter((c) => c.method === 'chat.update' && /^OK fv: /.test(String(c.args.text)));
  assert.equal(finals.length, 2, 'refused once, then sent again');
  assert.deepEqual(sleeps, [1000], 'after waiting out Retry-After');
  assert.ok(!slack.responses.slice(responses).some((r) => /could not be posted/.test(String(r.body.text))), 'no private fallback');
});

test('when every final update fails the channel message still says where the report went', async () => {
  const before = slack.calls.length;
  const responses = slack.responses.length;
  // Rate-limited twice with the blocks; the plain-text notice goes through.
  slack.fail('chat.update', 'ratelimited', 2, 1, (args) => /^OK fv: /.test(String(args.text)));
  await command('probe fv --only power');
  await seat.idle();
  slack.heal();
  const updates = slack.calls.slice(before).filter((c) => c.method === 'chat.update');
  assert.match(String(updates.at(-1)?.args.text), /^OK fv: .* — the full report could not be posted here \(ratelimited .*\); it was sent privately to <@U0ONCALL01>$/);
  assert.ok(slack.responses.slice(responses).some((r) => /could not be posted in the channel/.test(String(r.body.text))), 'the report came privately');
});

test('a double click on Probe again runs one probe; the second click is told one is running', async () => {
  const responses = slack.responses.length;
  const before = slack.calls.length;
  const value = JSON.stringify({ site: 'fv', only: ['aliases'], timeoutMs: null, paid: false });
  const click = () => signedPost(events, blockActionBody({ value, ts: '1767225600.000888', responseUrl: `${slack.base}/response/dbl` }), { secret: SECRET });
  const [a, b] = await Promise.all([click(), click()]);
  assert.equal(a.status, 200);
  assert.equal(b.status, 200);
  await slack.waitFor((s) => s.responses.slice(responses).some((r) => /already probing into this message/.test(String(r.body.text))));
  await seat.idle();
  const finals = slack.calls.slice(before).filter((c) => c.method === 'chat.update' && /^DOWN fv/.test(String(c.args.text)));
  assert.equal(finals.length, 1, 'one final report, not two');
});

test('a replayed signed /seat request (same body, same trigger_id, within Bolt\'s 5 minutes) is acked and runs nothing', async () => {
  const before = slack.calls.length;
  const logged = logger.lines.length;
  const body = slashCommandBody({ text: 'probe fv --only power', responseUrl: `${slack.base}/response/replay`, triggerId: '7001.replayed' });
  const timestamp = Math.floor(Date.now() / 1000);
  const first = await signedPost(events, body, { secret: SECRET, timestamp });
  const replay = await signedPost(events, body, { secret: SECRET, timestamp });
  assert.equal(first.status, 200);
  assert.equal(replay.status, 200, 'acked, so Slack does not retry it');
  await seat.idle();
  const posts = slack.calls.slice(before).filter((c) => c.method === 'chat.postMessage');
  assert.equal(posts.length, 1, 'one trigger_id, one probe');
  assert.match(logger.lines.slice(logged).join('\n'), /replayed \/seat request ignored \(trigger_id 7001\.replayed, user U0ONCALL01\)/);
  // A new request (its own trigger_id) still runs.
  await command('probe fv --only power');
  await seat.idle();
  assert.equal(slack.calls.slice(before).filter((c) => c.method === 'chat.postMessage').length, 2);
});

test('a replayed Probe again click runs no second probe and says nothing to anyone', async () => {
  const value = JSON.stringify({ site: 'fv', only: ['power'], timeoutMs: null, paid: false });
  const body = blockActionBody({ value, ts: '1767225600.000555', responseUrl: `${slack.base}/response/click-replay`, triggerId: '7002.replayed' });
  const timestamp = Math.floor(Date.now() / 1000);
  const before = slack.calls.length;
  const responses = slack.responses.length;
  assert.equal((await signedPost(events, body, { secret: SECRET, timestamp })).status, 200);
  await seat.idle();
  assert.equal((await signedPost(events, body, { secret: SECRET, timestamp })).status, 200);
  await seat.idle();
  const finals = slack.calls.slice(before).filter((c) => c.method === 'chat.update' && /^OK fv: /.test(String(c.args.text)));
  assert.equal(finals.length, 1);
  assert.ok(!slack.responses.slice(responses).some((r) => /already probing/.test(String(r.body.text))), 'a replay is not a double click');
});
