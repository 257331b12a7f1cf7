// Socket Mode, the default for a fleet behind a firewall, end to end on loopback: the real Bolt app
// opens its connection through apps.connections.open (the recording Web API), connects to a
// WebSocket server speaking Slack's Socket Mode envelopes, acks a slash command and posts the report.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import { WebSocketServer, type WebSocket } from 'ws';
import { parseInventory } from '../../src/inventory/load.ts';
import { Fleet } from '../../src/inventory/fleet.ts';
import { createSeatApp, type SeatApp } from '../../src/slack/app.ts';
import { startSlackApi, type SlackApiStandIn } from '../helpers/slack.ts';

let slack: SlackApiStandIn;
let wss: WebSocketServer;
let seat: SeatApp;
const connected: WebSocket[] = [];
const received: Record<string, unknown>[] = [];

before(async () => {
  slack = await startSlackApi();
  wss = new WebSocketServer({ host: '127.0.0.1', port: 0 });
  await new Promise<void>((r) => wss.once('listening', () => r()));
  wss.on('connection', (ws) => {
    connected.push(ws);
    ws.on('message', (m: Buffer) => received.push(JSON.parse(m.toString()) as Record<string, unknown>));
    ws.send(JSON.stringify({ type: 'hello', num_connections: 1, debug_info: { host: 'drill', approximate_connection_time: 3600 }, connection_info: { app_id: 'A0SEATBELT' } }));
  });
  slack.answer('apps.connections.open', { ok: true, url: `ws://127.0.0.1:${(wss.address() as AddressInfo).port}/link/?ticket=drill` });
  const r = parseInventory(`
oncall: { users: [U0ONCALL01] }
gateway: { baseUrl: http://127.0.0.1:9, keys: { admin: { env: K } } }
sites: { fv: { hosts: { fv-ml1: { address: 127.0.0.1, gpuVendor: none } } } }
`);
  if (!r.ok) throw new Error(r.errors.join('\n'));
  seat = createSeatApp({
    fleet: new Fleet(r.value),
    config: { botToken: 'xoxb-test-0000000000', mode: { kind: 'socket', appToken: 'xapp-1-A0SEATBELT-0000-drill' }, slackApiUrl: slack.url },
    updateIntervalMs: 50,
    logger: { debug() {}, info() {}, warn() {}, error() {}, setLevel() {}, getLevel: () => 'info' as never, setName() {} },
  });
  await seat.start();
});

after(async () => {
  await seat.idle();
  await seat.stop();
  for (const ws of connected) ws.terminate();
  await new Promise<void>((r) => wss.close(() => r()));
  await slack.close();
});

async function until(pred: () => boolean, ms = 5000): Promise<void> {
  const end = performance.now() + ms;
  while (!pred()) {
    if (performance.now() > end) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 10));
  }
}

test('the app opens its socket with the app token through the configured API URL', () => {
  assert.ok(slack.calls.some((c) => c.method === 'apps.connections.open'));
  assert.equal(connected.length, 1);
});

test('a slash command envelope is acked by its envelope_id and the probe posts into the channel', async () => {
  const envelope = {
    envelope_id: 'env-0001',
    type: 'slash_commands',
    accepts_response_payload: true,
    payload: {
      token: 'x', team_id: 'T0DRILL', channel_id: 'C0INCIDENT', user_id: 'U0ONCALL01', command: '/seat',
      text: 'probe fv --only power', api_app_id: 'A0SEATBELT', response_url: `${slack.base}/response/sock`, trigger_id: '1.2.3',
    },
  };
  connected[0]!.send(JSON.stringify(envelope));
  await until(() => received.some((m) => m.envelope_id === 'env-0001'));
  await until(() => slack.calls.some((c) => c.method === 'chat.update' && /^OK fv: /.test(String(c.args.text))));
  assert.ok(slack.calls.some((c) => c.method === 'chat.postMessage' && c.args.channel === 'C0INCIDENT'));
});

test('bad input over the socket gets its usage reply in the ack payload', async () => {
  connected[0]!.send(JSON.stringify({
    envelope_id: 'env-0002', type: 'slash_commands', accepts_response_payload: true,
    payload: { channel_id: 'C0INCIDENT', user_id: 'U0ONCALL01', command: '/seat', text: 'probe <@U999>', response_url: `${slack.base}/response/sock2`, team_id: 'T0DRILL', api_app_id: 'A0SEATBELT', trigger_id: '1' },
  }));
  await until(() => received.some((m) => m.envelope_id === 'env-0002'));
  const ack = received.find((m) => m.envelope_id === 'env-0002') as { payload?: { text?: string; response_type?: string } };
  assert.equal(ack.payload?.response_type, 'ephemeral');
  assert.match(String(ack.payload?.text), /a user mention \(<@U999>\) is not an argument of \/seat/);
});
