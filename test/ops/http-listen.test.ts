// settings.httpListen in the inventory: where the operations listener listens when SEAT_HTTP_LISTEN
// is not set (the variable wins); a bad one is named as the inventory's.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseInventory } from '../../src/inventory/load.ts';
import { Fleet } from '../../src/inventory/fleet.ts';
import { listenFrom } from '../../src/ops/address.ts';
import { startBotOps } from '../../src/ops/ops.ts';

function fleetWith(httpListen: string): Fleet {
  const r = parseInventory(`
settings: { httpListen: '${httpListen}' }
gateway: { baseUrl: http://127.0.0.1:9, keys: { admin: { env: K } } }
sites: { fv: { hosts: { fv-ml1: { address: 127.0.0.1, gpuVendor: none } } } }
`);
  if (!r.ok) throw new Error(r.errors.join('\n'));
  return new Fleet(r.value);
}

test('settings.httpListen is used without SEAT_HTTP_LISTEN; the variable wins; off turns it off; a bad one is named', async () => {
  const ops = await startBotOps(fleetWith('127.0.0.2:0'), { env: {}, journalPath: '/tmp/j.sqlite' });
  assert.ok(ops.ok && ops.value.listener);
  try {
    assert.equal(ops.value.listener.host, '127.0.0.2');
  } finally {
    await ops.value.close();
  }
  const env = await startBotOps(fleetWith('127.0.0.2:0'), { env: { SEAT_HTTP_LISTEN: '127.0.0.3:0' }, journalPath: '/tmp/j.sqlite' });
  assert.ok(env.ok && env.value.listener);
  try {
    assert.equal(env.value.listener.host, '127.0.0.3', 'SEAT_HTTP_LISTEN wins');
  } finally {
    await env.value.close();
  }
  const off = await startBotOps(fleetWith('off'), { env: {}, journalPath: '/tmp/j.sqlite' });
  assert.ok(off.ok);
  assert.equal(off.value.listener, null);
  assert.equal(off.said, 'operations listener off (settings.httpListen: off)');
  assert.deepEqual(listenFrom({}, 'example.com:9464'), { ok: false, error: 'settings.httpListen: "example.com:9464": the host must be an IP address or localhost' });
  assert.deepEqual(listenFrom({}, undefined), { ok: true, value: { host: '127.0.0.1', port: 9464, loopback: true, from: 'default' } });
});
