// The bot's HTTP receiver (src/slack/receiver.ts) under a real Bolt app, over real HTTP on loopback:
// what Slack (or anyone else who finds the port) gets back for each kind of request, and what runs.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { request } from 'node:http';
import bolt, { type Logger } from '@slack/bolt';
import { SeatReceiver, MAX_BODY_BYTES } from '../../src/slack/receiver.ts';
import { blockActionBody, sign, signedPost, slashCommandBody } from '../helpers/slack.ts';

const SECRET = 'r3c3iv3r-s3cr3t-0123456789abcdef';
const NOW = Date.UTC(2026, 11, 3, 3, 0, 0);
const logged: string[] = [];
const log = (...m: unknown[]): void => void logged.push(m.join(' '));
const logger: Logger = { debug() {}, info: log, warn: log, error: log, setLevel() {}, getLevel: () => 'info' as never, setName() {} };

/** What each listener saw run: a request refused before the app must leave nothing here. */
const ran: string[] = [];
let events = '';
let base = '';
let app: InstanceType<typeof bolt.App>;

before(async () => {
  const receiver = new SeatReceiver({ signingSecret: SECRET, logger, now: () => NOW, noAckMs: 150 });
  app = new bolt.App({ receiver, logger, authorize: async () => ({ botToken: 'xoxb-receiver-test', botId: 'B0SEATBOT', botUserId: 'U0SEATBOT' }) });
  app.command('/seat', async ({ command, ack }) => {
    ran.push(`command ${command.text}`);
    if (command.text === 'text') return ack('plain words');
    if (command.text === 'throw') throw new Error('listener broke before its ack');
    if (command.text === 'stall') return new Promise<void>(() => {});
    if (command.text === 'falsy') return ack(false as never);
    if (command.text === 'late') {
      await new Promise((r) => setTimeout(r, 400));
      await ack({ text: 'too late' }).then(() => ran.push('late ack answered nothing'), (err: unknown) => ran.push(`late ack threw ${String(err)}`));
      return;
    }
    if (command.text === 'twice') {
      await ack({ text: 'first' });
      await ack({ text: 'second' }).catch((err: unknown) => ran.push(`second ack: ${(err as { code?: string }).code}`));
      return;
    }
    await ack({ response_type: 'ephemeral', text: `got ${command.text}` });
  });
  app.action('probe_again', async ({ ack }) => {
    ran.push('action probe_again');
    await ack();
  });
  // As an app with no error handler of its own: Bolt hands the error back to the receiver.
  app.error(async (err) => {
    ran.push(`app.error ${err.message}`);
    throw err;
  });
  const server = (await app.start(0)) as { address(): { port: number } };
  base = `http://127.0.0.1:${server.address().port}`;
  events = `${base}/slack/events`;
});

after(async () => {
  await app.stop();
});

const at = Math.floor(NOW / 1000);
const post = (body: string, o: { timestamp?: number; signature?: string; contentType?: string } = {}) => signedPost(events, body, { secret: SECRET, timestamp: at, ...o });
const command = (text: string) => post(slashCommandBody({ text, responseUrl: `${base}/response` }));

/** A raw request: method, path, headers and body as given (no fetch niceties). */
function raw(method: string, path: string, body: string | Buffer | null, headers: Record<string, string> = {}): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const req = request(`${base}${path}`, { method, headers }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (text += c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
    });
    req.on('error', reject);
    req.end(body ?? undefined);
  });
}

test('a signed slash command reaches its listener; the ack answers with its object as JSON, or its string as text', async () => {
  ran.length = 0;
  const json = await command('probe fv');
  assert.equal(json.status, 200);
  assert.deepEqual(JSON.parse(json.text), { response_type: 'ephemeral', text: 'got probe fv' });
  const text = await command('text');
  assert.equal(text.text, 'plain words');
  assert.deepEqual(ran, ['command probe fv', 'command text']);
});

