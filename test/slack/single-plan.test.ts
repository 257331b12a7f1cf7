// The bot plans each probe once: the count in "probing fv: 0 of N" comes from the runner's start
// event, not from a plan of its own. A counting spy on the environment the planner reads (the
// gateway key's variable, read once per key per plan) tells how many plans ran, with the real
// planner and runner behind the real Bolt app, queued probes included.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { planProbe, type ProbeRequest } from '../../src/commands/probe.ts';
import { Fleet } from '../../src/inventory/fleet.ts';
import { parseInventory } from '../../src/inventory/load.ts';
import { createSeatApp, type SeatApp } from '../../src/slack/app.ts';
import { signedPost, slashCommandBody, startSlackApi, type SlackApiStandIn } from '../helpers/slack.ts';

const SECRET = 'a0b1c2d3e4f5061728394a5b6c7d8e9f';
const KEY_VAR = 'SEAT_TEST_ADMIN_KEY';

/** An environment that counts how often the gateway key's variable is read. */
function countingEnv(): { env: NodeJS.ProcessEnv; reads: () => number } {
  let reads = 0;
  const env = new Proxy<NodeJS.ProcessEnv>({ [KEY_VAR]: 'sk-single-plan-0123456789' }, {
    get(target, prop, receiver) {
      if (prop === KEY_VAR) reads += 1;
      return Reflect.get(target, prop, receiver) as unknown;
    },
  });
  return { env, reads: () => reads };
}

// The gateway refuses at once (port 9 on loopback): the plan is what is counted, not the answers.
const r = parseInventory(`
fleet: single-plan
settings: { probeTimeoutMs: 600, deadlineMs: 2000 }
oncall: { users: [U0ONCALL01], channels: [C0INCIDENT, C0OTHER, C0THIRD] }
gateway: { baseUrl: http://127.0.0.1:9, keys: { admin: { env: ${KEY_VAR} } } }
sites: { fv: { hosts: { fv-ml1: { address: 127.0.0.1, gpuVendor: none } } } }
aliases:
  gen: { kind: chat, backend: { name: local-test, paid: false } }
  summarizer: { kind: chat, backend: { name: local-test, paid: false } }
`);
if (!r.ok) throw new Error(r.errors.join('\n'));
const fleet = new Fleet(r.value);
const req: ProbeRequest = { site: 'fv', only: ['aliases'], timeoutMs: null, paid: false };

const spy = countingEnv();
let slack: SlackApiStandIn;
let seat: SeatApp;
let events: string;

before(async () => {
  slack = await startSlackApi();
  seat = createSeatApp({
    fleet,
    config: { botToken: 'xoxb-test-0000000000', mode: { kind: 'http', signingSecret: SECRET, port: 0 }, slackApiUrl: slack.url },
    probeDeps: { env: spy.env },
    // Two at once: a probe that waits its turn is planned when it runs, once, like any other.
    maxProbes: 2,
    logger: { debug() {}, info() {}, warn() {}, error() {}, setLevel() {}, getLevel: () => 'info' as never, setName() {} },
    sleep: async () => {},
  });
  events = `http://127.0.0.1:${await seat.start()}/slack/events`;
});

after(async () => {
  await seat.idle();
  await seat.stop();
  await slack.close();
});

test('each /seat probe is planned once, by the run; its first message counts that plan’s tasks', async () => {
  const alone = countingEnv();
  const plan = planProbe(fleet, req, { env: alone.env });
  plan.close();
  const perPlan = alone.reads();
  assert.ok(perPlan >= 1, 'the spy sees a plan');

  const before = slack.calls.length;
  const reads = spy.reads();
  const res = await signedPost(events, slashCommandBody({ text: 'probe fv --only aliases', responseUrl: `${slack.base}/response/one` }), { secret: SECRET });
  assert.equal(res.status, 200);
  await seat.idle();
  assert.equal(spy.reads() - reads, perPlan, 'one plan for one probe');
  const first = slack.calls.slice(before).find((c) => c.method === 'chat.postMessage');
  assert.equal(first?.args.text, `probing fv: 0 of ${plan.tasks.length} …`);
});

test('three probes asked back to back through a queue of two: three plans, whether or not one had to wait', async () => {
  const perPlan = (() => {
    const alone = countingEnv();
    planProbe(fleet, req, { env: alone.env }).close();
    return alone.reads();
  })();
  const reads = spy.reads();
  // Three channels: three probes of their own, none joined.
  for (const channel of ['C0INCIDENT', 'C0OTHER', 'C0THIRD']) {
    const res = await signedPost(events, slashCommandBody({ text: 'probe fv --only aliases', channel, responseUrl: `${slack.base}/response/${channel}` }), { secret: SECRET });
    assert.equal(res.status, 200);
  }
  await seat.idle();
  assert.equal(spy.reads() - reads, 3 * perPlan);
});
