import { test } from 'node:test';
import assert from 'node:assert/strict';
import { SCHEMA_VERSION, canonicalJson } from '../../src/probes/canonical.ts';

test('the same value serialises to the same bytes whatever order its keys were built in', () => {
  const a = { b: 1, a: { y: [1, { d: 2, c: 3 }], x: 'é\n' }, u: undefined };
  const b = { a: { x: 'é\n', y: [1, { c: 3, d: 2 }] }, b: 1 };
  assert.equal(canonicalJson(a), canonicalJson(b));
  assert.equal(canonicalJson(a), '{"a":{"x":"é\\n","y":[1,{"c":3,"d":2}]},"b":1}');
});

test('undefined fields vanish, -0 is 0, non-finite numbers are null, dates are ISO', () => {
  assert.equal(canonicalJson({ z: -0, n: NaN, i: Infinity, d: new Date(0), u: undefined }), '{"d":"1970-01-01T00:00:00.000Z","i":null,"n":null,"z":0}');
});

test('a cycle or a bigint is refused, not serialised differently each time', () => {
  const o: Record<string, unknown> = {};
  o.self = o;
  assert.throws(() => canonicalJson(o), /cycle/);
  assert.throws(() => canonicalJson({ n: 1n }), /bigint/);
});

test('the report schema has a version', () => {
  assert.ok(Number.isInteger(SCHEMA_VERSION) && SCHEMA_VERSION >= 2);
});
