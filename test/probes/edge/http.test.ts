import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { createServer as createNetServer, type AddressInfo } from 'node:net';
import { after, test } from 'node:test';
import { httpRequest, type HttpOptions } from '../../../src/probes/edge/http.ts';
import { createHttpPool, fetchTransport, type HttpTransport } from '../../../src/probes/edge/transport.ts';
import { closedPort, ManualTimers, serve, waitFor, type Loopback } from './helpers.ts';

const SECRET = 'sk-seatbelt-test-0123456789abcdef';
const fixture = (name: string): Promise<string> => readFile(new URL(`../../fixtures/edge/${name}`, import.meta.url), 'utf8');
const servers: Loopback[] = [];
after(() => Promise.all(servers.map((s) => s.close())));
async function loopback(handler: Parameters<typeof serve>[0]): Promise<Loopback> {
  const lb = await serve(handler);
  servers.push(lb);
  return lb;
}
const opts = (extra: Partial<HttpOptions> = {}): HttpOptions => ({ timeoutMs: 3000, secrets: [SECRET], ...extra });

test('a JSON answer: ok, parsed, counted', async () => {
  const lb = await loopback((_req, res) => res.end(JSON.stringify({ data: [{ id: 'gen' }] })));
  let t = 100;
  const r = await httpRequest(`${lb.url}/v1/models`, {}, opts({ now: () => (t += 7) }));
  assert.deepEqual(r.outcome, { ok: true, httpStatus: 200, code: 'ok', bytes: 23, latencyMs: 7 });
  assert.deepEqual(r.json, { data: [{ id: 'gen' }] });
});

test('a redirect is not followed: a POST turned GET on another port never reads ok', async () => {
  const other = await loopback((_req, res) => res.end('{"choices":[]}'));
  for (const status of [301, 302, 303, 307, 308]) {
    const lb = await loopback((_req, res) => {
      res.writeHead(status, { location: `${other.url}/v1/chat/completions?key=${SECRET}&x` });
      res.end();
    });
    const r = await httpRequest(`${lb.url}/v1/chat/completions`, { method: 'POST', body: '{}' }, opts());
    assert.equal(r.outcome.ok, false);
    assert.equal(r.outcome.code, 'redirect');
    assert.equal(r.outcome.httpStatus, status);
    assert.equal(r.outcome.location, `${other.url}/v1/chat/completions?key=[redacted]&x`);
    assert.match(r.outcome.error ?? '', /^redirected to .*: not followed$/);
  }
  assert.equal(other.hits, 0, 'the redirect target was never asked');
});

test('a Location carrying escape sequences is refused by the parser: an error, never ok, never thrown', async () => {
  const raw = createNetServer((c) =>
    c.once('data', () => c.end('HTTP/1.1 302 Found\r\nLocation: http://x/\x1b]0;pwned\x07\r\nContent-Length: 0\r\n\r\n', 'latin1')),
  );
  await new Promise<void>((r) => raw.listen(0, '127.0.0.1', r));
  try {
    const r = await httpRequest(`http://127.0.0.1:${(raw.address() as AddressInfo).port}/`, {}, opts());
    assert.equal(r.outcome.ok, false);
    assert.equal(r.outcome.code, 'error');
    assert.doesNotMatch(JSON.stringify(r.outcome), /pwned|\\u001b/);
  } finally {
    raw.close();
  }
});

test('an endless chunked body is cut at the cap; the request ends and memory stays flat', async () => {
  let closed = false;
  let written = 0;
  const chunk = Buffer.alloc(64 * 1024, 'x');
  const lb = await loopback((_req, res) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.on('close', () => (closed = true));
    const pump = (): void => {
      while (!closed && res.write(chunk)) written += chunk.length;
      if (!closed) res.once('drain', pump);
    };
    pump();
  });
  const r = await httpRequest(`${lb.url}/v1/models`, {}, opts({ maxBytes: 1024 * 1024 }));
  assert.equal(r.outcome.code, 'too_large');
  assert.equal(r.outcome.ok, false);
  assert.equal(r.outcome.error, 'answer over 1,048,576 bytes, cut');
  assert.equal(r.json, undefined);
  assert.ok(r.text.length <= 1024 * 1024);
  assert.ok(r.outcome.bytes > 1024 * 1024 && r.outcome.bytes < 2 * 1024 * 1024, String(r.outcome.bytes));
  await waitFor(() => closed, 'the server to see the client hang up');
  assert.ok(process.memoryUsage().heapUsed < 100 * 1024 * 1024, `heap ${process.memoryUsage().heapUsed}`);
  assert.ok(written < 64 * 1024 * 1024, `server wrote ${written} before the client hung up`);
});

