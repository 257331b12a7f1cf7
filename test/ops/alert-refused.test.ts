// POST /alertmanager refuses what is not Alertmanager's, before anything is done: no token (401), a
// forged one (401), a body over 1 MiB (413), malformed JSON or a payload that is not version 4 (400,
// naming what is wrong). Nothing is posted, nothing journalled. Without SEAT_ALERTMANAGER_TOKEN the
// receiver is off (404) and the bot says so at start. The log is JSON lines on a non-terminal
// stdout, with no token in them.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseInventory } from '../../src/inventory/load.ts';
import { Fleet } from '../../src/inventory/fleet.ts';
import { openSqliteJournal } from '../../src/journal/sqlite.ts';
import { runBot } from '../../src/slack/main.ts';
import { startSlackApi, type SlackApiStandIn } from '../helpers/slack.ts';

const SECRET = '1234567890abcdef1234567890abcdef';
const TOKEN = 'am-token-0123456789abcdef0123456789';
const GATEWAY_KEY = 'sk-gateway-key-value-0123456789';
let slack: SlackApiStandIn;
let dir: string;

before(async () => {
  slack = await startSlackApi();
  dir = await mkdtemp(join(tmpdir(), 'seatbelt-am-refused-'));
});
after(async () => {
  await slack.close();
  await rm(dir, { recursive: true, force: true });
});

const fleet = (() => {
  const r = parseInventory(`
oncall: { users: [U0ONCALL01], channels: [C0INCIDENT] }
settings: { probeTimeoutMs: 500, deadlineMs: 2000 }
incidents: { autoOpen: true }
gateway: { baseUrl: http://127.0.0.1:9, keys: { admin: { env: SEAT_REFUSED_TEST_KEY } } }
sites: { fv: { hosts: { fv-ml1: { address: 127.0.0.1, gpuVendor: none } } } }
`);
  if (!r.ok) throw new Error(r.errors.join('\n'));
  return new Fleet(r.value);
})();

