// Inventory mistakes in plain words: what is missing, which rule a name breaks, where in the
// YAML (line and column), and never a secret or a file's content echoed back.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseInventory } from '../../src/inventory/load.ts';

const BASE = `gateway:
  baseUrl: http://127.0.0.1:4000
  keys: { admin: { env: LITELLM_ADMIN_KEY } }
sites:
  fv:
    hosts:
      fv-ml1: { address: 127.0.0.1, gpus: [{ index: 0 }] }
seats:
  gen: { host: fv-ml1, gpus: [0], port: 8000, gpuMemoryUtilization: 0.5 }
aliases:
  gen: { kind: chat, seats: [gen] }
`;

function errors(text: string, source = 'fleet.yaml'): string[] {
  const r = parseInventory(text, source);
  assert.ok(!r.ok, 'refused');
  return r.errors;
}

test('a missing field says "missing", not zod\'s "expected string, received undefined"', () => {
  assert.deepEqual(errors(BASE.replace('  baseUrl: http://127.0.0.1:4000\n', '')), ['gateway.baseUrl: missing']);
  assert.deepEqual(errors(BASE.replace('address: 127.0.0.1, ', '')), ['sites.fv.hosts.fv-ml1.address: missing']);
  assert.deepEqual(errors(BASE.replace('baseUrl: http://127.0.0.1:4000', 'baseUrl:')), ['gateway.baseUrl: expected an http(s) URL']);
  assert.deepEqual(errors(BASE.replace('port: 8000, ', 'port: ~, ')), ['seats.gen.port: expected a number 1-65535, got null']);
});

test('a bad site, host or alias name names the key and the rule', () => {
  assert.deepEqual(errors(BASE.replace('  fv:\n', '  Fv:\n')), [
    'sites.Fv: site name "Fv" breaks the rule: lower-case letters, digits, ".", "_" or "-", starting with a letter or digit, at most 63 characters',
  ]);
  assert.match(errors(BASE.replace('  gen: { kind', '  "gen large": { kind'))[0]!, /^aliases\.gen large: alias name "gen large" breaks the rule/);
});

test('a YAML syntax error gives the file as passed, the line and the column', () => {
  assert.deepEqual(errors('gateway:\n  baseUrl: "http://x\nsites: {}\n', 'conf/fleet.yaml').length, 1);
  const [e] = errors('sites:\n  fv: { hosts: [ }\n', 'conf/fleet.yaml');
  assert.match(e!, /^conf\/fleet\.yaml, line 2, column \d+: YAML syntax error: /);
});

test('YAML aliases: one without an anchor, and an alias bomb, are a bad inventory with a line', () => {
  assert.deepEqual(errors(`${BASE}settings: *defaults\n`), ['fleet.yaml, line 12, column 11: alias *defaults has no anchor &defaults before it']);
  const bomb = ['a: &a [x, x, x, x, x, x, x, x, x]', ...'bcdefg'.split('').map((c, i) => `${c}: &${c} [${Array(9).fill(`*${'abcdefg'[i]}`).join(', ')}]`)].join('\n');
  const [e] = errors(bomb);
  assert.match(e!, /^fleet\.yaml: YAML aliases expand too far \(over 100 alias expansions: an alias bomb\?\)/);
});

test('a duplicated key is named with its line and the first one\'s', () => {
  const text = BASE.replace('aliases:\n', 'aliases:\n  gen: { kind: embedding, seats: [gen] }\n');
  assert.deepEqual(errors(text), ['fleet.yaml, line 12, column 3: aliases.gen appears twice (first at line 11, column 3)']);
  const nested = BASE.replace('fv-ml1: { address: 127.0.0.1,', 'fv-ml1: { address: 127.0.0.1, address: 127.0.0.2,');
  assert.match(errors(nested)[0]!, /^fleet\.yaml, line 7, column \d+: sites\.fv\.hosts\.fv-ml1\.address appears twice/);
});

