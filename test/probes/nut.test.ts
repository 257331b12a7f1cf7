import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type Server, type Socket } from 'node:net';
import { ListVarParser, listVars, parseListVar, unescapeValue } from '../../src/probes/nut.ts';

const EATON = [
  'BEGIN LIST VAR fvups',
  'VAR fvups battery.charge "100"',
  'VAR fvups battery.runtime "1540"',
  'VAR fvups device.model "Eaton \\"5E\\" 1500i"',
  'VAR fvups driver.parameter.port "C:\\\\ups\\\\eaton.dev"',
  'VAR fvups ups.load "34"',
  'VAR fvups ups.power.nominal "1500"',
  'VAR fvups ups.status "OL"',
  'END LIST VAR fvups',
  '',
].join('\n');

test('a full answer gives every variable, with \\" and \\\\ unescaped', () => {
  const r = parseListVar('fvups', EATON);
  assert.equal(r.status, 'ok');
  if (r.status !== 'ok') return;
  assert.equal(r.vars['ups.status'], 'OL');
  assert.equal(r.vars['ups.load'], '34');
  assert.equal(r.vars['device.model'], 'Eaton "5E" 1500i');
  assert.equal(r.vars['driver.parameter.port'], 'C:\\ups\\eaton.dev');
  assert.equal(r.vars['ups.realpower.nominal'], undefined);
  assert.equal(Object.keys(r.vars).length, 7);
  assert.deepEqual(r.skipped, []);
});

test('unescapeValue: escaped quote and backslash, and an escaped backslash before a quote', () => {
  assert.equal(unescapeValue('a\\"b'), 'a"b');
  assert.equal(unescapeValue('a\\\\b'), 'a\\b');
  assert.equal(unescapeValue('\\\\\\"'), '\\"');
  assert.equal(unescapeValue('plain'), 'plain');
});

test('partial until END LIST VAR arrives; an unterminated last line is not read yet', () => {
  const upToEnd = EATON.slice(0, EATON.indexOf('END LIST VAR'));
  assert.deepEqual(parseListVar('fvups', upToEnd), { status: 'partial' });
  assert.deepEqual(parseListVar('fvups', `${upToEnd}END LIST VAR fvups`), { status: 'partial' });
  assert.deepEqual(parseListVar('fvups', ''), { status: 'partial' });
  assert.deepEqual(parseListVar('fvups', 'BEGIN LIST VAR fv'), { status: 'partial' });
  assert.equal(parseListVar('fvups', `${upToEnd}END LIST VAR fvups\n`).status, 'ok');
});

test('CRLF line ends are read like LF', () => {
  const r = parseListVar('fvups', EATON.replace(/\n/g, '\r\n'));
  assert.equal(r.status, 'ok');
  if (r.status === 'ok') assert.equal(r.vars['ups.status'], 'OL');
});

test('each ERR answer becomes its own typed error', () => {
  const cases: [string, string][] = [
    ['ERR ACCESS-DENIED', 'nut_access_denied'],
    ['ERR UNKNOWN-UPS', 'nut_unknown_ups'],
    ['ERR DATA-STALE', 'nut_data_stale'],
    ['ERR DRIVER-NOT-CONNECTED', 'nut_driver_not_connected'],
    ['ERR INVALID-ARGUMENT', 'nut_error'],
    ['ERR FEATURE-NOT-CONFIGURED extra words', 'nut_error'],
  ];
  for (const [line, code] of cases) {
    const r = parseListVar('fvups', `${line}\n`);
    assert.equal(r.status, 'error', line);
    if (r.status !== 'error') continue;
    assert.equal(r.error.code, code, line);
    assert.equal(r.error.nutCode, line.split(' ')[1]);
    assert.match(r.error.message, new RegExp(line.split(' ')[1]!));
  }
});

test('an ERR in the middle of a list wins over the partial list', () => {
  const r = parseListVar('fvups', 'BEGIN LIST VAR fvups\nVAR fvups ups.status "OL"\nERR DATA-STALE\n');
  assert.equal(r.status, 'error');
  if (r.status === 'error') assert.equal(r.error.code, 'nut_data_stale');
});

