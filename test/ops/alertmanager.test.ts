// A real Alertmanager routes an alert posted to its API to the bot's POST /alertmanager: the recording
// Slack Web API receives the probe report of the alert's site in the alert channel; the same alert
// again (a re-notification) updates the same message; resolving it (endsAt in the past) is noted in
// the thread and, with incidents.autoOpen, in the journal of the incident the alert opened (its
// first event after the opening is the alert, dated startsAt).
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseInventory } from '../../src/inventory/load.ts';
import { Fleet } from '../../src/inventory/fleet.ts';
import { openSqliteJournal } from '../../src/journal/sqlite.ts';
import { project } from '../../src/incident/engine.ts';
import { renderPostmortem } from '../../src/postmortem/index.ts';
import { runBot } from '../../src/slack/main.ts';
import { startSlackApi, type ApiCall, type SlackApiStandIn } from '../helpers/slack.ts';
import { ALERTMANAGER, startAlertmanager } from './alertmanager-helpers.ts';

const skip = existsSync(ALERTMANAGER) ? false : `${ALERTMANAGER} is not installed (apt-get install prometheus-alertmanager)`;
const SECRET = '1234567890abcdef1234567890abcdef';
const TOKEN = 'am-token-0123456789abcdef0123456789';
let slack: SlackApiStandIn;
let dir: string;

before(async () => {
  slack = await startSlackApi();
  dir = await mkdtemp(join(tmpdir(), 'seatbelt-am-bot-'));
});
after(async () => {
  await slack.close();
  await rm(dir, { recursive: true, force: true });
});

function fleetOf(autoOpen: boolean): Fleet {
  const r = parseInventory(`
oncall: { users: [U0ONCALL01], channels: [C0INCIDENT] }
settings: { probeTimeoutMs: 500, deadlineMs: 2000 }
alerts: { channel: C0ALERTS }
incidents: { autoOpen: ${autoOpen} }
gateway: { baseUrl: http://127.0.0.1:9, keys: { admin: { env: SEAT_AM_TEST_KEY } } }
sites:
  fv: { hosts: { fv-ml1: { address: 127.0.0.1, gpuVendor: none } } }
  ana: { hosts: { ana-ml2: { address: 127.0.0.2, gpuVendor: none } } }
`);
  if (!r.ok) throw new Error(r.errors.join('\n'));
  return new Fleet(r.value);
}

