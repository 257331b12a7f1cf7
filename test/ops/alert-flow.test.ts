// The alert flow against a real SQLite journal and the recording Slack Web API: labels map to the
// inventory (site, instance → host, alias, gpu; a value it does not hold maps to nothing); an alert
// that maps to nothing is posted once; a GPU alert probes the GPUs only; an alert for a site an open
// incident holds dark is noted in that incident and not probed. The bearer check, the redaction of
// the JSON log, the schedule (an injected timer) posting only a change of verdict.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import bolt from '@slack/bolt';
import type { ProbeReport, ProbeRequest } from '../../src/commands/probe.ts';
import { IncidentService } from '../../src/incident/service.ts';
import { openSqliteJournal } from '../../src/journal/sqlite.ts';
import type { JournalStore } from '../../src/journal/store.ts';
import { bearerMatches } from '../../src/ops/alert-auth.ts';
import { createAlertFlow } from '../../src/ops/alert-flow.ts';
import { mapAlert } from '../../src/ops/alert-map.ts';
import { parseWebhook, type Webhook } from '../../src/ops/alert-payload.ts';
import { slackOf } from '../../src/ops/bot-wiring.ts';
import { jsonLog, secretsOf, silentLog } from '../../src/ops/log.ts';
import { scheduleMs, startSchedule } from '../../src/ops/schedule.ts';
import { startSlackApi, type SlackApiStandIn } from '../helpers/slack.ts';
import { DARK_AT, fvAddresses, testFleet } from '../guardrails/helpers.ts';

const fleet = testFleet();
let slack: SlackApiStandIn;
let dir: string;
let store: JournalStore;
let service: IncidentService;
let clock = Date.parse(DARK_AT) + 5 * 60_000;

before(async () => {
  slack = await startSlackApi();
  dir = await mkdtemp(join(tmpdir(), 'seatbelt-alert-flow-'));
  store = openSqliteJournal(join(dir, 'journal.sqlite'), { now: () => new Date(clock) });
  service = new IncidentService({ store, fleet, runbooks: new Map(), now: () => new Date(clock) });
});
after(async () => {
  await store.close();
  await slack.close();
  await rm(dir, { recursive: true, force: true });
});

function webhook(groupKey: string, labels: Record<string, string>, over: Partial<Webhook['alerts'][number]> = {}): Webhook {
  const r = parseWebhook(JSON.stringify({ version: '4', groupKey, status: 'firing', alerts: [{ status: 'firing', labels: { alertname: 'Test', ...labels }, annotations: { summary: 'the summary' }, startsAt: '2026-09-13T06:50:00Z', endsAt: '0001-01-01T00:00:00Z', fingerprint: 'f00d', ...over }] }));
  if (!r.ok) throw new Error(r.error);
  return r.value;
}

function reportOf(req: ProbeRequest, status: 'ok' | 'down' = 'ok'): ProbeReport {
  return {
    schemaVersion: 1, site: req.site, fleet: 'guardrail-tests', drill: false, sites: [req.site], startedAt: new Date(clock).toISOString(), finishedAt: new Date(clock).toISOString(), durationMs: 5, timeoutMs: 3000, deadlineMs: 10000, findings: [],
    summary: {} as ProbeReport['summary'],
    verdict: { status, headline: `${req.site} is ${status}`, lines: [], runbook: status === 'down' ? 'site-dark' : null, proposal: null, elsewhere: [] } as unknown as ProbeReport['verdict'],
  };
}

