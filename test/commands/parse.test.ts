import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseCommand, parseTokens } from '../../src/commands/parse.ts';

const SITES = ['fv', 'ana', 'irv'];

test('"/seat probe fv" and "seat probe fv" and argv are one command', () => {
  const a = parseCommand('/seat probe fv', SITES);
  const b = parseCommand('seat probe fv', SITES);
  const c = parseTokens(['probe', 'fv'], SITES);
  assert.ok(a.ok);
  assert.deepEqual(a, b);
  assert.deepEqual(a, c);
  assert.deepEqual(a.command, { verb: 'probe', site: 'fv', only: ['aliases', 'gpus', 'power'], json: false, timeoutMs: null, paid: false });
});

test('options: --only, --json, --timeout in both spellings, --paid, all', () => {
  const r = parseCommand('probe all --only power,aliases --json --timeout=1500 --paid', SITES);
  assert.ok(r.ok && r.command.verb === 'probe');
  assert.equal(r.command.site, 'all');
  assert.deepEqual(r.command.only, ['aliases', 'power']);
  assert.equal(r.command.json, true);
  assert.equal(r.command.timeoutMs, 1500);
  assert.equal(r.command.paid, true);
  const s = parseCommand('probe ana --timeout 700', SITES);
  assert.ok(s.ok && s.command.verb === 'probe' && s.command.timeoutMs === 700);
});

const BAD: [string, RegExp][] = [
  ['frobnicate fv', /unknown command "frobnicate"/],
  ['probe', /probe needs a site: fv, ana, irv, all/],
  ['probe mars', /unknown site "mars" \(known: fv, ana, irv, all\)/],
  ['probe fv ana', /one site, got "fv" and "ana"/],
  ['probe fv; rm -rf /', /unexpected character ";" in "fv;"/],
  ['probe $(id)', /unexpected character "\$"/],
  ['probe `id`', /unexpected character "`"/],
  ['probe fv | cat', /unexpected character "\|"/],
  ['probe fv --only disks', /--only: unknown probe "disks"/],
  ['probe fv --timeout soon', /--timeout: expected milliseconds 50-120000, got "soon"/],
  ['probe fv --timeout 99999999', /--timeout: expected milliseconds/],
  ['probe fv --verbose', /unknown option "--verbose"/],
  ['probe 🔥', /unexpected character "🔥"/],
  ['probe ../../etc/passwd', /unexpected character "\/"/],
  ['help me', /help takes no arguments/],
];

for (const [text, expected] of BAD) {
  test(`refuses ${JSON.stringify(text)} with a message naming what was wrong`, () => {
    const r = parseCommand(text, SITES);
    assert.equal(r.ok, false);
    assert.ok(!r.ok);
    assert.match(r.error, expected);
    assert.ok(!r.error.includes('\n'), 'one line');
  });
}

test('10,000 characters are refused by length, not parsed', () => {
  const r = parseCommand(`probe ${'a'.repeat(10_000)}`, SITES);
  assert.ok(!r.ok);
  assert.match(r.error, /10006 characters; the most is 512/);
});

test('an argv word with a space inside (quoted in the shell) is refused', () => {
  const r = parseTokens(['probe', 'fv; rm -rf /'], SITES);
  assert.ok(!r.ok);
  assert.match(r.error, /unexpected character/);
});

test('empty text is help', () => {
  const r = parseCommand('   ', SITES);
  assert.deepEqual(r, { ok: true, command: { verb: 'help' } });
});
