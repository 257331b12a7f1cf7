// drills/upsd.ts: the real upsd + dummy-ups harness, read with the project's own NUT client.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:net';
import { existsSync } from 'node:fs';
import { listVars } from '../../src/probes/nut.ts';
import { freePort, startUpsd, upsdUnavailableReason } from '../../drills/upsd.ts';
import { closeServer, listen } from '../../drills/net.ts';

const skip = upsdUnavailableReason() ?? false;
const LIMIT = { timeout: 30_000, skip };

test('upsd harness: serves the .dev state, follows setState, loses its driver, and stop() really stops it', LIMIT, async (t) => {
  const port = await freePort();
  const u = await startUpsd({ upsName: 'fvups', port, dev: { 'ups.status': 'OL', 'ups.load': '34' } });
  t.after(() => u.stop());
  assert.equal(u.host, '127.0.0.1');
  const read = () => listVars('fvups', { host: '127.0.0.1', port, timeoutMs: 1000 });
  const first = await read();
  assert.ok(first.ok);
  assert.equal(first.vars['ups.status'], 'OL');
  assert.equal(first.vars['ups.load'], '34');

  await u.setState('ups.status: OB DISCHRG\nups.load: 80\n');
  const after = await read();
  assert.ok(after.ok);
  assert.equal(after.vars['ups.status'], 'OB DISCHRG');

  await u.stopDriver();
  const lost = await read();
  assert.ok(!lost.ok);
  assert.equal(lost.error.code, 'nut_driver_not_connected');

  await Promise.all([u.stop(), u.stop()]);
  const down = await read();
  assert.ok(!down.ok);
  assert.equal(down.error.code, 'connect_refused');
  assert.ok(!existsSync(u.dir), 'its temp dir is gone');
});

test('upsd harness: a port in use and a non-loopback address are clear errors that start nothing', LIMIT, async () => {
  const held = createServer();
  const port = await listen(held, 0, '127.0.0.1');
  try {
    await assert.rejects(startUpsd({ upsName: 'fvups', port, dev: { 'ups.status': 'OL' } }), new RegExp(`^Error: cannot start upsd on 127\\.0\\.0\\.1:${port}: the port is already in use$`));
  } finally {
    await closeServer(held);
  }
  await assert.rejects(startUpsd({ upsName: 'fvups', port, host: '192.0.2.1', dev: { 'ups.status': 'OL' } }), /refusing to let upsd listen on 192\.0\.2\.1/);
});
