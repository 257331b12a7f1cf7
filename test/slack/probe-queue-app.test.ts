// The probe queue through the real Bolt app: signed /seat probe requests and Probe again clicks on
// loopback, Web API calls to the recording Slack stand-in, and a stand-in probe runner that holds
// every probe until the test lets it go. It counts how many run at once; nothing here is timed.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import type { ProbeDeps, ProbeReport, ProbeRequest } from '../../src/commands/probe.ts';
import { decide, summarize } from '../../src/diagnose/verdict.ts';
import { Fleet } from '../../src/inventory/fleet.ts';
import { parseInventory } from '../../src/inventory/load.ts';
import { SCHEMA_VERSION } from '../../src/probes/canonical.ts';
import { createSeatApp, type SeatApp } from '../../src/slack/app.ts';
import { blockActionBody, signedPost, slashCommandBody, startSlackApi, type SlackApiStandIn } from '../helpers/slack.ts';

const SECRET = '0f1e2d3c4b5a69788796a5b4c3d2e1f0';

function inventory(): Fleet {
  const r = parseInventory(`
fleet: queue-test
oncall: { users: [U0ONCALL01, U0ONCALL02], userGroup: S0ONCALL, channels: [C0INCIDENT, C0OTHER] }
gateway: { baseUrl: http://127.0.0.1:9, keys: { admin: { env: SEAT_TEST_ADMIN_KEY } } }
sites:
  fv: { hosts: { fv-ml1: { address: 127.0.0.1, gpuVendor: none } } }
`);
  if (!r.ok) throw new Error(r.errors.join('\n'));
  return new Fleet(r.value);
}

/** A report with nothing in it: what the stand-in answers when let go. */
function emptyReport(fleet: Fleet, req: ProbeRequest): ProbeReport {
  const sites = [req.site];
  const summary = summarize(fleet, [], sites);
  const at = '2026-12-03T03:00:00.000Z';
  return { schemaVersion: SCHEMA_VERSION, site: req.site, fleet: fleet.inventory.fleet, drill: false, sites, startedAt: at, finishedAt: at, durationMs: 1, timeoutMs: 600, deadlineMs: 2000, findings: [], summary, verdict: decide(sites, summary) };
}

interface Held {
  name: string; // the groups asked, in the parser's order: "aliases,power": each test asks different ones
  release(): void;
  fail(why: string): void;
}

/** The probe runner's stand-in: says "3 tasks" when it starts, then holds until let go. */
function holdingRunner() {
  const held: Held[] = [];
  let now = 0;
  let most = 0;
  const run = (fleet: Fleet, req: ProbeRequest, deps: ProbeDeps = {}): Promise<ProbeReport> => {
    now += 1;
    most = Math.max(most, now);
    deps.onEvent?.({ type: 'start', total: 3 });
    return new Promise<ProbeReport>((resolve, reject) => {
      held.push({ name: req.only.join(','), release: () => resolve(emptyReport(fleet, req)), fail: (why) => reject(new Error(why)) });
    }).finally(() => (now -= 1));
  };
  return {
    run,
    held,
    get now() {
      return now;
    },
    get most() {
      return most;
    },
    find(name: string): Held {
      const h = held.find((x) => x.name === name);
      assert.ok(h, `${name} has started (started: ${held.map((x) => x.name).join(' | ')})`);
      return h;
    },
  };
}

let slack: SlackApiStandIn;
let seat: SeatApp;
let events: string;
const runner = holdingRunner();

before(async () => {
  slack = await startSlackApi();
  slack.groups.set('S0ONCALL', ['U0GROUP01']);
  seat = createSeatApp({
    fleet: inventory(),
    config: { botToken: 'xoxb-test-0000000000', mode: { kind: 'http', signingSecret: SECRET, port: 0 }, slackApiUrl: slack.url },
    runProbe: runner.run,
    updateIntervalMs: 100,
    logger: { debug() {}, info() {}, warn() {}, error() {}, setLevel() {}, getLevel: () => 'info' as never, setName() {} },
    sleep: async () => {},
  });
  events = `http://127.0.0.1:${await seat.start()}/slack/events`;
});