test('a signed button click (a form with a JSON payload) reaches the action listener and is acked empty', async () => {
  ran.length = 0;
  const res = await post(blockActionBody({ value: '{}', ts: '1767225600.000100', responseUrl: `${base}/response` }));
  assert.deepEqual([res.status, res.text], [200, '']);
  assert.deepEqual(ran, ['action probe_again']);
});

test('refused before any listener runs: no signature, a forged one, the wrong secret, a timestamp over five minutes old (by the injected clock)', async () => {
  ran.length = 0;
  const body = slashCommandBody({ text: 'probe fv', responseUrl: `${base}/response` });
  const none = await raw('POST', '/slack/events', body, { 'content-type': 'application/x-www-form-urlencoded' });
  const forged = await post(body, { signature: `v0=${'0'.repeat(64)}` });
  const wrong = await signedPost(events, body, { secret: 'not-the-secret', timestamp: at });
  const stale = await post(body, { timestamp: at - 5 * 60 - 1 });
  const wrongVersion = await post(body, { signature: sign(SECRET, at, body).replace(/^v0=/, 'v1=') });
  assert.deepEqual([none, forged, wrong, stale, wrongVersion].map((r) => r.status), [401, 401, 401, 401, 401]);
  assert.deepEqual(ran, []);
  // Five minutes to the second is still inside Slack's window.
  assert.equal((await post(body, { timestamp: at - 5 * 60 })).status, 200);
});

test('only POST /slack/events is served: other paths and methods get 404 and nothing runs', async () => {
  ran.length = 0;
  const body = slashCommandBody({ text: 'probe fv', responseUrl: `${base}/response` });
  const headers = { 'content-type': 'application/x-www-form-urlencoded', 'x-slack-request-timestamp': String(at), 'x-slack-signature': sign(SECRET, at, body) };
  assert.equal((await raw('GET', '/slack/events', null)).status, 404);
  assert.equal((await raw('POST', '/slack/other', body, headers)).status, 404);
  assert.equal((await raw('POST', '/', body, headers)).status, 404);
  // A query string does not change the path.
  assert.equal((await raw('POST', '/slack/events?x=1', body, headers)).status, 200);
  assert.deepEqual(ran, ['command probe fv']);
});

test('a body over the cap is refused with 413, declared or streamed, and the next request is served as before', async () => {
  ran.length = 0;
  const big = `text=${'a'.repeat(MAX_BODY_BYTES)}`;
  const declared = await raw('POST', '/slack/events', big, { 'content-type': 'application/x-www-form-urlencoded', 'content-length': String(Buffer.byteLength(big)) });
  assert.equal(declared.status, 413);
  // Chunked: no length up front, the cap is counted as it arrives.
  const streamed = await new Promise<number>((resolve) => {
    const req = request(events, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded', 'transfer-encoding': 'chunked' } }, (res) => {
      res.resume();
      resolve(res.statusCode ?? 0);
    });
    req.on('error', () => resolve(-1));
    const chunk = Buffer.alloc(64 * 1024, 'a');
    let sent = 0;
    const more = (): void => {
      while (sent <= MAX_BODY_BYTES + chunk.length) {
        sent += chunk.length;
        if (!req.write(chunk)) return void req.once('drain', more);
      }
      req.end();
    };
    more();
  });
  assert.ok(streamed === 413 || streamed === -1, `refused (413, or the connection closed under the sender): ${streamed}`);
  assert.deepEqual(ran, []);
  assert.equal((await command('after')).status, 200);
  assert.deepEqual(ran, ['command after']);
});

test('Slack’s ssl_check is answered 200 unsigned and runs nothing; url_verification echoes the challenge when signed', async () => {
  ran.length = 0;
  const check = await raw('POST', '/slack/events', 'ssl_check=1&token=x&payload=%7B%22type%22%3A%22block_actions%22%7D', { 'content-type': 'application/x-www-form-urlencoded' });
  assert.deepEqual([check.status, check.text], [200, '']);
  const challenge = JSON.stringify({ type: 'url_verification', challenge: 'c-123', token: 'x' });
  const verified = await post(challenge, { contentType: 'application/json' });
  assert.deepEqual([verified.status, JSON.parse(verified.text)], [200, { challenge: 'c-123' }]);
  const unsigned = await raw('POST', '/slack/events', challenge, { 'content-type': 'application/json' });
  assert.equal(unsigned.status, 401);
  assert.deepEqual(ran, []);
});