async function waitFor<T>(what: string, f: () => T | null | Promise<T | null>, ms = 30_000, log = (): string => ''): Promise<T> {
  const end = performance.now() + ms;
  for (;;) {
    const v = await f();
    if (v !== null) return v;
    if (performance.now() > end) throw new Error(`gave up waiting for ${what}\n${log().slice(-2000)}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

const inAlerts = (c: ApiCall): boolean => c.args.channel === 'C0ALERTS';
const blocksText = (c: ApiCall): string => JSON.stringify(c.args.blocks ?? '');

async function startBot(autoOpen: boolean, journal: string): Promise<{ ops: string; err: () => string; stop: () => Promise<number> }> {
  let err = '';
  let stop!: () => void;
  const until = new Promise<void>((r) => (stop = r));
  const env = { SLACK_BOT_TOKEN: 'xoxb-1111-2222-good', SLACK_SIGNING_SECRET: SECRET, PORT: '0', SLACK_API_URL: slack.url, SEAT_JOURNAL: journal, SEAT_HTTP_LISTEN: '127.0.0.1:0', SEAT_PROBE_THREAD: 'off', SEAT_PROBE_MEMORY: 'off', SEAT_ALERTMANAGER_TOKEN: TOKEN };
  const running = runBot(fleetOf(autoOpen), { stderr: { write: (s: string) => (err += s) }, env, until });
  const port = await waitFor('the operations port', () => /operations on http:\/\/127\.0\.0\.1:(\d+) \(\/healthz, \/readyz, \/metrics, POST \/alertmanager\)/.exec(err)?.[1] ?? null, 30_000, () => err);
  await waitFor('the receiver line', () => (err.includes('Alertmanager receiver on at POST /alertmanager') ? true : null), 30_000, () => err);
  return { ops: `http://127.0.0.1:${port}`, err: () => err, stop: async () => (stop(), await running) };
}

test('Alertmanager → the bot: the probe report of fv in the alert channel; again: the same message updated; resolved: noted; the incident begins with the alert', { skip, timeout: 120_000 }, async () => {
  const journal = join(dir, 'journal.sqlite');
  const bot = await startBot(true, journal);
  const am = await startAlertmanager({ webhook: `${bot.ops}/alertmanager`, token: TOKEN, repeatInterval: '2s' });
  try {
    const startsAt = new Date(Date.now() - 120_000).toISOString();
    const alert = { labels: { alertname: 'FvHostDown', site: 'fv', instance: 'fv-ml1:9100', severity: 'page' }, annotations: { summary: 'fv-ml1 stopped answering node_exporter' }, startsAt };
    assert.equal(await am.post([alert]), 200);
    const first = await waitFor('the report in C0ALERTS', () => slack.calls.find((c) => c.method === 'chat.postMessage' && inAlerts(c) && !c.args.thread_ts) ?? null, 30_000, am.log);
    const text = blocksText(first);
    assert.match(text, /FvHostDown/);
    assert.match(text, /fv-ml1 stopped answering node_exporter/, 'the alert’s summary');
    assert.match(text, /\*fv\*/, 'the report of site fv');
    assert.match(text, /fv-ml1/, 'its host measured');
    assert.ok(!text.includes('ana-ml2'), `ana was not probed: ${text}`);
    // The incident, in the alert message's thread.
    const opened = await waitFor('the incident line', () => slack.calls.find((c) => c.method === 'chat.postMessage' && inAlerts(c) && c.args.thread_ts && String(c.args.text).includes('opened')) ?? null);
    const parentTs = opened.args.thread_ts as string;

    // Re-notification (repeat_interval 2s) of the same alert, posted again: the same message is updated.
    assert.equal(await am.post([alert]), 200);
    const updated = await waitFor('chat.update of the same message', () => slack.calls.find((c) => c.method === 'chat.update' && inAlerts(c) && c.args.ts === parentTs) ?? null, 30_000, am.log);
    assert.match(blocksText(updated), /FvHostDown/);
    assert.equal(slack.calls.filter((c) => c.method === 'chat.postMessage' && inAlerts(c) && !c.args.thread_ts).length, 1, 'one message for the group');

    // Resolved: endsAt in the past.
    assert.equal(await am.post([{ ...alert, endsAt: new Date(Date.now() - 1000).toISOString() }]), 200);
    const resolved = await waitFor('the resolved line in the thread', () => slack.calls.find((c) => c.method === 'chat.postMessage' && c.args.thread_ts === parentTs && String(c.args.text).includes('resolved')) ?? null, 30_000, am.log);
    assert.match(String(resolved.args.text), /FvHostDown/);
  } finally {
    await am.stop();
    assert.equal(await bot.stop(), 0);
  }
  const store = openSqliteJournal(journal);
  try {
    const incidents = await store.incidents();
    assert.equal(incidents.length, 1, 'one group key, one incident');
    const events = await store.events(incidents[0]!.id);
    assert.deepEqual(events.slice(0, 3).map((e) => e.kind), ['incident.opened', 'note', 'probe.report']);
    const alertEvent = events[1]!;
    assert.equal(alertEvent.actor.kind, 'system');
    assert.ok(alertEvent.happenedAt < events[0]!.happenedAt, 'the alert is dated when it began firing, before the opening');
    assert.equal((alertEvent.payload.alert as { labels: Record<string, string> }).labels.alertname, 'FvHostDown');
    assert.ok(events.some((e) => e.kind === 'note' && String(e.payload.text).includes('resolved')), 'resolved, in the journal');
    assert.equal(incidents[0]!.site, 'fv');
    // Time to detect counts from the alert's startsAt: the postmortem's impact begins when it fired.
    const md = renderPostmortem(project(incidents[0]!, events), { format: 'md', head: events.at(-1)!.hash, now: new Date() });
    const row = md.split('\n').find((l) => l.startsWith('| **IMPACT BEGINS** |')) ?? '';
    assert.match(row, new RegExp(`the alert that opened the incident began firing \\(#${alertEvent.seq}\\)`), row);
    const detect = Math.round((Date.parse(events[0]!.happenedAt) - Date.parse(String((alertEvent.payload.alert as { startsAt: string }).startsAt))) / 1000);
    assert.ok(detect >= 100, `the alert began ~2 min before the opening (${detect} s)`);
    assert.match(md, /\| Time to detect \(impact begins → declared\) \| (1|2) min/);
  } finally {
    await store.close();
  }
});
