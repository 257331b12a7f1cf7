// Our HTTP/1.1 client (src/probes/edge/wire.ts) against node:http's, answer by answer: a loopback
// server writes each crafted raw answer, both clients ask for it, and wire.ts must accept exactly
// the answers node:http's client (llhttp, strict mode) accepts — a peer is hostile, and what the
// platform parser refuses (a NUL in a header value, a bare CR, obs-fold, two Content-Lengths…) our
// client refuses too.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { get } from 'node:http';
import { createServer, type AddressInfo, type Socket } from 'node:net';
import { createHttpPool } from '../../../src/probes/edge/transport.ts';

const CASES: Record<string, string> = {
  'plain content-length': 'HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok',
  'NUL in a header value': 'HTTP/1.1 200 OK\r\nX-A: a\x00b\r\nContent-Length: 2\r\n\r\nok',
  'SOH in a header value': 'HTTP/1.1 200 OK\r\nX-A: a\x01b\r\nContent-Length: 2\r\n\r\nok',
  'ESC in a header value': 'HTTP/1.1 200 OK\r\nX-A: a\x1b[31mb\r\nContent-Length: 2\r\n\r\nok',
  'DEL in a header value': 'HTTP/1.1 200 OK\r\nX-A: a\x7fb\r\nContent-Length: 2\r\n\r\nok',
  'tab in a header value': 'HTTP/1.1 200 OK\r\nX-A: a\tb\r\nContent-Length: 2\r\n\r\nok',
  'bare CR in a header value': 'HTTP/1.1 200 OK\r\nX-A: a\rb\r\nContent-Length: 2\r\n\r\nok',
  'bare LF line end': 'HTTP/1.1 200 OK\nContent-Length: 2\n\nok',
  'space in a header name': 'HTTP/1.1 200 OK\r\nX A: b\r\nContent-Length: 2\r\n\r\nok',
  'space before the colon': 'HTTP/1.1 200 OK\r\nX-A : b\r\nContent-Length: 2\r\n\r\nok',
  'empty header name': 'HTTP/1.1 200 OK\r\n: b\r\nContent-Length: 2\r\n\r\nok',
  'header line without colon': 'HTTP/1.1 200 OK\r\nX-A\r\nContent-Length: 2\r\n\r\nok',
  'NUL in a header name': 'HTTP/1.1 200 OK\r\nX\x00A: b\r\nContent-Length: 2\r\n\r\nok',
  'obs-fold': 'HTTP/1.1 200 OK\r\nX-A: a\r\n b\r\nContent-Length: 2\r\n\r\nok',
  'duplicate equal content-length': 'HTTP/1.1 200 OK\r\nContent-Length: 2\r\nContent-Length: 2\r\n\r\nok',
  'duplicate differing content-length': 'HTTP/1.1 200 OK\r\nContent-Length: 2\r\nContent-Length: 3\r\n\r\nok',
  'content-length list': 'HTTP/1.1 200 OK\r\nContent-Length: 2, 2\r\n\r\nok',
  'negative content-length': 'HTTP/1.1 200 OK\r\nContent-Length: -2\r\n\r\nok',
  'content-length with a plus': 'HTTP/1.1 200 OK\r\nContent-Length: +2\r\n\r\nok',
  'chunked and content-length': 'HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\nContent-Length: 2\r\n\r\n2\r\nok\r\n0\r\n\r\n',
  'content-length too large for the body': 'HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nok',
  'chunked': 'HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nok\r\n0\r\n\r\n',
  'chunked with an extension': 'HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n2;a=b\r\nok\r\n0\r\n\r\n',
  'chunk size not hex': 'HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\nok\r\n0\r\n\r\n',
  'chunk size with 0x': 'HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n0x2\r\nok\r\n0\r\n\r\n',
  'negative chunk size': 'HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n-2\r\nok\r\n0\r\n\r\n',
  'chunk data too long': 'HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n1\r\nok\r\n0\r\n\r\n',
  'NUL in a chunk extension': 'HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n2;a\x00\r\nok\r\n0\r\n\r\n',
  'chunked not last': 'HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked, gzip\r\n\r\n2\r\nok\r\n0\r\n\r\n',
  'status code of two digits': 'HTTP/1.1 20 OK\r\nContent-Length: 2\r\n\r\nok',
  'HTTP/2.0 status line': 'HTTP/2.0 200 OK\r\nContent-Length: 2\r\n\r\nok',
  'NUL in the reason': 'HTTP/1.1 200 O\x00K\r\nContent-Length: 2\r\n\r\nok',
  'not HTTP at all': 'SSH-2.0-OpenSSH_9.6\r\n\r\n',
  'close-delimited body': 'HTTP/1.1 200 OK\r\nConnection: close\r\n\r\nok',
  'latin-1 in a header value': 'HTTP/1.1 200 OK\r\nX-A: caf\xe9\r\nContent-Length: 2\r\n\r\nok',
};

/** Answers node:http accepts that wire.ts refuses on purpose (the safer direction; wire.ts's header says why). */
const STRICTER = new Set(['chunked not last', 'HTTP/2.0 status line', 'NUL in the reason']);

const server = createServer((socket: Socket) => {
  let got = '';
  socket.on('data', (b: Buffer) => {
    got += b.toString('latin1');
    const m = /^GET \/(\d+) /.exec(got);
    if (!m || !got.includes('\r\n\r\n')) return;
    const raw = Object.values(CASES)[Number(m[1])]!;
    socket.end(Buffer.from(raw, 'latin1'));
  });
  socket.on('error', () => {});
});
await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
const port = (server.address() as AddressInfo).port;
after(() => server.close());

function nodeAccepts(path: string): Promise<boolean> {
  return new Promise((resolve) => {
    const req = get({ host: '127.0.0.1', port, path, agent: false }, (res) => {
      res.on('data', () => {});
      res.on('end', () => resolve(true));
      res.on('error', () => resolve(false));
      res.on('aborted', () => resolve(false));
    });
    req.on('error', () => resolve(false));
  });
}

async function wireAccepts(path: string): Promise<boolean> {
  const pool = createHttpPool({ maxSockets: 1 });
  try {
    const answer = await pool.transport(`http://127.0.0.1:${port}${path}`, { method: 'GET', headers: {}, signal: AbortSignal.timeout(10_000) });
    for (;;) if ((await answer.read()) === null) return true;
  } catch {
    return false;
  } finally {
    pool.close();
  }
}

test('wire.ts accepts a crafted answer exactly when node:http does', async () => {
  const names = Object.keys(CASES);
  const differ: string[] = [];
  for (let i = 0; i < names.length; i++) {
    const [n, w] = await Promise.all([nodeAccepts(`/${i}`), wireAccepts(`/${i}`)]);
    if (n !== w && !(STRICTER.has(names[i]!) && n && !w)) differ.push(`${names[i]}: node:http ${n ? 'accepts' : 'refuses'}, wire.ts ${w ? 'accepts' : 'refuses'}`);
  }
  assert.deepEqual(differ, []);
});
