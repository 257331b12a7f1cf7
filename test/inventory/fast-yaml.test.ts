// The fast road (js-yaml) must read every inventory exactly as the precise road (yaml) does, and
// must step aside for what it is not sure of, so that errors keep their line and column.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdir, readFile } from 'node:fs/promises';
import { fastYaml } from '../../src/inventory/fast-yaml.ts';
import { parseInventory } from '../../src/inventory/load.ts';
import { readYaml } from '../../src/inventory/yaml.ts';

function precise(text: string): unknown {
  const steps = readYaml(text, 'x');
  for (let s = steps.next(); ; s = steps.next()) if (s.done) return s.value;
}

async function inventories(): Promise<string[]> {
  const out: string[] = [];
  for (const dir of ['examples', 'drills']) {
    for (const name of await readdir(new URL(`../../${dir}/`, import.meta.url), { recursive: true })) {
      if (/\.ya?ml$/.test(name)) out.push(await readFile(new URL(`../../${dir}/${name}`, import.meta.url), 'utf8'));
    }
  }
  return out;
}

test('every shipped inventory reads the same by both roads', async () => {
  const texts = await inventories();
  assert.ok(texts.length >= 2, `${texts.length} inventories found`);
  for (const text of texts) {
    const fast = fastYaml(text);
    assert.ok(fast, 'the fast road took a shipped inventory');
    assert.deepEqual({ ok: true, value: fast }, precise(text));
  }
});

test('scalars read the same by both roads: numbers, booleans, nulls, dates and quoted text', () => {
  const text = [
    'a: 0o17', 'b: 0x1F', 'c: 1_000', 'd: 012', 'e: +5', 'f: 1e3', 'g: 2026-01-01', 'h: yes', 'i: ~', 'j: null',
    'k: True', 'l: "x: y"', "m: 'it''s'", 'n: -0.5', 'o: .inf', 'p: 12:30', 'q: [a, "b", 3]', 'r: { s: t }',
    'u: |', '  two', '  lines', 'v: >', '  folded', '  text', 'w: "\\u00e9 \\t"', 'x: 🚀 émoji', 'y:', '  <<: { z: 1 }', '',
  ].join('\n');
  const fast = fastYaml(text);
  assert.ok(fast);
  assert.deepEqual({ ok: true, value: fast }, precise(text));
});

test('the fast road steps aside for duplicates, anchors, __proto__, binary numbers, several documents and non-mappings', () => {
  for (const text of [
    'a: 1\na: 2\n',
    'a: &x { b: 1 }\nc: *x\n',
    'a:\n  __proto__: { polluted: 1 }\n',
    'a: 0b11\n',
    'a: 1\n---\nb: 2\n',
    '- a\n- b\n',
    'just text\n',
    '',
    'a: "\x07"\n',
    'a: [1, 2\n',
  ]) {
    assert.equal(fastYaml(text), null, JSON.stringify(text));
  }
});

test('an inventory the fast road steps aside for still gets its line and column', () => {
  const r = parseInventory('fleet: { name: x }\nfleet: { name: y }\n', 'inv.yaml');
  assert.ok(!r.ok);
  assert.match(r.errors[0]!, /^inv\.yaml, line 2, column 1: fleet appears twice \(first at line 1, column 1\)/);
});