test('an endless error page is cut too, and a declared length over the cap is not read at all', async () => {
  const endless = await loopback((_req, res) => {
    res.writeHead(500);
    const t = setInterval(() => res.write('x'.repeat(16 * 1024)), 1);
    res.on('close', () => clearInterval(t));
  });
  const a = await httpRequest(endless.url, {}, opts({ maxBytes: 64 * 1024 }));
  assert.equal(a.outcome.code, 'too_large');
  assert.equal(a.outcome.httpStatus, 500);

  const declared = await loopback((_req, res) => {
    res.writeHead(200, { 'content-length': String(50 * 1024 * 1024) });
    res.write('{');
  });
  const b = await httpRequest(declared.url, {}, opts({ maxBytes: 1024 }));
  assert.equal(b.outcome.code, 'too_large');
  assert.equal(b.outcome.bytes, 0);
});

test('error lines: LiteLLM, vLLM and FastAPI bodies, cleaned, redacted, one line', async () => {
  const cases: [string, number, string][] = [
    [await fixture('litellm-401.json'), 401, 'Authentication Error, Invalid proxy server token passed. Unable to find token in cache or `LiteLLM_VerificationTokenTable`'],
    [await fixture('litellm-500.json'), 500, 'litellm.APIConnectionError: OpenAIException - Connection error.'],
    [await fixture('vllm-404.json'), 404, 'The model `gen-old` does not exist.'],
    [await fixture('fastapi-404.json'), 404, 'Not Found'],
    [await fixture('fastapi-422.json'), 422, 'Field required'],
    ['\n\x1b[31mInternal Server Error\x1b[0m\nseat gen up', 500, 'Internal Server Error'],
    [JSON.stringify({ error: { message: `bad key ${SECRET}\u202e` } }), 401, 'bad key [redacted]'],
    [JSON.stringify({ error: 'plain string error' }), 400, 'plain string error'],
    // No message where one is looked for, and the key written with JSON escapes: still redacted.
    [`{"error":{"message":{"why":"refused \\u0073${SECRET.slice(1)}"}}}`, 401, '{"error":{"message":{"why":"refused [redacted]"}}}'],
  ];
  for (const [body, status, want] of cases) {
    const lb = await loopback((_req, res) => {
      res.writeHead(status);
      res.end(body);
    });
    const r = await httpRequest(lb.url, {}, opts());
    assert.equal(r.outcome.code, 'http_status');
    assert.equal(r.outcome.httpStatus, status);
    assert.equal(r.outcome.error, want);
  }
});

test('an error line is redacted before it is cut: no half key at the cut', async () => {
  const message = `${'x'.repeat(140)} key ${SECRET} was refused`;
  const lb = await loopback((_req, res) => {
    res.writeHead(401);
    res.end(JSON.stringify({ error: { message } }));
  });
  const r = await httpRequest(lb.url, {}, opts());
  const error = r.outcome.error ?? '';
  assert.ok(error.length <= 160);
  assert.ok(!error.includes(SECRET.slice(0, 6)), error);
});

test('our own timeout: code timeout, with or without a status line', async () => {
  const pool = createHttpPool();
  let arrived = (): void => {};
  const lb = await loopback((req, res) => {
    arrived();
    if (req.url === '/half') {
      res.writeHead(200);
      res.write('{"data":');
    }
  });
  for (const path of ['/silent', '/half']) {
    const timers = new ManualTimers();
    let headersIn = (): void => {};
    const reached = new Promise<void>((r) => (arrived = r));
    const answered = new Promise<void>((r) => (headersIn = r));
    // The real transport, telling the test when the status line is in.
    const spy: HttpTransport = async (u, call) => {
      const res = await pool.transport(u, call);
      headersIn();
      return res;
    };
    const pending = httpRequest(`${lb.url}${path}`, {}, opts({ setTimer: timers.setTimer, transport: spy }));
    await (path === '/half' ? answered : reached);
    assert.equal(timers.fire(3000), 1);
    const r = await pending;
    assert.equal(r.outcome.code, 'timeout');
    assert.equal(r.outcome.httpStatus, path === '/half' ? 200 : null);
    assert.match(r.outcome.error ?? '', /no answer within 3000 ms/);
    assert.equal(timers.count, 0);
  }
});

test('the caller stopping us: code stopped, not timeout', async () => {
  let arrived = (): void => {};
  const lb = await loopback(() => arrived());
  const ctl = new AbortController();
  const reached = new Promise<void>((r) => (arrived = r));
  const pending = httpRequest(lb.url, {}, opts({ signal: ctl.signal, setTimer: new ManualTimers().setTimer }));
  await reached;
  ctl.abort();
  assert.equal((await pending).outcome.code, 'stopped');

  const already = new AbortController();
  already.abort();
  assert.equal((await httpRequest(lb.url, {}, opts({ signal: already.signal }))).outcome.code, 'stopped');
});