test('garbage instead of a NUT answer is a protocol error that quotes what came', () => {
  for (const text of ['HTTP/1.1 400 Bad Request\r\n\r\n', 'SSH-2.0-OpenSSH_9.2\n', 'BEGIN LIST VAR anaups\n']) {
    const r = parseListVar('fvups', text);
    assert.equal(r.status, 'error', text);
    if (r.status !== 'error') continue;
    assert.equal(r.error.code, 'protocol');
    assert.match(r.error.message, /not a NUT answer to LIST VAR fvups: got "/);
    assert.ok(r.error.message.includes(text.split(/\r?\n/)[0]!), r.error.message);
  }
  const long = parseListVar('fvups', `${'x'.repeat(500)}\n`);
  assert.ok(long.status === 'error' && long.error.message.length < 150, 'a long garbage line is cut');
});

test('odd lines inside the list are skipped and reported, not fatal', () => {
  const r = parseListVar(
    'fvups',
    'BEGIN LIST VAR fvups\nVAR fvups ups.status "OL"\nVAR anaups ups.status "OB"\nVAR fvups broken no-quotes\nhello\nEND LIST VAR fvups\n',
  );
  assert.equal(r.status, 'ok');
  if (r.status !== 'ok') return;
  assert.deepEqual(r.vars, { 'ups.status': 'OL' });
  assert.deepEqual(r.skipped, ['VAR anaups ups.status "OB"', 'VAR fvups broken no-quotes', 'hello']);
});

test('one variable given twice with two values is refused, not left to whichever came last', () => {
  const twice = parseListVar('fvups', 'BEGIN LIST VAR fvups\nVAR fvups ups.status "OB LB"\nVAR fvups ups.status "OL"\nEND LIST VAR fvups\n');
  assert.equal(twice.status, 'error');
  if (twice.status === 'error') {
    assert.equal(twice.error.code, 'protocol');
    assert.match(twice.error.message, /ups\.status twice, as "OB LB" and as "OL"/);
  }
  const same = parseListVar('fvups', 'BEGIN LIST VAR fvups\nVAR fvups ups.status "OB"\nVAR fvups ups.status "OB"\nEND LIST VAR fvups\n');
  assert.ok(same.status === 'ok' && same.vars['ups.status'] === 'OB', 'the same value twice is the same answer');
});

test('not NUT: a line over 4,096 characters (ended or not), or more than 1,024 variables', () => {
  for (const text of [`BEGIN LIST VAR fvups\nVAR fvups a "${'x'.repeat(5000)}"\n`, `BEGIN LIST VAR fvups\n${'y'.repeat(5000)}`]) {
    const r = parseListVar('fvups', text);
    assert.ok(r.status === 'error' && r.error.code === 'protocol' && /a line over 4096 characters/.test(r.error.message), JSON.stringify(r).slice(0, 200));
  }
  const many = ['BEGIN LIST VAR fvups', ...Array.from({ length: 1100 }, (_, i) => `VAR fvups v.${i} "1"`), 'END LIST VAR fvups', ''].join('\n');
  const r = parseListVar('fvups', many);
  assert.ok(r.status === 'error' && /over 1024 variables/.test(r.error.message));
});

test('what upsd says reaches no one raw: escape, C1 and bidi characters are gone from values, ERR words and messages', () => {
  const r = parseListVar('fvups', 'BEGIN LIST VAR fvups\nVAR fvups ups.status "OL \u009b2J\u001b[31m\u202egnp.exe"\nEND LIST VAR fvups\n');
  assert.ok(r.status === 'ok');
  if (r.status === 'ok') assert.equal(r.vars['ups.status'], 'OL gnp.exe');
  const err = parseListVar('fvups', 'ERR X\u009b2J\u202eY\n');
  assert.ok(err.status === 'error');
  if (err.status === 'error') {
    assert.equal(err.error.nutCode, 'XY');
    assert.doesNotMatch(err.error.message, /[\u0080-\u009f\u202e\u001b]/);
  }
  const long = parseListVar('fvups', `BEGIN LIST VAR fvups\nVAR fvups device.model "${'m'.repeat(3000)}"\nEND LIST VAR fvups\n`);
  assert.ok(long.status === 'ok' && long.vars['device.model']!.length <= 256, 'a value is kept cut');
});

test('an answer fed a byte at a time is the answer fed whole', () => {
  const p = new ListVarParser('fvups');
  let r: ReturnType<ListVarParser['feed']> = { status: 'partial' };
  for (const ch of EATON) r = p.feed(ch);
  assert.deepEqual(r, parseListVar('fvups', EATON));
  assert.deepEqual(p.feed('VAR fvups ups.status "OB"\n'), r, 'what comes after the answer changes nothing');
});

// ---- the socket side, against small loopback peers ---------------------------------------------

const open = new WeakMap<Server, Set<Socket>>();

async function listen(onSocket: (s: Socket, lines: string[]) => void): Promise<{ server: Server; port: number; received: string[] }> {
  const received: string[] = [];
  const sockets = new Set<Socket>();
  const server = createServer((s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
    s.setEncoding('utf8');
    let buf = '';
    const lines: string[] = [];
    s.on('data', (d: string) => {
      buf += d;
      let i: number;
      while ((i = buf.indexOf('\n')) >= 0) {
        lines.push(buf.slice(0, i));
        received.push(buf.slice(0, i));
        buf = buf.slice(i + 1);
        onSocket(s, lines);
      }
    });
    s.on('error', () => {});
  });
  open.set(server, sockets);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const addr = server.address();
  assert.ok(addr && typeof addr === 'object');
  return { server, port: addr.port, received };
}

function close(server: Server): Promise<void> {
  for (const s of open.get(server) ?? []) s.destroy();
  return new Promise((resolve) => server.close(() => resolve()));
}

test('listVars reads an answer that arrives a few bytes at a time, then says LOGOUT', async () => {
  const peer = await listen((s, lines) => {
    if (lines.at(-1) === 'LIST VAR fvups') {
      const chunks = EATON.match(/[\s\S]{1,7}/g) ?? [];
      chunks.forEach((c, i) => setTimeout(() => s.write(c), i));
    }
    if (lines.at(-1) === 'LOGOUT') s.end('OK Goodbye\n');
  });
  try {
    const r = await listVars('fvups', { host: '127.0.0.1', port: peer.port, timeoutMs: 2000 });
    assert.ok(r.ok, JSON.stringify(r));
    assert.equal(r.vars['device.model'], 'Eaton "5E" 1500i');
    for (let i = 0; i < 50 && !peer.received.includes('LOGOUT'); i++) await new Promise((res) => setTimeout(res, 10));
    assert.deepEqual(peer.received, ['LIST VAR fvups', 'LOGOUT']);
  } finally {
    await close(peer.server);
  }
});

test('listVars: an ERR answer is a typed error and still ends with LOGOUT', async () => {
  const peer = await listen((s, lines) => {
    if (lines.at(-1)?.startsWith('LIST VAR')) s.write('ERR ACCESS-DENIED\n');
  });
  try {
    const r = await listVars('fvups', { host: '127.0.0.1', port: peer.port, timeoutMs: 2000 });
    assert.equal(r.ok, false);
    if (!r.ok) assert.equal(r.error.code, 'nut_access_denied');
    for (let i = 0; i < 50 && !peer.received.includes('LOGOUT'); i++) await new Promise((res) => setTimeout(res, 10));
    assert.deepEqual(peer.received, ['LIST VAR fvups', 'LOGOUT']);
  } finally {
    await close(peer.server);
  }
});

test('listVars: nothing listening is connect_refused', async () => {
  const peer = await listen(() => {});
  const { port } = peer;
  await close(peer.server);
  const r = await listVars('fvups', { host: '127.0.0.1', port, timeoutMs: 2000 });
  assert.equal(r.ok, false);
  if (!r.ok) {
    assert.equal(r.error.code, 'connect_refused');
    assert.equal(r.error.errno, 'ECONNREFUSED');
  }
});

test('listVars: a peer that hangs up mid-list is "closed", not a partial success', async () => {
  const peer = await listen((s) => s.end('BEGIN LIST VAR fvups\nVAR fvups ups.status "OL"\n'));
  try {
    const r = await listVars('fvups', { host: '127.0.0.1', port: peer.port, timeoutMs: 2000 });
    assert.equal(r.ok, false);
    if (!r.ok) assert.equal(r.error.code, 'closed');
  } finally {
    await close(peer.server);
  }
});

test('listVars: a silent peer costs the timeout; an abort stops it at once', async () => {
  const peer = await listen(() => {});
  try {
    let t0 = performance.now();
    const r = await listVars('fvups', { host: '127.0.0.1', port: peer.port, timeoutMs: 300 });
    let elapsed = performance.now() - t0;
    assert.equal(r.ok, false);
    if (!r.ok) assert.equal(r.error.code, 'answer_timeout');
    assert.ok(elapsed >= 290 && elapsed < 800, `timeout of 300 ms took ${elapsed} ms`);

    const ac = new AbortController();
    setTimeout(() => ac.abort(), 50);
    t0 = performance.now();
    const a = await listVars('fvups', { host: '127.0.0.1', port: peer.port, timeoutMs: 5000, signal: ac.signal });
    elapsed = performance.now() - t0;
    assert.equal(a.ok, false);
    if (!a.ok) assert.equal(a.error.code, 'aborted');
    assert.ok(elapsed < 1000, `abort took ${elapsed} ms`);
  } finally {
    await close(peer.server);
  }
});
