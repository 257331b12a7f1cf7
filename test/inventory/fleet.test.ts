// Fleet lookups by name go through Maps; alias keys are cross-checked; container is optional.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseInventory } from '../../src/inventory/load.ts';
import { Fleet } from '../../src/inventory/fleet.ts';

const inv = (sites: string, aliases = '  gen: { kind: chat, seats: [gen] }\n'): string => `gateway:
  baseUrl: http://127.0.0.1:4000
  keys: { admin: { env: LITELLM_ADMIN_KEY }, shared: { env: LITELLM_SHARED_KEY } }
sites:
${sites}seats:
  gen: { host: h1, gpus: [0], port: 8000, gpuMemoryUtilization: 0.5 }
aliases:
${aliases}`;

const ONE_SITE = '  fv:\n    hosts:\n      h1: { address: 127.0.0.1, gpus: [{ index: 0 }] }\n';

function fleetOf(text: string): Fleet {
  const r = parseInventory(text);
  assert.ok(r.ok, r.ok ? '' : r.errors.join('\n'));
  return new Fleet(r.value);
}

test('fleet.site("constructor") is undefined unless there is such a site; a real one works', () => {
  const plain = fleetOf(inv(ONE_SITE));
  for (const name of ['constructor', 'toString', '__proto__', 'hasOwnProperty', 'valueOf']) assert.equal(plain.site(name), undefined, name);
  assert.deepEqual(plain.siteNames, ['fv']);
  const odd = fleetOf(inv('  constructor:\n    hosts:\n      h1: { address: 127.0.0.1, gpus: [{ index: 0 }] }\n'));
  assert.deepEqual(odd.siteNames, ['constructor']);
  assert.equal(odd.site('constructor')?.hosts.h1?.address, '127.0.0.1');
  assert.deepEqual(odd.hostsAt('constructor').map((h) => h.name), ['h1']);
});

test('an alias may name the gateway keys it is meant for; AliasRef.forKeys is null when it does not', () => {
  const fleet = fleetOf(inv(ONE_SITE, '  gen: { kind: chat, seats: [gen], keys: [admin] }\n  gen2: { kind: chat, seats: [gen] }\n'));
  assert.deepEqual(fleet.aliases.get('gen')?.forKeys, ['admin']);
  assert.equal(fleet.aliases.get('gen2')?.forKeys, null);
});

test('a key name not in gateway.keys is an error naming the known ones', () => {
  const r = parseInventory(inv(ONE_SITE, '  gen: { kind: chat, seats: [gen], keys: [admin, ops] }\n'));
  assert.ok(!r.ok);
  assert.deepEqual(r.errors, ['aliases.gen.keys.1: no key "ops" in gateway.keys (known: admin, shared)']);
  const empty = parseInventory(inv(ONE_SITE, '  gen: { kind: chat, seats: [gen], keys: [] }\n'));
  assert.ok(!empty.ok);
  assert.match(empty.errors[0]!, /^aliases\.gen\.keys: name at least one key, or leave keys out \(every key\)/);
});

test('a seat needs no container (nothing reads it yet); one given is still checked', () => {
  const fleet = fleetOf(inv(ONE_SITE));
  assert.equal(fleet.seats.get('gen')?.seat.container, undefined);
  const bad = parseInventory(inv(ONE_SITE).replace('port: 8000,', 'port: 8000, container: "a b",'));
  assert.ok(!bad.ok);
  assert.match(bad.errors[0]!, /^seats\.gen\.container: expected a container name, got "a b"/);
});