async function waitFor<T>(what: string, f: () => T | null, ms = 30_000): Promise<T> {
  const end = performance.now() + ms;
  for (;;) {
    const v = f();
    if (v !== null) return v;
    if (performance.now() > end) throw new Error(`gave up waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

async function bot(extra: Record<string, string>, journal: string): Promise<{ ops: string; err: () => string; out: () => string; stop: () => Promise<number> }> {
  let err = '';
  let out = '';
  let stop!: () => void;
  const until = new Promise<void>((r) => (stop = r));
  const env = { SLACK_BOT_TOKEN: 'xoxb-1111-2222-good', SLACK_SIGNING_SECRET: SECRET, PORT: '0', SLACK_API_URL: slack.url, SEAT_JOURNAL: journal, SEAT_HTTP_LISTEN: '127.0.0.1:0', SEAT_PROBE_THREAD: 'off', SEAT_PROBE_MEMORY: 'off', SEAT_REFUSED_TEST_KEY: GATEWAY_KEY, ...extra };
  const running = runBot(fleet, { stderr: { write: (s: string) => (err += s) }, stdout: { write: (s: string) => (out += s), isTTY: false }, env, until });
  const port = await waitFor('the operations port', () => /operations on http:\/\/127\.0\.0\.1:(\d+) /.exec(err)?.[1] ?? null);
  await waitFor('running', () => (err.includes('running on') ? true : null));
  return { ops: `http://127.0.0.1:${port}`, err: () => err, out: () => out, stop: async () => (stop(), await running) };
}

const payload = (over: Record<string, unknown> = {}): Record<string, unknown> => ({
  version: '4',
  groupKey: '{}:{alertname="FvHostDown"}',
  status: 'firing',
  receiver: 'seatbelt',
  groupLabels: {},
  commonLabels: {},
  commonAnnotations: {},
  externalURL: 'http://127.0.0.1:9093',
  truncatedAlerts: 0,
  alerts: [{ status: 'firing', labels: { alertname: 'FvHostDown', site: 'fv' }, annotations: { summary: 'down' }, startsAt: '2026-12-07T04:00:00Z', endsAt: '0001-01-01T00:00:00Z', generatorURL: '', fingerprint: 'abc123' }],
  ...over,
});

test('forged, unauthenticated, oversized and malformed webhook bodies are refused; nothing is posted or journalled; the log is JSON without the token', { timeout: 60_000 }, async () => {
  const journal = join(dir, 'refused.sqlite');
  const b = await bot({ SEAT_ALERTMANAGER_TOKEN: TOKEN }, journal);
  const url = `${b.ops}/alertmanager`;
  const post = async (body: string, auth?: string): Promise<{ status: number; text: string }> => {
    const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', ...(auth ? { authorization: auth } : {}) }, body });
    return { status: res.status, text: await res.text() };
  };
  const calls = slack.calls.length;
  try {
    const good = JSON.stringify(payload());
    assert.equal((await post(good)).status, 401, 'no token');
    assert.equal((await post(good, `Bearer ${TOKEN.slice(0, -1)}x`)).status, 401, 'a forged token');
    assert.equal((await post(good, `Basic ${Buffer.from(`u:${TOKEN}`).toString('base64')}`)).status, 401, 'not a bearer token');
    const big = JSON.stringify(payload({ externalURL: 'x'.repeat(1024 * 1024 + 10) }));
    assert.equal((await post(big, `Bearer ${TOKEN}`)).status, 413, 'over 1 MiB');
    const notJson = await post('{"version": "4", ', `Bearer ${TOKEN}`);
    assert.deepEqual(notJson, { status: 400, text: 'the body is not JSON\n' });
    const v3 = await post(JSON.stringify(payload({ version: '3' })), `Bearer ${TOKEN}`);
    assert.equal(v3.status, 400);
    assert.match(v3.text, /^not an Alertmanager version-4 payload: version: expected "4"/);
    const noTime = await post(JSON.stringify(payload({ alerts: [{ ...(payload().alerts as object[])[0], startsAt: 'yesterday', fingerprint: 'zz' }] })), `Bearer ${TOKEN}`);
    assert.equal(noTime.status, 400);
    assert.match(noTime.text, /alerts\.0\.startsAt: not a time/);
    assert.match(noTime.text, /alerts\.0\.fingerprint: expected hex digits/);
    assert.equal((await fetch(url)).status, 405, 'only POST');
  } finally {
    assert.equal(await b.stop(), 0);
  }
  assert.ok(!slack.calls.slice(calls).some((c) => c.method === 'chat.postMessage'), 'nothing posted');
  const store = openSqliteJournal(journal);
  try {
    assert.deepEqual(await store.incidents(), [], 'nothing journalled');
  } finally {
    await store.close();
  }
  // One JSON object per line, the refusals among them; no secret in any line.
  const lines = b.out().trim().split('\n');
  const events = lines.map((l) => JSON.parse(l) as { event: string; why?: string; level: string; time: string });
  assert.deepEqual(events.filter((e) => e.event === 'alertmanager.refused').map((e) => e.why), ['unauthenticated', 'unauthenticated', 'unauthenticated', 'too_large', 'bad_payload', 'bad_payload', 'bad_payload']);
  assert.ok(events.some((e) => e.event === 'bot.started'));
  for (const secret of [TOKEN, GATEWAY_KEY, SECRET, 'xoxb-1111-2222-good']) assert.ok(!b.out().includes(secret) && !b.err().includes(secret), `${secret.slice(0, 6)}… appears in the log`);
});

test('without SEAT_ALERTMANAGER_TOKEN the receiver is off: 404, and the bot says so at start', { timeout: 60_000 }, async () => {
  const b = await bot({}, join(dir, 'off.sqlite'));
  try {
    assert.match(b.err(), /seat bot: Alertmanager receiver off: SEAT_ALERTMANAGER_TOKEN is not set\n/);
    const res = await fetch(`${b.ops}/alertmanager`, { method: 'POST', body: JSON.stringify(payload()), headers: { authorization: `Bearer ${TOKEN}` } });
    assert.equal(res.status, 404);
  } finally {
    assert.equal(await b.stop(), 0);
  }
  assert.equal(existsSync(join(dir, 'off.sqlite')) ? (await (async () => { const s = openSqliteJournal(join(dir, 'off.sqlite')); const n = (await s.incidents()).length; await s.close(); return n; })()) : 0, 0);
});

test('a token shorter than 16 characters stops the start, naming the variable', async () => {
  let err = '';
  const code = await runBot(fleet, { stderr: { write: (s: string) => (err += s) }, env: { SLACK_BOT_TOKEN: 'xoxb-1111-2222-good', SLACK_SIGNING_SECRET: SECRET, SEAT_ALERTMANAGER_TOKEN: 'short', SEAT_HTTP_LISTEN: 'off' } });
  assert.equal(code, 2);
  assert.match(err, /cannot start: SEAT_ALERTMANAGER_TOKEN is shorter than 16 characters/);
});