test('a signed body that does not read is 400: a payload that is not JSON, JSON that is not an object', async () => {
  ran.length = 0;
  assert.equal((await post('payload=%7Bnot-json')).status, 400);
  assert.equal((await post('[1,2]', { contentType: 'application/json' })).status, 400);
  assert.equal((await post('"text"', { contentType: 'application/json' })).status, 400);
  assert.deepEqual(ran, []);
  assert.ok(logged.some((l) => /does not read/.test(l)));
});

test('a listener that throws before its ack gets 500 (logged, no stack to the caller); a second ack is refused as Bolt refuses it', async () => {
  ran.length = 0;
  const broke = await command('throw');
  assert.deepEqual([broke.status, broke.text], [500, '']);
  assert.ok(broke.ms < 150, `at once, not after the no-ack window (${broke.ms.toFixed(0)} ms)`);
  assert.ok(logged.some((l) => /slack request failed/.test(l)));
  const twice = await command('twice');
  assert.deepEqual(JSON.parse(twice.text), { text: 'first' });
  assert.ok(ran.includes('second ack: slack_bolt_receiver_ack_multiple_error'), ran.join('; '));
});

test('an event no listener acks is answered 404 once the no-ack window passes, and logged', async () => {
  ran.length = 0;
  const body = blockActionBody({ value: '{}', ts: '1767225600.000100', responseUrl: `${base}/response` }).replace(/probe_again/g, 'nobody_listens');
  const res = await post(body);
  assert.equal(res.status, 404);
  assert.ok(res.ms >= 100, `answered after the window, not at once (${res.ms.toFixed(0)} ms)`);
  assert.ok(logged.some((l) => /not acknowledged within 150 ms/.test(l)));
  assert.deepEqual(ran, []);
});

test('the no-ack window runs from the request: a listener that stalls, or acks too late, still gets Slack its 404 on time', async () => {
  ran.length = 0;
  const stalled = await command('stall');
  assert.equal(stalled.status, 404);
  assert.ok(stalled.ms < 1000, `answered at the window (${stalled.ms.toFixed(0)} ms), not never`);
  const late = await command('late');
  assert.equal(late.status, 404);
  assert.ok(late.ms < 380, `the 404 did not wait for the late ack (${late.ms.toFixed(0)} ms)`);
  await new Promise((r) => setTimeout(r, 400));
  assert.ok(ran.includes('late ack answered nothing'), ran.join('; '));
});

test('an ack of a falsy value answers an empty 200 (nothing Slack would post)', async () => {
  const res = await command('falsy');
  assert.deepEqual([res.status, res.text], [200, '']);
});

test('stop() does not wait on a request that never finishes arriving', async () => {
  const receiver = new SeatReceiver({ signingSecret: SECRET, logger, now: () => NOW });
  const other = new bolt.App({ receiver, logger, authorize: async () => ({ botToken: 'xoxb-receiver-test' }) });
  const server = (await other.start(0)) as { address(): { port: number } };
  const { connect } = await import('node:net');
  const socket = connect(server.address().port, '127.0.0.1');
  await new Promise<void>((r) => socket.once('connect', () => r()));
  const closed = new Promise<void>((r) => socket.once('close', () => r()));
  socket.on('error', () => {});
  // Headers and the start of a body that never ends.
  socket.write('POST /slack/events HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"a":');
  await new Promise((r) => setTimeout(r, 50));
  const t0 = performance.now();
  await other.stop();
  await closed;
  assert.ok(performance.now() - t0 < 10_000, 'stopped within its grace, not Node’s 300 s request timeout');
});