test('a file that is not a YAML mapping is refused without quoting its content', () => {
  const secretish = 'sk-live-0123456789abcdef';
  for (const [text, what] of [
    [`["${secretish}", 1, 2]`, 'a list'],
    [`"${secretish}"`, 'a plain string'],
    ['42', 'a number'],
  ] as const) {
    const e = errors(text);
    assert.deepEqual(e, [`fleet.yaml: the inventory must be a YAML mapping (fleet:, gateway:, sites:, ...); this file holds ${what}`]);
  }
  const binary = errors(`\u0000\u0001ELF${secretish}`);
  assert.match(binary[0]!, /^fleet\.yaml, line 1, column 1: a control character \(U\+0000\): this is not a YAML text file$/);
  assert.deepEqual(errors('# only a comment\n'), ['fleet.yaml: the inventory is empty']);
  assert.match(errors(`${BASE}---\nmore: 1\n`)[0]!, /a second YAML document \(---\): an inventory is one document/);
});

test('a key value pasted where the variable name belongs is refused without echoing it', () => {
  const key = 'sk-1234abcd5678efgh9012';
  const e = errors(BASE.replace('env: LITELLM_ADMIN_KEY', `env: ${key}`));
  assert.deepEqual(e, ['gateway.keys.admin.env: looks like a key value, not a variable name: put the key in an environment variable and name the variable here (env: LITELLM_ADMIN_KEY)']);
  const lower = errors(BASE.replace('env: LITELLM_ADMIN_KEY', 'env: admin_key'));
  assert.deepEqual(lower, ['gateway.keys.admin.env: expected an environment variable name like LITELLM_ADMIN_KEY']);
  const numeric = errors(BASE.replace('env: LITELLM_ADMIN_KEY', 'env: 12345678'));
  assert.deepEqual(numeric, ['gateway.keys.admin.env: expected a string']);
});

test('a baseUrl with user:pass@ or a query is refused, the password never shown', () => {
  const e = errors(BASE.replace('http://127.0.0.1:4000', 'http://ops:hunter2secret@127.0.0.1:4000'));
  assert.deepEqual(e, ['gateway.baseUrl: has a user or password in it (user:pass@): take it out; the gateway keys come from environment variables']);
  const q = errors(BASE.replace('http://127.0.0.1:4000', 'http://127.0.0.1:4000/?api_key=sk-abc'));
  assert.ok(!q.join(' ').includes('sk-abc'), q.join(' '));
  assert.match(q[0]!, /^gateway\.baseUrl: has a query or fragment in it/);
  assert.ok(!errors(BASE.replace('http://127.0.0.1:4000', 'ftp://u:hunter2secret@x')).join(' ').includes('hunter2secret'));
});

test('a site named __proto__ is refused with its line; none named constructor is invented', () => {
  assert.deepEqual(errors(BASE.replace('  fv:\n', '  __proto__:\n')), ['fleet.yaml, line 5, column 3: sites.__proto__: the key "__proto__" is not allowed']);
  // No seat "constructor": Object.prototype's must not stand in for it.
  assert.deepEqual(errors(BASE.replace('seats: [gen] }', 'seats: [constructor] }')), ['aliases.gen.seats.0: no seat "constructor" (known: gen)']);
  assert.deepEqual(errors(BASE.replace('host: fv-ml1,', 'host: constructor,')), ['seats.gen.host: no host "constructor" in any site (known: fv-ml1)']);
});

test('ordinary anchors and aliases still load', () => {
  const text = BASE.replace('gpus: [0], port: 8000', 'gpus: &zero [0], port: 8000').replace("fv-ml1: { address: 127.0.0.1, gpus: [{ index: 0 }] }", "fv-ml1: { address: 127.0.0.1, gpus: [{ index: 0 }] }\n    bmc:\n      b1: { address: 127.0.0.2, tcpPorts: &ports [443, 623] }\n    firewall: { address: 127.0.0.3, tcpPorts: *ports }");
  const r = parseInventory(text.replace('seats: [gen] }', 'seats: [gen] }\n  gen2: { kind: chat, seats: [gen] }'));
  assert.ok(r.ok, r.ok ? '' : r.errors.join('\n'));
  assert.deepEqual(r.value.sites.fv?.firewall?.tcpPorts, [443, 623]);
});
