import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadInventory, parseInventory } from '../../src/inventory/load.ts';
import { Fleet } from '../../src/inventory/fleet.ts';

const example = await readFile(new URL('../../examples/fleet.yaml', import.meta.url), 'utf8');

test('the shipped example fleet is the seeds’ fleet: 30 aliases, 19 on fv-ml1, four 97,887 MiB cards', () => {
  const r = parseInventory(example);
  assert.ok(r.ok, r.ok ? '' : r.errors.join('\n'));
  const fleet = new Fleet(r.value);
  assert.deepEqual(fleet.siteNames, ['fv', 'ana', 'irv']);
  assert.equal(fleet.aliases.size, 30);
  assert.equal([...fleet.aliases.keys()].filter((a) => fleet.aliasHosts(a).includes('fv-ml1')).length, 19);
  assert.equal(fleet.hosts.get('fv-ml1')?.host.gpus.length, 4);
  assert.equal(fleet.hosts.get('brutus')?.host.gpuVendor, 'intel');
  assert.equal(fleet.seats.get('gen')?.url, 'http://192.0.2.10:8000');
  const paid = [...fleet.aliases.values()].filter((a) => a.paid);
  assert.ok(paid.length > 0 && paid.every((a) => a.alias.optIn), 'every paid alias is opt-in');
});

test('the example uses documentation addresses only; the drill fleet loopback only', async () => {
  for (const [file, allowed] of [
    ['examples/fleet.yaml', /^(192\.0\.2\.|198\.51\.100\.|203\.0\.113\.)/],
    ['drills/fleet.yaml', /^127\./],
  ] as const) {
    const text = await readFile(new URL(`../../${file}`, import.meta.url), 'utf8');
    const ips = text.match(/\b\d{1,3}(?:\.\d{1,3}){3}\b/g) ?? [];
    assert.ok(ips.length > 5, `${file} has addresses`);
    for (const ip of ips) assert.match(ip, allowed, `${file}: ${ip}`);
  }
});

test('a bad port names the YAML path and the value', () => {
  const bad = example.replace('port: 3493, name: fvups', 'port: "abc", name: fvups');
  const r = parseInventory(bad);
  assert.ok(!r.ok);
  assert.deepEqual(r.errors, ['sites.fv.ups.port: expected a number 1-65535, got "abc"']);
});

test('every problem gets its own line', () => {
  const bad = example
    .replace('port: 3493, name: fvups', 'port: 70000, name: fvups')
    .replace('address: 192.0.2.10', 'address: "192.0.2.10; reboot"')
    .replace('gpuVendor: intel', 'gpuVendor: amd');
  const r = parseInventory(bad);
  assert.ok(!r.ok);
  assert.equal(r.errors.length, 3, r.errors.join('\n'));
  assert.ok(r.errors.includes('sites.fv.ups.port: expected a number 1-65535, got 70000'));
  assert.ok(r.errors.some((e) => e.startsWith('sites.fv.hosts.fv-ml1.address: expected an IP address or host name, got "192.0.2.10; reboot"')));
  assert.ok(r.errors.some((e) => e.startsWith('sites.irv.hosts.brutus.gpuVendor:') && e.includes('"amd"')));
});

test('references between seats, hosts and aliases are checked', () => {
  const bad = example.replace('gen:          { host: fv-ml1, gpus: [0]', 'gen:          { host: fv-ml9, gpus: [0]').replace('gen-large:    { kind: chat, seats: [flash-next] }', 'gen-large:    { kind: chat, seats: [flash-nxt] }');
  const r = parseInventory(bad);
  assert.ok(!r.ok);
  assert.ok(r.errors.some((e) => e.startsWith('seats.gen.host: no host "fv-ml9"')), r.errors.join('\n'));
  assert.ok(r.errors.some((e) => e.startsWith('aliases.gen-large.seats.0: no seat "flash-nxt"')), r.errors.join('\n'));
});

test('a GPU index the host does not have is refused', () => {
  const r = parseInventory(example.replace('flash-next:   { host: fv-ml1, gpus: [2]', 'flash-next:   { host: fv-ml1, gpus: [7]'));
  assert.ok(!r.ok);
  assert.deepEqual(r.errors, ['seats.flash-next.gpus.0: host fv-ml1 has no GPU 7']);
});