after(async () => {
  for (const h of runner.held) h.release();
  await seat.idle();
  await seat.stop();
  await slack.close();
});

/** Asks for a probe; what the ack said (nothing, unless it joined one already queued or running). */
const ask = async (only: string, o: { user?: string; channel?: string; reply?: string } = {}): Promise<string> => {
  const res = await signedPost(events, slashCommandBody({ text: `probe fv --only ${only}`, responseUrl: `${slack.base}/response/${o.reply ?? 'q'}`, ...o }), { secret: SECRET });
  assert.equal(res.status, 200);
  return res.text === '' ? '' : String((JSON.parse(res.text) as { text: string }).text);
};

const probe = async (only: string, o: { user?: string; channel?: string; reply?: string } = {}): Promise<void> => {
  assert.equal(await ask(only, o), '', 'acked with nothing to say, whatever waits');
};

const head = (t: string): string => t.replace(/ \(.*|:.*/, '');

test('six probes at once: four run, the fifth and sixth are told their place in the message that becomes the report, and start in order', async () => {
  const before = slack.calls.length;
  const asked = ['power', 'aliases', 'gpus', 'aliases,power', 'gpus,power', 'aliases,gpus'];
  for (const only of asked) await probe(only);
  await slack.waitFor((s) => s.calls.slice(before).filter((c) => c.method === 'chat.postMessage').length === 6);
  assert.deepEqual(runner.held.map((h) => h.name), asked.slice(0, 4), 'the first four started');
  assert.equal(runner.now, 4);
  const posts = slack.calls.slice(before).filter((c) => c.method === 'chat.postMessage').map((c) => String(c.args.text));
  assert.equal(posts.filter((t) => /^probing fv: 0 of 3 …/.test(t)).length, 4);
  assert.ok(posts.includes('queued: next to start (probe of fv (gpus, power); 4 running, at most 4 at once)'), posts.join('\n'));
  assert.ok(posts.includes('queued: 1 probe ahead of yours (probe of fv (aliases, gpus); 4 running, at most 4 at once)'), posts.join('\n'));
  const queuedPost = slack.calls.slice(before).find((c) => c.method === 'chat.postMessage' && /^queued: 1 probe/.test(String(c.args.text)))!;
  assert.match(JSON.stringify(queuedPost.args.blocks), /asked by <@U0ONCALL01>/);
  // The sixth asked again while it waits: joined, not queued twice.
  assert.match(await ask('aliases,gpus', { user: 'U0ONCALL02' }), /^:link: a probe of fv \(aliases, gpus\) asked by <@U0ONCALL01> is already queued in this channel/);

  // The second finishes first: the fifth takes its slot and its queued message says it is probing.
  runner.find('aliases').release();
  await slack.waitFor(() => runner.held.length === 5);
  assert.equal(runner.held[4]!.name, 'gpus,power', 'the one asked first of those waiting');
  // The first fails: its message says so, and the sixth still starts.
  runner.find('power').fail('ssh: connection refused');
  await slack.waitFor(() => runner.held.length === 6);
  assert.equal(runner.held[5]!.name, 'aliases,gpus');
  for (const name of ['gpus', 'aliases,power', 'gpus,power', 'aliases,gpus']) runner.find(name).release();
  await seat.idle();
  assert.equal(runner.most, 4, 'never more than four at once');

  const calls = slack.calls.slice(before);
  // Only a probe that waited has a message to update when it starts: the fifth's and the sixth's.
  const started = calls.filter((c) => c.method === 'chat.update' && /^probing fv: 0 of 3 …/.test(String(c.args.text)));
  assert.equal(started.length, 2);
  for (const s of started) {
    const texts = calls.filter((c) => c.method === 'chat.update' && c.args.ts === s.args.ts).map((c) => head(String(c.args.text)));
    assert.deepEqual(texts, ['probing fv', 'DEGRADED fv'], 'the queued message says it is probing, then becomes the report');
  }
  const failed = calls.filter((c) => c.method === 'chat.update' && /could not finish \(ssh: connection refused\)/.test(String(c.args.text)));
  assert.equal(failed.length, 1, 'the failed probe says so in its own message');
  assert.equal(calls.filter((c) => c.method === 'chat.update' && /^DEGRADED fv: nothing to probe/.test(String(c.args.text))).length, 5, 'every other probe delivered its report');
});

test('the same probe asked again in the same channel joins the one queued or running; elsewhere, or another scope, runs its own', async () => {
  const before = runner.held.length;
  const responses = slack.responses.length;
  await probe('power', { reply: 'first' });
  await slack.waitFor(() => runner.held.length === before + 1);
  // Someone on the on-call list is told on the ack itself: no Slack call after it.
  const joined = await ask('power', { user: 'U0ONCALL02', reply: 'joiner' });
  assert.equal(joined, ':link: a probe of fv (power) asked by <@U0ONCALL01> is already running in this channel: its message will carry the report, so it is not run twice');
  // Someone allowed through the user group is checked after the ack, then told by response_url.
  await probe('power', { user: 'U0GROUP01', reply: 'group-joiner' });
  await probe('power', { channel: 'C0OTHER', reply: 'other-channel' });
  await probe('gpus,power', { reply: 'other-scope' });
  await slack.waitFor(() => runner.held.length === before + 3);
  await slack.waitFor((s) => s.responses.slice(responses).some((r) => r.path === '/response/group-joiner'));
  const told = slack.responses.slice(responses).filter((r) => r.path === '/response/group-joiner' || r.path === '/response/joiner').map((r) => String(r.body.text));
  assert.deepEqual(told, [joined], 'the group member hears the same; the list member nothing more');
  for (const h of runner.held.slice(before)) h.release();
  await seat.idle();
  assert.equal(runner.held.length, before + 3, 'three probes ran for five asks');
  // Done: the same ask runs again.
  await probe('power', { reply: 'later' });
  await slack.waitFor(() => runner.held.length === before + 4);
  runner.held.at(-1)!.release();
  await seat.idle();
});

test('Probe again waits in the same queue: its place and then its progress go into the clicked message', async () => {
  const before = slack.calls.length;
  const start = runner.held.length;
  for (const only of ['power', 'aliases', 'gpus', 'aliases,power']) await probe(only);
  await slack.waitFor(() => runner.held.length === start + 4);
  const value = JSON.stringify({ site: 'fv', only: ['gpus', 'power'], timeoutMs: null, paid: false });
  const ts = '1767225600.000321';
  assert.equal((await signedPost(events, blockActionBody({ value, ts, responseUrl: `${slack.base}/response/again` }), { secret: SECRET })).status, 200);
  await slack.waitFor((s) => s.calls.slice(before).some((c) => c.method === 'chat.update' && c.args.ts === ts));
  assert.equal(runner.held.length, start + 4, 'the click waits: four already run');
  runner.held[start]!.release();
  await slack.waitFor(() => runner.held.length === start + 5);
  assert.equal(runner.held.at(-1)!.name, 'gpus,power');
  for (const h of runner.held.slice(start + 1)) h.release();
  await seat.idle();
  const mine = slack.calls.slice(before).filter((c) => c.method === 'chat.update' && c.args.ts === ts).map((c) => String(c.args.text));
  assert.deepEqual(mine.map(head), ['queued', 'probing fv', 'DEGRADED fv']);
  assert.match(mine[0]!, /^queued: next to start \(probe of fv \(gpus, power\); 4 running, at most 4 at once\)$/);
  assert.equal(slack.calls.slice(before).filter((c) => c.method === 'chat.postMessage').length, 4, 'no new message for the click');
});
