// `seat bot` with its operations listener: ready once Slack is connected, and /metrics shows the
// probe a person ran in Slack (the report is fed from where the bot finishes a probe), not one per scrape.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseInventory } from '../../src/inventory/load.ts';
import { Fleet } from '../../src/inventory/fleet.ts';
import { runBot } from '../../src/slack/main.ts';
import { signedPost, slashCommandBody, startSlackApi, type SlackApiStandIn } from '../helpers/slack.ts';

let slack: SlackApiStandIn;
let fleet: Fleet;
let dir: string;
const SECRET = '1234567890abcdef1234567890abcdef';

before(async () => {
  slack = await startSlackApi();
  dir = await mkdtemp(join(tmpdir(), 'seatbelt-ops-bot-'));
  const r = parseInventory(`
oncall: { users: [U0ONCALL01] }
settings: { probeTimeoutMs: 500, deadlineMs: 2000 }
gateway: { baseUrl: http://127.0.0.1:9, keys: { admin: { env: SEAT_OPS_TEST_KEY } } }
sites: { fv: { hosts: { fv-ml1: { address: 127.0.0.1, gpuVendor: none } } } }
`);
  if (!r.ok) throw new Error(r.errors.join('\n'));
  fleet = new Fleet(r.value);
});

after(async () => {
  await slack.close();
  await rm(dir, { recursive: true, force: true });
});

async function waitFor<T>(what: string, f: () => Promise<T | null> | T | null, ms = 30_000): Promise<T> {
  const end = performance.now() + ms;
  for (;;) {
    const v = await f();
    if (v !== null) return v;
    if (performance.now() > end) throw new Error(`gave up waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

test('the bot says where its operations listener is; /readyz is 200 once Slack is connected; a Slack probe shows in /metrics', { timeout: 60_000 }, async () => {
  let err = '';
  let stop!: () => void;
  const until = new Promise<void>((r) => (stop = r));
  const env = { SLACK_BOT_TOKEN: 'xoxb-1111-2222-good', SLACK_SIGNING_SECRET: SECRET, PORT: '0', SLACK_API_URL: slack.url, SEAT_JOURNAL: join(dir, 'journal.sqlite'), SEAT_HTTP_LISTEN: '127.0.0.1:0', SEAT_PROBE_THREAD: 'off', SEAT_PROBE_MEMORY: 'off' };
  const running = runBot(fleet, { stderr: { write: (s: string) => (err += s) }, env, until });
  try {
    const slackPort = await waitFor('the Slack port', () => /HTTP on port (\d+)/.exec(err)?.[1] ?? null);
    const opsPort = await waitFor('the operations port', () => /operations on http:\/\/127\.0\.0\.1:(\d+) \(\/healthz, \/readyz, \/metrics\)/.exec(err)?.[1] ?? null);
    assert.notEqual(opsPort, slackPort, 'apart from Slack’s PORT');
    const ops = `http://127.0.0.1:${opsPort}`;
    assert.equal((await fetch(`${ops}/healthz`)).status, 200);
    const ready = await fetch(`${ops}/readyz`);
    assert.equal(ready.status, 200, await ready.text());
    const before = await (await fetch(`${ops}/metrics`)).text();
    assert.ok(!before.includes('site="fv"'), 'no probe yet, no figures: a scrape probes nothing');
    const res = await signedPost(`http://127.0.0.1:${slackPort}/slack/events`, slashCommandBody({ text: 'probe fv', responseUrl: `${slack.base}/response/ops` }), { secret: SECRET });
    assert.equal(res.status, 200);
    const text = await waitFor('fv in /metrics', async () => {
      const t = await (await fetch(`${ops}/metrics`)).text();
      return /^seat_probe_timestamp_seconds\{site="fv"\} \d/m.test(t) ? t : null;
    });
    // The host answers ping on loopback: measured up. The key is unset: no gateway or alias sample at all.
    assert.match(text, /^probe_success\{site="fv",target="fv-ml1",kind="host",key=""\} 1$/m, text);
    assert.ok(!text.includes('kind="gateway"'), text);
    assert.ok(!text.includes('kind="alias"'), text);
  } finally {
    stop();
    assert.equal(await running, 0);
  }
});
