// The operations listener on loopback: /healthz answers, /readyz says what is not ready, SEAT_HTTP_LISTEN is checked.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseListen } from '../../src/ops/address.ts';
import { startBotOps } from '../../src/ops/ops.ts';
import { drillFleet, fvFindings, reportOf } from './fixture.ts';

const fleet = await drillFleet();

test('SEAT_HTTP_LISTEN: loopback 127.0.0.1:9464 by default; host:port, [v6]:port; bad ones named', () => {
  assert.deepEqual(parseListen(undefined), { ok: true, value: { host: '127.0.0.1', port: 9464, loopback: true, from: 'default' } });
  assert.deepEqual(parseListen('[::1]:9100'), { ok: true, value: { host: '::1', port: 9100, loopback: true, from: 'SEAT_HTTP_LISTEN' } });
  assert.deepEqual(parseListen('0.0.0.0:9464'), { ok: true, value: { host: '0.0.0.0', port: 9464, loopback: false, from: 'SEAT_HTTP_LISTEN' } });
  const bad = parseListen('metrics.example:99999');
  assert.equal(bad.ok, false);
  assert.match(bad.ok ? '' : bad.error, /SEAT_HTTP_LISTEN="metrics.example:99999"/);
  assert.match((parseListen('9464') as { error: string }).error, /is not host:port/);
  assert.match((parseListen('example.com:9464') as { error: string }).error, /IP address or localhost/);
});

async function get(base: string, path: string): Promise<{ status: number; text: string; type: string | null }> {
  const res = await fetch(`${base}${path}`);
  return { status: res.status, text: await res.text(), type: res.headers.get('content-type') };
}

test('/healthz answers at once; /readyz is 503 naming Slack and the journal until both are ready', async () => {
  let writable = false;
  const ops = await startBotOps(fleet, { env: { SEAT_HTTP_LISTEN: '127.0.0.1:0' }, journalPath: '/nonexistent/journal.sqlite', writable: () => writable });
  assert.ok(ops.ok);
  const l = ops.value.listener;
  assert.ok(l);
  const base = `http://127.0.0.1:${l.port}`;
  try {
    assert.match(ops.said, /^operations on http:\/\/127\.0\.0\.1:\d+ \(\/healthz, \/readyz, \/metrics\)$/);
    assert.equal((await get(base, '/healthz')).status, 200);
    const r1 = await get(base, '/readyz');
    assert.equal(r1.status, 503);
    assert.equal(r1.text, 'not ready\njournal: the journal file cannot be written\nslack: not connected\n');
    writable = true;
    assert.equal((await get(base, '/readyz')).text, 'not ready\nslack: not connected\n');
    ops.value.setSlackConnected(true);
    assert.deepEqual(await get(base, '/readyz'), { status: 200, text: 'ready\n', type: 'text/plain; charset=utf-8' });
    ops.value.record(reportOf('fv', fvFindings()));
    const m = await get(base, '/metrics');
    assert.equal(m.status, 200);
    assert.match(m.type ?? '', /^text\/plain; version=0\.0\.4/);
    assert.match(m.text, /^probe_success\{site="fv",target="gen",kind="alias",key="admin"\} 0$/m);
    assert.equal((await get(base, '/nothing')).status, 404);
    assert.equal((await fetch(`${base}/metrics`, { method: 'POST', body: 'x' })).status, 405);
  } finally {
    await ops.value.close();
  }
});

test('an address asked for that is taken stops the start with what to do; SEAT_HTTP_LISTEN=off turns it off', async () => {
  const first = await startBotOps(fleet, { env: { SEAT_HTTP_LISTEN: '127.0.0.1:0' }, journalPath: '/tmp/j.sqlite' });
  assert.ok(first.ok && first.value.listener);
  try {
    const taken = await startBotOps(fleet, { env: { SEAT_HTTP_LISTEN: `127.0.0.1:${first.value.listener.port}` }, journalPath: '/tmp/j.sqlite' });
    assert.deepEqual(taken, { ok: false, error: `cannot listen on 127.0.0.1:${first.value.listener.port} (EADDRINUSE): set SEAT_HTTP_LISTEN to a free host:port` });
  } finally {
    await first.value.close();
  }
  const off = await startBotOps(fleet, { env: { SEAT_HTTP_LISTEN: 'off' }, journalPath: '/tmp/j.sqlite' });
  assert.ok(off.ok);
  assert.equal(off.value.listener, null);
  assert.equal(off.said, 'operations listener off (SEAT_HTTP_LISTEN=off)');
  const bad = await startBotOps(fleet, { env: { SEAT_HTTP_LISTEN: 'nonsense' }, journalPath: '/tmp/j.sqlite' });
  assert.equal(bad.ok, false);
});