test('labels map to the inventory: site, instance (name, address, host:port) → host, alias, gpu; what it does not hold maps to nothing', () => {
  assert.deepEqual(mapAlert(fleet, { site: 'fv' }), { ok: true, value: { site: 'fv', only: ['aliases', 'gpus', 'power'], what: 'site fv' } });
  assert.deepEqual(mapAlert(fleet, { instance: '192.0.2.20:9100' }), { ok: true, value: { site: 'ana', only: ['aliases', 'gpus', 'power'], what: 'host ana-ml2' } });
  assert.deepEqual(mapAlert(fleet, { instance: 'fv-ml1.lab.example:9400', gpu: '2' }), { ok: true, value: { site: 'fv', only: ['gpus'], what: 'host fv-ml1 GPU 2' } });
  assert.deepEqual(mapAlert(fleet, { alias: 'gen-large' }), { ok: true, value: { site: 'fv', only: ['aliases'], what: 'alias gen-large' } });
  assert.deepEqual(mapAlert(fleet, { host: 'ana-ml2' }, { site: 'site', host: 'host', alias: 'alias', gpu: 'gpu' }).ok, true, 'label names from alerts.labels');
  assert.match((mapAlert(fleet, { site: 'mars' }) as { why: string }).why, /^site="mars" is no site of the inventory \(fv, ana\)$/);
  assert.match((mapAlert(fleet, { instance: 'fv-ml1:9100', gpu: '7' }) as { why: string }).why, /gpu="7" is no GPU of host fv-ml1 \(0, 1, 2\)/);
  assert.match((mapAlert(fleet, { site: 'ana', instance: 'fv-ml1' }) as { why: string }).why, /is host fv-ml1, at site fv, not ana/);
  assert.match((mapAlert(fleet, { job: 'x' }) as { why: string }).why, /no label names a site, host or alias/);
  assert.match((mapAlert(fleet, { site: 'evil\n<!channel>' }) as { why: string }).why, /^site="evil <!channel>"/, 'control characters out');
});

test('the bearer token: only `Bearer <token>` exactly', () => {
  const t = 'tok-0123456789abcdef';
  assert.equal(bearerMatches(`Bearer ${t}`, t), true);
  assert.equal(bearerMatches(`bearer ${t}`, t), true);
  for (const h of [undefined, '', t, `Bearer ${t}x`, `Bearer ${t.slice(1)}`, `Bearer  ${t}`, `Basic ${t}`]) assert.equal(bearerMatches(h, t), false, String(h));
});

test('the JSON log takes every secret out: the tokens and the gateway keys from env, and anything shaped like a Slack token', () => {
  const env = { SEAT_ALERTMANAGER_TOKEN: 'am-secret-0123456789abcdef', LITELLM_ADMIN_KEY: 'sk-admin-value-0123456789', SLACK_BOT_TOKEN: 'xoxb-9-9-nine' };
  let out = '';
  const log = jsonLog({ write: (l) => (out += l), secrets: secretsOf(env, fleet), now: () => new Date(0) });
  log('warn', 'x', { header: `Bearer ${env.SEAT_ALERTMANAGER_TOKEN}`, key: `key=${env.LITELLM_ADMIN_KEY}`, other: 'xoxp-1234-5678-abcd', bot: env.SLACK_BOT_TOKEN });
  assert.equal(out, '{"time":"1970-01-01T00:00:00.000Z","level":"warn","event":"x","header":"Bearer [redacted]","key":"key=[redacted]","other":"[redacted]","bot":"[redacted]"}\n');
});

test('an alert that maps to nothing is posted once as such; a GPU alert probes the GPUs only; a repeat updates the same message', async () => {
  const asked: ProbeRequest[] = [];
  const flow = createAlertFlow({ fleet, channel: 'C0ALERTS', autoOpen: false, slack: slackOf(new bolt.webApi.WebClient('xoxb-1', { slackApiUrl: slack.url }), silentLog), probe: async (r) => (asked.push(r), reportOf(r)), journal: () => ({ store, service }), now: () => new Date(clock), log: silentLog });
  const mark = slack.calls.length;
  await flow.handle(webhook('g-unmapped', { site: 'mars' }));
  await flow.handle(webhook('g-unmapped', { site: 'mars' }));
  const posted = slack.calls.slice(mark).filter((c) => c.method.startsWith('chat.'));
  assert.equal(posted.length, 1, 'once');
  assert.match(String(posted[0]!.args.text), /maps to nothing in the inventory/);
  assert.match(JSON.stringify(posted[0]!.args.blocks), /site=\\"mars\\" is no site of the inventory/);
  assert.deepEqual(asked, [], 'nothing probed');

  const m2 = slack.calls.length;
  await flow.handle(webhook('g-gpu', { instance: '192.0.2.10:9400', gpu: '2' }));
  assert.deepEqual(asked.map((r: ProbeRequest) => [r.site, r.only]), [['fv', ['gpus']]]);
  clock += 1000;
  await flow.handle(webhook('g-gpu', { instance: '192.0.2.10:9400', gpu: '2' }));
  const calls = slack.calls.slice(m2).filter((c) => c.method.startsWith('chat.'));
  assert.deepEqual(calls.map((c) => c.method), ['chat.postMessage', 'chat.update']);
  assert.match(JSON.stringify(calls[0]!.args.blocks), /host fv-ml1 GPU 2 \(probed: gpus only\)/);
});