test('refused', async () => {
  const r = await httpRequest(`http://127.0.0.1:${await closedPort()}/health`, {}, opts());
  assert.deepEqual({ code: r.outcome.code, httpStatus: r.outcome.httpStatus, error: r.outcome.error }, { code: 'refused', httpStatus: null, error: 'ECONNREFUSED' });
});

test('a kept-alive socket the server closed is retried once for a GET, never for a POST', async () => {
  const lb = await loopback((req, res, hit) => {
    if (hit % 2 === 1) req.socket.destroy();
    else res.end('{"ok":true}');
  });
  const get = await httpRequest(lb.url, {}, opts());
  assert.equal(get.outcome.code, 'ok');
  assert.equal(lb.hits, 2);

  const post = await httpRequest(lb.url, { method: 'POST', body: '{}' }, opts());
  assert.equal(post.outcome.code, 'reset');
  assert.equal(lb.hits, 3, 'a POST is never sent twice');
});

test("transport codes from undici's cause", async () => {
  const failing = (cause: unknown): typeof fetch => async () => {
    throw new TypeError('fetch failed', { cause });
  };
  const cases: [unknown, string][] = [
    [Object.assign(new Error('getaddrinfo ENOTFOUND gw.invalid'), { code: 'ENOTFOUND' }), 'dns'],
    [Object.assign(new Error('getaddrinfo EAI_AGAIN gw'), { code: 'EAI_AGAIN' }), 'dns'],
    [Object.assign(new Error('connect EHOSTUNREACH'), { code: 'EHOSTUNREACH' }), 'unreachable'],
    [Object.assign(new Error('connect ENETUNREACH'), { code: 'ENETUNREACH' }), 'unreachable'],
    [Object.assign(new AggregateError([Object.assign(new Error('x'), { code: 'ECONNREFUSED' })]), {}), 'refused'],
    [new Error('bad port'), 'error'],
  ];
  for (const [cause, code] of cases) {
    const r = await httpRequest('http://gw.invalid/', {}, opts({ transport: fetchTransport(failing(cause)) }));
    assert.equal(r.outcome.code, code, String(cause));
    assert.equal(r.outcome.httpStatus, null);
  }
});

test('never throws: a transport that throws anything, or a body that breaks', async () => {
  const weird: HttpTransport = async () => {
    throw `raw string with ${SECRET}\nand a second line`;
  };
  const r = await httpRequest('http://x/', {}, opts({ transport: weird }));
  assert.equal(r.outcome.code, 'error');
  assert.equal(r.outcome.error, 'raw string with [redacted] and a second line');

  const broken: typeof fetch = async () =>
    new Response(new ReadableStream({ pull: (c) => c.error(Object.assign(new Error('socket hang up'), { code: 'ECONNRESET' })) }), { status: 200 });
  const b = await httpRequest('http://x/', {}, opts({ transport: fetchTransport(broken) }));
  assert.equal(b.outcome.code, 'reset');
  assert.equal(b.outcome.httpStatus, 200);
  assert.equal(b.outcome.ok, false);
});

test('a connection that breaks mid-answer through the real pool: reset, with what came before the break', { timeout: 10_000 }, async () => {
  const lb = await loopback((_req, res) => {
    res.writeHead(200, { 'content-type': 'application/json', 'content-length': '1000' });
    res.write('{"choices": [', () => setTimeout(() => res.socket?.destroy(), 20));
  });
  const pool = createHttpPool();
  after(() => pool.close());
  const r = await httpRequest(`${lb.url}/v1/chat/completions`, { method: 'POST', body: '{}' }, opts({ transport: pool.transport }));
  assert.equal(r.outcome.code, 'reset');
  assert.equal(r.outcome.ok, false);
  assert.equal(r.outcome.httpStatus, 200);
  assert.equal(r.outcome.bytes, 13);
  assert.equal(r.text, '{"choices": [');
  assert.equal(r.outcome.error, 'answer cut off: connection broke mid-answer');
});

test('an answer in many pieces through the real pool is read whole, and one just over the cap is cut at it', { timeout: 10_000 }, async () => {
  const body = JSON.stringify({ data: Array.from({ length: 2000 }, (_, i) => ({ id: `m${i}` })) });
  const lb = await loopback((_req, res) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    let at = 0;
    const next = (): void => {
      if (at >= body.length) return void res.end();
      res.write(body.slice(at, (at += 1000)), () => setImmediate(next));
    };
    next();
  });
  const pool = createHttpPool();
  after(() => pool.close());
  const whole = await httpRequest(lb.url, {}, opts({ transport: pool.transport }));
  assert.equal(whole.outcome.code, 'ok');
  assert.equal(whole.text, body);
  assert.equal((whole.json as { data: unknown[] }).data.length, 2000);
  const cut = await httpRequest(lb.url, {}, opts({ transport: pool.transport, maxBytes: body.length - 1 }));
  assert.equal(cut.outcome.code, 'too_large');
  assert.equal(cut.text, body.slice(0, body.length - 1));
});