test('a paid backend that is not opt-in is refused (no silent paid coverage)', () => {
  const r = parseInventory(example.replace('paid-gen:        { kind: chat, backend: { name: openrouter, paid: true }, optIn: true }', 'paid-gen:        { kind: chat, backend: { name: openrouter, paid: true } }'));
  assert.ok(!r.ok);
  assert.match(r.errors[0]!, /^aliases\.paid-gen\.optIn: a paid backend must be optIn: true/);
});

test('a key value written into the file is refused: keys are named by env var', () => {
  const r = parseInventory(example.replace('admin: { env: LITELLM_ADMIN_KEY }', 'admin: { env: LITELLM_ADMIN_KEY, value: sk-1234 }'));
  assert.ok(!r.ok);
  assert.match(r.errors[0]!, /gateway\.keys\.admin: unknown key "value"/);
  assert.ok(!r.errors.join(' ').includes('sk-1234'));
});

test('unknown keys are named, typos included', () => {
  const r = parseInventory(example.replace('marginFloorMiB: 4096', 'marginFloorMib: 4096'));
  assert.ok(!r.ok);
  assert.deepEqual(r.errors, ['settings: unknown key "marginFloorMib"']);
});

test('broken YAML gives line and column; a missing file is one clear line', async () => {
  const r = parseInventory('sites: [\n  fv: {', 'x.yaml');
  assert.ok(!r.ok);
  assert.match(r.errors[0]!, /^x\.yaml, line 2, column \d+: YAML syntax error: /);
  const m = await loadInventory('/nonexistent/fleet.yaml');
  assert.ok(!m.ok);
  assert.deepEqual(m.errors, ['/nonexistent/fleet.yaml: cannot read the inventory: no such file (ENOENT)']);
});

test('an address that is no IPv4, IPv6 or host name is refused at load, wherever an address is given', () => {
  const places: [string, string, string][] = [
    ['address: 192.0.2.10', 'sites.fv.hosts.fv-ml1.address', 'address: %'],
    ['ups: { host: 192.0.2.2,', 'sites.fv.ups.host', 'ups: { host: %,'],
    ['fv-ml1-bmc: { address: 192.0.2.11,', 'sites.fv.bmc.fv-ml1-bmc.address', 'fv-ml1-bmc: { address: %,'],
    ['firewall: { address: 192.0.2.1,', 'sites.fv.firewall.address', 'firewall: { address: %,'],
  ];
  for (const bad of ['999.999.999.999', '"::::::::"', '192.0.2.256', '"-fv.example"', '"fv..example"']) {
    for (const [from, path, to] of places) {
      const r = parseInventory(example.replace(from, to.replace('%', bad)));
      assert.ok(!r.ok, `${path} = ${bad} loaded`);
      assert.deepEqual(r.errors, [`${path}: expected an IP address or host name, got ${JSON.stringify(bad.replace(/^"|"$/g, ''))}`]);
    }
  }
  for (const url of ['http://999.999.999.999:4000', 'http://[::::::::]:4000', 'http://fv..example:4000']) {
    const r = parseInventory(example.replace('baseUrl: http://192.0.2.40:4000', `baseUrl: "${url}"`));
    assert.ok(!r.ok, `${url} loaded`);
    assert.equal(r.errors.length, 1, r.errors.join('\n'));
    assert.match(r.errors[0]!, /^gateway\.baseUrl: /);
  }
  // Loopback, documentation and IPv6 examples and host names still load.
  for (const good of ['127.0.0.1', '"::1"', '"2001:db8::10"', 'fv-ml1.example.net', 'localhost']) {
    const r = parseInventory(example.replace('address: 192.0.2.10', `address: ${good}`));
    assert.ok(r.ok, `${good}: ${r.ok ? '' : r.errors.join('\n')}`);
  }
  assert.ok(parseInventory(example.replace('baseUrl: http://192.0.2.40:4000', 'baseUrl: "http://[::1]:4000"')).ok);
});

test('a gateway URL that node:url refuses is an error line, not a thrown exception', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'seat-inv-'));
  const file = join(dir, 'fleet.yaml');
  await writeFile(file, example.replace('baseUrl: http://192.0.2.40:4000', 'baseUrl: "http://999.999.999.999:4000"'));
  const r = await loadInventory(file);
  assert.ok(!r.ok);
  assert.deepEqual(r.errors, ['gateway.baseUrl: expected an http(s) URL']);
});