test('an alert for a site an open incident holds dark is noted in that incident, not probed', async () => {
  const opened = await service.open({ site: 'fv', title: 'fv dark', actor: { kind: 'local', name: 'ana' } });
  assert.ok('incident' in opened);
  const id = opened.incident.id;
  const r = await store.append({ incident: id, kind: 'probe.report', actor: { kind: 'probe' }, happenedAt: DARK_AT, payload: { report: { site: 'fv', findings: fvAddresses(DARK_AT, false) } } });
  assert.ok(r.ok);
  const asked: ProbeRequest[] = [];
  const flow = createAlertFlow({ fleet, channel: 'C0ALERTS', autoOpen: true, slack: slackOf(new bolt.webApi.WebClient('xoxb-1', { slackApiUrl: slack.url }), silentLog), probe: async (q) => (asked.push(q), reportOf(q)), journal: () => ({ store, service }), now: () => new Date(clock), log: silentLog });
  const mark = slack.calls.length;
  await flow.handle(webhook('g-dark', { site: 'fv' }));
  assert.deepEqual(asked, [], 'not re-probed');
  const post = slack.calls.slice(mark).find((c) => c.method === 'chat.postMessage');
  assert.match(JSON.stringify(post?.args.blocks), /not re-probed before 2026-09-13T07:13:40Z \(no-poll-dark-site\)/);
  const notes = (await store.events(id)).filter((e) => e.kind === 'note');
  assert.equal(notes.length, 1);
  assert.match(String(notes[0]!.payload.text), /not re-probed \(no-poll-dark-site/);
  assert.equal((await store.incidents()).length, 1, 'no second incident opened for a site already in one');
  await flow.handle(webhook('g-dark', { site: 'fv' }));
  assert.equal((await store.events(id)).filter((e) => e.kind === 'note').length, 1, 'a repeat is not noted twice');
  await service.close(id, { kind: 'local', name: 'ana' });
});

test('settings.schedule: every 5m probes each site quietly and posts only a change of verdict, never twice', async () => {
  assert.deepEqual(scheduleMs('every 5m'), { ok: true, ms: 300_000 });
  assert.deepEqual(scheduleMs(undefined), { ok: true, ms: null });
  assert.equal(scheduleMs('every 10s').ok, false);
  const timers: { fn: () => void; ms: number }[] = [];
  const verdicts: Record<string, 'ok' | 'down'> = { fv: 'ok', ana: 'ok' };
  const asked: string[] = [];
  const s = startSchedule({ fleet, everyMs: 300_000, channel: 'C0ALERTS', slack: slackOf(new bolt.webApi.WebClient('xoxb-1', { slackApiUrl: slack.url }), silentLog), probe: async (r) => (asked.push(r.site), reportOf(r, verdicts[r.site])), store: () => store, now: () => new Date(clock), setTimer: (fn, ms) => (timers.push({ fn, ms }), { cancel: () => {} }), log: silentLog });
  const tick = async (): Promise<void> => {
    const t = timers.shift()!;
    assert.equal(t.ms, 300_000);
    t.fn();
    await s.idle();
  };
  const posts = (): string[] => slack.calls.filter((c) => c.method === 'chat.postMessage' && String(c.args.text).startsWith('schedule:')).map((c) => String(c.args.text));
  await tick();
  assert.deepEqual(asked, ['fv', 'ana']);
  assert.deepEqual(posts(), [], 'all ok at first: quiet');
  verdicts.fv = 'down';
  await tick();
  assert.equal(posts().length, 1);
  assert.match(posts()[0]!, /fv/);
  await tick();
  assert.equal(posts().length, 1, 'the same verdict is not posted again');
  verdicts.fv = 'ok';
  await tick();
  assert.equal(posts().length, 2, 'back to ok is a change');
  s.stop();
});
