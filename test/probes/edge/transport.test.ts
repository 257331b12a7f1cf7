// The keep-alive pool under httpRequest: connections reused per origin, never more than its size,
// dropped on cancel, abort and close(), and idle ones never holding the process open.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { createServer as createNetServer, type AddressInfo, type Socket } from 'node:net';
import { after, test } from 'node:test';
import { httpRequest } from '../../../src/probes/edge/http.ts';
import { createHttpPool, fetchTransport } from '../../../src/probes/edge/transport.ts';
import { serve, waitFor, type Loopback } from './helpers.ts';

const servers: Loopback[] = [];
after(() => Promise.all(servers.map((s) => s.close())));

/** A server whose handler sees every request's socket: counts connections opened and still open. */
async function server(answer: (url: string) => { status?: number; body: string; delayMs?: number } | null): Promise<{ url: string; opened: () => number; open: () => number }> {
  const seen = new WeakSet<object>();
  let opened = 0;
  let open = 0;
  const lb = await serve((req, res) => {
    const s = req.socket;
    if (!seen.has(s)) {
      seen.add(s);
      opened += 1;
      open += 1;
      s.once('close', () => (open -= 1));
    }
    const a = answer(req.url ?? '/');
    if (a === null) return; // hangs
    const send = (): void => {
      res.writeHead(a.status ?? 200, { 'content-type': 'application/json' });
      res.end(a.body);
    };
    if (a.delayMs) setTimeout(send, a.delayMs);
    else send();
  });
  servers.push(lb);
  return { url: lb.url, opened: () => opened, open: () => open };
}

test('one pool: requests one after another reuse one kept-alive connection', async () => {
  const s = await server(() => ({ body: '{"ok":true}' }));
  const pool = createHttpPool({ maxSockets: 8 });
  for (let i = 0; i < 20; i++) {
    const r = await httpRequest(`${s.url}/v1/models`, {}, { transport: pool.transport, timeoutMs: 3000 });
    assert.equal(r.outcome.code, 'ok');
  }
  assert.equal(s.opened(), 1);
  pool.close();
  await waitFor(() => s.open() === 0, 'close() to drop the idle connection');
});

test('many at once: never more connections than the pool holds; the rest queue and are all answered', async () => {
  const s = await server(() => ({ body: '{"ok":true}', delayMs: 5 }));
  const pool = createHttpPool({ maxSockets: 4 });
  const all = await Promise.all(
    Array.from({ length: 50 }, (_, i) => httpRequest(`${s.url}/v1/chat/completions`, { method: 'POST', body: `{"n":${i}}` }, { transport: pool.transport, timeoutMs: 5000 })),
  );
  assert.ok(all.every((r) => r.outcome.code === 'ok'));
  assert.ok(s.opened() <= 4, `${s.opened()} connections`);
  pool.close();
});

test('a request that times out takes its connection with it; the pool goes on with fresh ones', async () => {
  const s = await server((url) => (url === '/hang' ? null : { body: '{"ok":true}' }));
  const pool = createHttpPool({ maxSockets: 1 });
  const hung = await httpRequest(`${s.url}/hang`, {}, { transport: pool.transport, timeoutMs: 50 });
  assert.equal(hung.outcome.code, 'timeout');
  // With one socket in the pool, the next request could only be answered if the hung one let go.
  const next = await httpRequest(`${s.url}/fine`, {}, { transport: pool.transport, timeoutMs: 3000 });
  assert.equal(next.outcome.code, 'ok');
  await waitFor(() => s.open() === 1, 'the hung connection to be closed');
  pool.close();
});

test('an idle kept-alive connection does not keep the process alive', async () => {
  // A peer that keeps every connection open for ever (no keep-alive timeout of its own).
  const held = new Set<Socket>();
  const raw = createNetServer((c) => {
    held.add(c);
    c.on('data', () => c.write('HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 11\r\nConnection: keep-alive\r\n\r\n{"ok":true}'));
    c.on('error', () => {});
  });
  await new Promise<void>((r) => raw.listen(0, '127.0.0.1', r));
  const s = { url: `http://127.0.0.1:${(raw.address() as AddressInfo).port}` };
  // A child makes one request through a pool it never closes, then has nothing left to do.
  const script = `
    const { createHttpPool } = await import(${JSON.stringify(new URL('../../../src/probes/edge/transport.ts', import.meta.url).href)});
    const { httpRequest } = await import(${JSON.stringify(new URL('../../../src/probes/edge/http.ts', import.meta.url).href)});
    const r = await httpRequest(${JSON.stringify(s.url)}, {}, { transport: createHttpPool().transport, timeoutMs: 3000 });
    process.stdout.write(r.outcome.code);
  `;
  const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { stdio: ['ignore', 'pipe', 'inherit'] });
  let out = '';
  child.stdout.on('data', (d: Buffer) => (out += d.toString()));
  let exited = false;
  child.on('exit', () => (exited = true));
  try {
    await waitFor(() => exited, 'the child to exit with its kept-alive connection still open', 30_000);
    assert.equal(out, 'ok');
  } finally {
    if (!exited) child.kill('SIGKILL');
    for (const c of held) c.destroy();
    raw.close();
  }
});

test('a URL that is not http(s) is an error outcome, not a throw', async () => {
  const pool = createHttpPool();
  const r = await httpRequest('ftp://127.0.0.1/x', {}, { transport: pool.transport, timeoutMs: 1000 });
  assert.equal(r.outcome.code, 'error');
  assert.equal(r.outcome.ok, false);
});

test('fetchTransport: any fetch in the same shape, redirects left to the caller', async () => {
  const s = await server((url) => (url === '/moved' ? { status: 307, body: '' } : { body: '{"data":[]}' }));
  const t = fetchTransport(fetch);
  const ok = await httpRequest(`${s.url}/v1/models`, {}, { transport: t, timeoutMs: 3000 });
  assert.deepEqual(ok.json, { data: [] });
  const moved = await httpRequest(`${s.url}/moved`, {}, { transport: t, timeoutMs: 3000 });
  assert.equal(moved.outcome.code, 'redirect');
});

test('an answer that came in many pieces before it was read (the socket paused meanwhile) is read whole in one go', { timeout: 10_000 }, async () => {
  const pieces = Array.from({ length: 12 }, (_, i) => `${String(i).padStart(2, '0')}${'x'.repeat(998)}`);
  let sent = 0;
  const lb = await serve((_req, res) => {
    res.writeHead(200, { 'content-type': 'text/plain' });
    const next = (): void => {
      if (sent === pieces.length) return void res.end();
      res.write(pieces[sent++], () => setTimeout(next, 5));
    };
    next();
  });
  servers.push(lb);
  const pool = createHttpPool();
  try {
    const answer = await pool.transport(lb.url, { method: 'GET', headers: {}, signal: new AbortController().signal });
    await waitFor(() => sent === pieces.length, 'every piece sent before the body is read');
    await new Promise((r) => setTimeout(r, 50));
    const body = await answer.readAll!(1 << 20);
    assert.equal(body.over, false);
    assert.equal(body.broke, undefined);
    assert.equal(body.total, 12_000);
    assert.equal(Buffer.from(body.bytes).toString(), pieces.join(''));
  } finally {
    pool.close();
  }
});
