// drills/net.ts: the loopback rules and port plumbing every stand-in uses.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:net';
import { accepts, assertLoopback, assertPortFree, closeServer, freePort, hostPort, httpUrl, isLoopback, listen, urlHost, waitForListener } from '../../drills/net.ts';

test('isLoopback: 127.0.0.0/8, ::1 (bracketed or not) and localhost, nothing else', () => {
  for (const h of ['127.0.0.1', '127.0.2.20', '127.255.255.254', '::1', '[::1]', 'localhost']) assert.ok(isLoopback(h), h);
  for (const h of ['192.0.2.1', '198.51.100.1', '0.0.0.0', '::', '128.0.0.1', '127.0.0', 'example.com', '127.0.0.1.nip.io', '']) assert.ok(!isLoopback(h), h);
  assert.throws(() => assertLoopback('192.0.2.7', 'listen on'), /^Error: drill: refusing to listen on 192\.0\.2\.7: the drill runs on 127\.0\.0\.0\/8 and ::1 only$/);
  assertLoopback('127.0.1.10');
});

test('host:port and URLs bracket IPv6 literals once', () => {
  assert.equal(hostPort('127.0.0.1', 8000), '127.0.0.1:8000');
  assert.equal(hostPort('::1', 8000), '[::1]:8000');
  assert.equal(hostPort('[::1]', 8000), '[::1]:8000');
  assert.equal(urlHost('localhost'), 'localhost');
  assert.equal(httpUrl('::1', 4000), 'http://[::1]:4000');
});

test('freePort gives a port nothing listens on; assertPortFree names a held one', async () => {
  const port = await freePort();
  assert.ok(port > 0);
  assert.equal(await accepts('127.0.0.1', port), false);
  await assertPortFree('127.0.0.1', port);
  const held = createServer();
  const heldPort = await listen(held, 0, '127.0.0.1');
  try {
    await assert.rejects(assertPortFree('127.0.0.1', heldPort, 'upsd'), new RegExp(`^Error: cannot start upsd on 127\\.0\\.0\\.1:${heldPort}: the port is already in use$`));
    assert.equal(await accepts('127.0.0.1', heldPort), true);
  } finally {
    await closeServer(held);
  }
  await assert.rejects(freePort('192.0.2.1'), /refusing to bind 192\.0\.2\.1/);
});

test('waitForListener: returns once something listens, times out otherwise, and stops early when check() throws', async () => {
  const port = await freePort();
  const server = createServer((s) => s.end());
  let tries = 0;
  // The first try finds nothing; the listener appears before the second.
  const waiting = waitForListener('127.0.0.1', port, {
    everyMs: 1,
    check: () => {
      tries += 1;
      if (tries === 2) void listen(server, port, '127.0.0.1');
    },
  });
  try {
    await waiting;
    assert.ok(tries >= 2);
  } finally {
    await closeServer(server);
  }
  const gone = await freePort();
  await assert.rejects(waitForListener('127.0.0.1', gone, { timeoutMs: 30, everyMs: 5 }), new RegExp(`nothing listens on 127\\.0\\.0\\.1:${gone} after 30 ms`));
  await assert.rejects(
    waitForListener('127.0.0.1', gone, {
      check: () => {
        throw new Error('the daemon exited');
      },
    }),
    /the daemon exited/,
  );
});
