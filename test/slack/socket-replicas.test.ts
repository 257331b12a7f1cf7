// Two replicas in Socket Mode on one journal: each real Bolt app opens its own connection (Slack gives
// each event to one of an app's connections), the Socket Mode server here deals the envelopes out
// between them, and an incident walked that way records what one bot would. A click Slack redelivers
// on the other connection (its retry after a lost ack) records once.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { WebSocketServer, type WebSocket } from 'ws';
import { DRILL_BIN, DRILL_INVENTORY } from '../../drills/drill.ts';
import { startDrillFleet, type DrillFleet } from '../../drills/litellm.ts';
import { Fleet } from '../../src/inventory/fleet.ts';
import { parseInventory } from '../../src/inventory/load.ts';
import { createSeatApp, type SeatApp } from '../../src/slack/app.ts';
import { startSlackApi, type SlackApiStandIn } from '../helpers/slack.ts';
import { ANA, BEN, CHANNEL, buttonBody, currentMessages, startAnswerLog, type Exchange } from '../helpers/slack-incident.ts';

let slack: SlackApiStandIn;
let proxy: { url: string; log: Exchange[]; close(): Promise<void> };
let wss: WebSocketServer;
let drill: DrillFleet;
let dir: string;
const seats: SeatApp[] = [];
const sockets: WebSocket[] = [];
const acks = new Set<string>();
let n = 0;

before(async () => {
  slack = await startSlackApi();
  proxy = await startAnswerLog(slack.url);
  wss = new WebSocketServer({ host: '127.0.0.1', port: 0 });
  await new Promise<void>((r) => wss.once('listening', () => r()));
  wss.on('connection', (ws) => {
    sockets.push(ws);
    ws.on('message', (m: Buffer) => {
      const j = JSON.parse(m.toString()) as { envelope_id?: string };
      if (j.envelope_id) acks.add(j.envelope_id);
    });
    ws.send(JSON.stringify({ type: 'hello', num_connections: sockets.length, debug_info: { host: 'drill' }, connection_info: { app_id: 'A0SEATBELT' } }));
  });
  slack.answer('apps.connections.open', { ok: true, url: `ws://127.0.0.1:${(wss.address() as AddressInfo).port}/link/?ticket=drill` });
  const r = parseInventory(await readFile(DRILL_INVENTORY, 'utf8'));
  if (!r.ok) throw new Error(r.errors.join('\n'));
  drill = await startDrillFleet(new Fleet(r.value), undefined, { ephemeralPorts: true, env: {} });
  dir = await mkdtemp(join(tmpdir(), 'seatbelt-socket-replicas-'));
  const quiet = { debug() {}, info() {}, warn() {}, error() {}, setLevel() {}, getLevel: () => 'info' as never, setName() {} };
  for (const name of ['sock-a', 'sock-b']) {
    const app = createSeatApp({
      fleet: new Fleet(drill.fleet.inventory),
      config: { botToken: 'xoxb-test-0000000000', mode: { kind: 'socket', appToken: 'xapp-1-A0SEATBELT-0000-drill' }, slackApiUrl: proxy.url },
      probeDeps: { env: { ...drill.env, PATH: process.env.PATH ?? '' }, pathPrefix: [DRILL_BIN] },
      journal: join(dir, 'journal.sqlite'),
      logger: quiet,
      sleep: async () => {},
      replica: name,
    });
    await app.start();
    seats.push(app);
  }
  await until(() => sockets.length === 2);
});

after(async () => {
  for (const s of seats) {
    await s.idle();
    await s.stop();
  }
  for (const ws of sockets) ws.terminate();
  await new Promise<void>((r) => wss.close(() => r()));
  await drill?.stop();
  await proxy.close();
  await slack.close();
  await rm(dir, { recursive: true, force: true });
});

async function until(pred: () => boolean, ms = 20_000): Promise<void> {
  const end = performance.now() + ms;
  while (!pred()) {
    if (performance.now() > end) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 10));
  }
}

/** One envelope to one connection, acked by that replica, its work after the ack finished. */
async function deliver(i: number, type: 'slash_commands' | 'interactive', payload: Record<string, unknown>, id = `env-${++n}`): Promise<void> {
  sockets[i]!.send(JSON.stringify({ envelope_id: id, type, accepts_response_payload: type === 'slash_commands', payload }));
  await until(() => acks.has(id));
  await Promise.all(seats.map((s) => s.idle()));
}

const command = (text: string, user = ANA) => ({ token: 'x', team_id: 'T0DRILL', channel_id: CHANNEL, user_id: user.id, user_name: user.name, command: '/seat', text, api_app_id: 'A0SEATBELT', response_url: `${slack.base}/response/s${++n}`, trigger_id: `t${n}` });

function doneButton(step: string): { ts: string; value: string } {
  for (const [ts, m] of currentMessages(proxy.log)) {
    for (const b of m.blocks as { type: string; elements?: { action_id: string; value: string }[] }[]) {
      if (b.type !== 'actions') continue;
      for (const e of b.elements ?? []) if (e.action_id === 'seat_step_done' && (JSON.parse(e.value) as { step: string }).step === step) return { ts, value: e.value };
    }
  }
  throw new Error(`no Done for ${step}`);
}

test('Socket Mode: two replicas, each with its own connection, walk one incident; a click redelivered on the other connection records once', { timeout: 120_000 }, async () => {
  assert.equal(slack.calls.filter((c) => c.method === 'apps.connections.open').length, 2, 'each replica opened its own connection');
  await deliver(0, 'slash_commands', command('incident open fv gateway answers 500 everywhere'));
  await deliver(1, 'slash_commands', command('runbook start gateway-down 1', BEN));
  const store = seats[1]!.incidents!.deps.store;
  assert.ok((await store.events(1)).some((e) => e.kind === 'runbook.pinned'), 'the second replica pinned on the incident the first opened');

  const b = doneButton('probe-gateway');
  const click = JSON.parse(new URLSearchParams(buttonBody({ actionId: 'seat_step_done', value: b.value, ts: b.ts, user: ANA, responseUrl: `${slack.base}/response/c1`, actionTs: '1767225600.555' })).get('payload')!) as Record<string, unknown>;
  await deliver(0, 'interactive', click);
  // Slack's retry of the same click (the same action_ts) on the other connection.
  await deliver(1, 'interactive', click);
  const done = (await store.events(1)).filter((e) => e.kind === 'step.done' && e.step === 'probe-gateway');
  assert.equal(done.length, 1, 'one decision across both connections');
  assert.ok(doneButton('gateway-local'), 'the next step is up, with its Done');
  assert.ok((await store.verify(1)).ok);
});
