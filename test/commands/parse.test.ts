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
  assert.deepEqual(a.command, { verb: 'probe', site: 'fv', only: ['aliases', 'gpus', 'power'], json: false, timeoutMs: null, paid: false, all: false });
});

test('options: --only, --json, --timeout in both spellings, --paid, --all, all', () => {
  const r = parseCommand('probe all --only power,aliases --json --timeout=1500 --paid --all', SITES);
  assert.ok(r.ok && r.command.verb === 'probe');
  assert.equal(r.command.site, 'all');
  assert.deepEqual(r.command.only, ['aliases', 'power']);
  assert.equal(r.command.json, true);
  assert.equal(r.command.timeoutMs, 1500);
  assert.equal(r.command.paid, true);
  assert.equal(r.command.all, true);
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
  ['help me', /unknown command "me" \(known: probe, help, check, version, bot, vantage, incident, runbook, step, note, journal, walk, override, export, powerlog, diagnose, watch, drill\)/],
  ['help probe fv', /help takes one topic, got "probe" and "fv"/],
  ['prbe fv', /^unknown command "prbe" — did you mean probe\?$/],
  ['chekc', /^unknown command "chekc" — did you mean check\?$/],
  ['probe fv --onyl power', /^unknown option "--onyl" for probe — did you mean --only\?$/],
  ['probe fv --jsn', /^unknown option "--jsn" for probe — did you mean --json\?$/],
  ['probe fv -x', /^unknown option "-x" for probe \(known: --only, --json, --timeout, --paid, --all\)$/],
  ['probe fv --json=yes', /^--json takes no value, got "yes"$/],
  ['probe fv --timeout', /^--timeout needs a value: MS \(milliseconds 50-120000\)$/],
  ['probe fv --timeout --json', /^--timeout needs a value: MS/],
  ['probe fvv', /^unknown site "fvv" \(known: fv, ana, irv, all\) — did you mean fv\?$/],
  ['check extra', /^check takes no arguments, got "extra"$/],
  ['--verbose', /^unknown option "--verbose": flags come after the command/],
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

test('empty text is help; help, --help and -h, and -h after a command, are help', () => {
  assert.deepEqual(parseCommand('   ', SITES), { ok: true, command: { verb: 'help' } });
  for (const argv of [['help'], ['--help'], ['-h']]) assert.deepEqual(parseTokens(argv, SITES), { ok: true, command: { verb: 'help' } });
  assert.deepEqual(parseTokens(['help', 'probe'], SITES), { ok: true, command: { verb: 'help', topic: 'probe' } });
  assert.deepEqual(parseTokens(['probe', '--help'], SITES), { ok: true, command: { verb: 'help', topic: 'probe' } });
  assert.deepEqual(parseTokens(['check', '-h'], null), { ok: true, command: { verb: 'help', topic: 'check' } });
});

test('check, version and --version, bot', () => {
  assert.deepEqual(parseTokens(['check'], null), { ok: true, command: { verb: 'check' } });
  assert.deepEqual(parseTokens(['--version'], null), { ok: true, command: { verb: 'version' } });
  assert.deepEqual(parseTokens(['version'], null), { ok: true, command: { verb: 'version' } });
  assert.deepEqual(parseTokens(['bot'], null), { ok: true, command: { verb: 'bot' } });
});

test('before the inventory is loaded (sites: null) a site is only checked as a word', () => {
  const r = parseTokens(['probe', 'mars'], null);
  assert.ok(r.ok && r.command.verb === 'probe' && r.command.site === 'mars');
  assert.match((parseTokens(['probe', 'fv;'], null) as { error: string }).error, /unexpected character ";"/);
  assert.match((parseTokens(['probe'], null) as { error: string }).error, /^probe needs a site \(or all\)$/);
});

test('Slack is offered only its commands and flags, each refusal saying where it belongs', () => {
  assert.deepEqual(parseCommand('check', SITES, 'slack'), { ok: false, error: 'check is for the terminal only' });
  assert.deepEqual(parseCommand('bot', SITES, 'slack'), { ok: false, error: 'bot is for the terminal only' });
  const json = parseCommand('probe fv --json', SITES, 'slack');
  assert.ok(!json.ok && /^--json is for the terminal only/.test(json.error));
  assert.match((parseCommand('chek', SITES, 'slack') as { error: string }).error, /unknown command "chek" \(known: probe, help, incident, runbook, step, note, journal, override, export, diagnose\)/);
  const ok = parseCommand('probe fv --all --paid', SITES, 'slack');
  assert.ok(ok.ok && ok.command.verb === 'probe' && ok.command.all && ok.command.paid && !ok.command.json);
});

test('help takes any spelling of a command; Slack is told a terminal command is for the terminal', () => {
  assert.deepEqual(parseTokens(['help', 'version'], null), { ok: true, command: { verb: 'help', topic: 'version' } });
  assert.deepEqual(parseTokens(['help', '--version'], null), { ok: false, error: 'unknown option "--version": help takes no options' });
  assert.deepEqual(parseCommand('help check', SITES, 'slack'), { ok: false, error: 'check is for the terminal only' });
  assert.deepEqual(parseCommand('help prbe', SITES, 'slack'), { ok: false, error: 'unknown command "prbe" — did you mean probe?' });
});

test('a path is a path: slashes, spaces and dots in --file, -o and a path argument; controls still refused; names still narrow', () => {
  const done = parseTokens(['step', 'done', 'recover-power-log', '--file', '/tank/aimodels/flash-next-mtp-bench/power.log'], SITES);
  assert.ok(done.ok, done.ok ? '' : done.error);
  assert.equal((done.command as { evidence: { file?: string } }).evidence.file, '/tank/aimodels/flash-next-mtp-bench/power.log');
  const out = parseTokens(['export', '3', '-o', '/tmp/post mortem #3.md'], SITES);
  assert.ok(out.ok, out.ok ? '' : out.error);
  assert.equal((out.command as { output?: string }).output, '/tmp/post mortem #3.md');
  const inline = parseTokens(['export', '--output=../pm/3.html', '--format', 'html'], SITES);
  assert.ok(inline.ok && (inline.command as { output?: string }).output === '../pm/3.html');
  const log = parseTokens(['powerlog', '/tank/power.log', '--site', 'fv'], SITES);
  assert.ok(log.ok, log.ok ? '' : log.error);
  assert.deepEqual(log.command, { verb: 'powerlog', file: '/tank/power.log', site: 'fv' });
  assert.ok(parseTokens(['powerlog', '-'], SITES).ok);
  const ctl = parseTokens(['powerlog', '/tmp/a\x1b[2Jb'], SITES);
  assert.ok(!ctl.ok && /control character/.test(ctl.error));
  const name = parseTokens(['step', 'done', '../etc', '--file', 'x'], SITES);
  assert.ok(!name.ok, 'a step id is still a name');
  assert.ok(!parseTokens(['probe', 'fv', '--only', 'a/b'], SITES).ok, 'a flag that is no path keeps the narrow alphabet');
});
