// The report's order: by probe, worst first, then by name as a person reads it. Not by who answered
// first, and not by the ICU data node happens to carry.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { compareNames, sortFindings } from '../../src/commands/probe.ts';
import type { Finding } from '../../src/probes/types.ts';

const f = (probe: string, status: string, target: string): Finding => ({ probe, status, target }) as unknown as Finding;

test('findings are listed by probe, worst first, then by name: gpu2 before gpu10, whatever the case', () => {
  const arrived = [
    f('gpu', 'up', 'fv-ml1/gpu10'),
    f('alias', 'up', 'Qwen-7b'),
    f('gpu', 'up', 'fv-ml1/gpu2'),
    f('alias', 'down', 'zeta'),
    f('alias', 'up', 'coder-32b'),
    f('alias', 'up', 'qwen-72b'),
    f('gpu', 'down', 'fv-ml1/gpu9'),
    f('ups', 'up', 'fv-ups'),
    f('alias', 'up', 'coder-7b'),
  ];
  const shown = sortFindings(arrived).map((x) => `${x.probe} ${x.status} ${x.target}`);
  assert.deepEqual(shown, [
    'alias down zeta',
    'alias up coder-7b',
    'alias up coder-32b',
    'alias up Qwen-7b',
    'alias up qwen-72b',
    'gpu down fv-ml1/gpu9',
    'gpu up fv-ml1/gpu2',
    'gpu up fv-ml1/gpu10',
    'ups up fv-ups',
  ]);
  // Whatever order they came in.
  assert.deepEqual(sortFindings([...arrived].reverse()).map((x) => x.target), sortFindings(arrived).map((x) => x.target));
});

test('names: numbers by value, case aside, and two names equal only when they are the same', () => {
  const names = ['a10', 'a9', 'A9', 'a09', 'a1b', 'a1', 'a', 'b', 'B2', 'b10', 'a-1', 'a_1', 'gpu0', 'gpu00', 'x100000000000000000001', 'x99999999999999999999', 'é', 'e'];
  const sorted = [...names].sort(compareNames);
  const at = (n: string): number => sorted.indexOf(n);
  assert.ok(at('a9') < at('a10') && at('a1') < at('a1b') && at('a') < at('a1'), sorted.join(' '));
  assert.ok(at('B2') < at('b10'), 'case aside, then the number');
  assert.ok(at('x99999999999999999999') < at('x100000000000000000001'), 'numbers longer than a double holds');
  const nines = ['a9', 'A9', 'a09'].map(at);
  assert.equal(Math.max(...nines) - Math.min(...nines), 2, 'a9, A9 and a09 side by side');
  // A total order: antisymmetric, zero only for the same name, and sorting is the same from any start.
  for (const x of names) {
    for (const y of names) {
      assert.equal(Math.sign(compareNames(x, y)) + Math.sign(compareNames(y, x)), 0, `${x} ${y}`);
      assert.equal(compareNames(x, y) === 0, x === y, `${x} ${y}`);
    }
  }
  assert.deepEqual([...names].reverse().sort(compareNames), sorted);
});

test('the report sorts by a key made once per name, in exactly the order compareNames gives (random names, a seeded generator)', () => {
  // Digits with and without leading zeros, both cases, punctuation on either side of the digits and
  // of the letters, accented and astral characters: every branch of compareNames.
  const alphabet = ['0', '0', '1', '2', '9', '9', 'a', 'A', 'b', 'B', 'z', 'Z', '-', '_', ' ', '/', ':', '@', '~', 'é', '\u00a0', '😀', '０'];
  let seed = 12345;
  const next = (n: number): number => {
    seed = (seed * 1103515245 + 12345) % 2 ** 31;
    return seed % n;
  };
  for (let round = 0; round < 200; round++) {
    const names = Array.from({ length: 60 }, () => Array.from({ length: 1 + next(9) }, () => alphabet[next(alphabet.length)]).join(''));
    // Some exact duplicates, whose arrival order must stand.
    names.push(names[0]!, names[1]!);
    const arrived = names.map((n, i) => ({ probe: 'alias', status: i % 7 === 0 ? 'down' : 'up', target: n, i }) as unknown as Finding & { i: number });
    const expected = [...arrived].sort((a, b) => (a.status === b.status ? 0 : a.status === 'down' ? -1 : 1) || compareNames(a.target, b.target));
    assert.deepEqual(
      sortFindings(arrived).map((x) => (x as Finding & { i: number }).i),
      expected.map((x) => x.i),
      `round ${round}`,
    );
  }
});
