// The console around the drills: Tab's offers from the command table and the session, `seat drill
// --list` and a mistyped scenario, `npm start` without Slack tokens taking piped lines as console
// commands, and Ctrl-C twice at the prompt on a pseudo-terminal.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { completions, consoleSpecs, type Known } from '../../src/cli/console.ts';
import { cleanEnv, MAIN, noPty, Session, START } from './session.ts';

const KNOWN: Known = {
  sites: ['fv', 'ana', 'irv'],
  hosts: ['fv-ml1', 'ana-ml2', 'brutus'],
  runbooks: ['site-dark', 'gpu-oom-cotenant', 'kv-cache-boot-race'],
  guardrails: ['power-log-first', 'no-poll-dark-site'],
  files: ['/tmp/seat-drill-x/power.log'],
  steps: ['blast-radius', 'no-polling', 'recover-power-log'],
};
const specs = consoleSpecs({ drill: 'no', bot: 'no' });
const offered = (line: string): string[] => completions(line, specs, KNOWN)[0];

test('Tab offers command words, then what each argument and flag can be', () => {
  assert.ok(offered('').includes('probe') && offered('').includes('exit') && offered('').includes('runbook'));
  assert.ok(!offered('').includes('drill') && !offered('').includes('bot'), 'refused commands are not offered');
  assert.deepEqual(offered('pro'), ['probe ']);
  assert.deepEqual(offered('/seat pro'), ['probe '], 'the Slack spelling completes too');
  assert.deepEqual(offered('probe '), ['all', 'ana', 'fv', 'irv']);
  assert.deepEqual(offered('probe f'), ['fv ']);
  assert.deepEqual(offered('runbook '), ['check', 'list', 'start']);
  assert.deepEqual(offered('runbook start site'), ['site-dark ']);
  assert.deepEqual(offered('runbook start site-dark --s'), ['--site ']);
  assert.deepEqual(offered('runbook start site-dark --site a'), ['ana ']);
  assert.deepEqual(offered('step done '), ['blast-radius', 'no-polling', 'recover-power-log']);
  assert.deepEqual(offered('step done --incident 1 rec'), ['recover-power-log '], 'a flag and its value are not the step');
  assert.deepEqual(offered('override request no-polling no-'), ['no-poll-dark-site ']);
  assert.deepEqual(offered('diagnose /tmp/seat-drill-x/'), ['/tmp/seat-drill-x/power.log ']);
  assert.deepEqual(offered('export --format '), ['html', 'md']);
  assert.deepEqual(offered('help wa'), ['walk', 'watch']);
  assert.deepEqual(offered('journal verify '), [], 'an incident number is not guessed');
});

function run(args: string[], input: string | null): Promise<{ code: number | null; out: string; err: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['--import', 'tsx', ...args], { env: cleanEnv(), stdio: [input === null ? 'ignore' : 'pipe', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout!.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr!.on('data', (d: Buffer) => (err += d.toString()));
    if (input !== null) child.stdin!.end(input);
    child.on('close', (code) => resolve({ code, out, err }));
  });
}

test('seat drill --list names the three seeds; a mistyped scenario is one line and exit 2', { timeout: 60_000 }, async () => {
  const list = await run([MAIN, 'drill', '--list'], null);
  assert.equal(list.code, 0, list.err);
  assert.match(list.out, /^fv-site-dark\s+seed 002.*19 of 30 aliases down/m);
  assert.match(list.out, /^ana-gpu-oom\s+seed 000.*216 MiB free with six tenants/m);
  assert.match(list.out, /^brutus-kv-boot\s+seed 004/m);
  const typo = await run([MAIN, 'drill', 'fv-site-drak'], '');
  assert.equal(typo.code, 2);
  assert.equal(typo.err, 'seat: no drill scenario "fv-site-drak" (did you mean fv-site-dark?); known: fv-site-dark, ana-gpu-oom, brutus-kv-boot, hq-uplink-down (seat drill --list)\n');
});

test('npm start without Slack tokens, lines piped in: one line says so, then the lines run in the fv-site-dark console', { timeout: 120_000 }, async () => {
  const r = await run([START], 'probe fv --only power\nrunbook strat site-dark\n/seat journal verify\n');
  assert.equal(r.code, 0, r.err);
  assert.match(r.err, /^seat: no Slack tokens \(SLACK_BOT_TOKEN is unset\): the terminal instead of the bot\n/);
  assert.match(r.out, /seat drill fv-site-dark> probe fv --only power\n/);
  assert.match(r.out, /DOWN fv: site fv dark/);
  // A line that does not parse: its one line, no usage block, no stack trace; the next line runs.
  assert.match(r.err, /^seat: unknown command "runbook strat".*\n/m);
  assert.doesNotMatch(r.err, /usage:|at .*\.ts:\d+/);
  assert.match(r.out, /seat drill fv-site-dark> \/seat journal verify\njournal holds: 0 events/);
  assert.match(r.err, /drill fv-site-dark over: its stand-ins are stopped/);
});

test('Ctrl-C twice at the prompt ends the console and stops the stand-ins', { timeout: 120_000 }, async (t) => {
  const why = noPty();
  if (why) {
    t.skip(why);
    return;
  }
  const s = new Session([MAIN, 'drill', 'brutus-kv-boot'], { pty: true });
  try {
    await s.waitFor(/seat drill brutus-kv-boot> $/);
    s.keys('probe');
    await s.waitFor(/probe$/);
    s.keys('\x03');
    await s.waitFor(/Ctrl-C again, exit or Ctrl-D ends the console\)\n/);
    s.keys('\x03');
    assert.equal(await s.exited, 0, s.out.slice(-2000));
    assert.match(s.out, /drill brutus-kv-boot over: its stand-ins are stopped/);
    assert.doesNotMatch(s.out, /seat: unknown command|DOWN/, 'the cleared line never ran');
  } finally {
    s.dump();
    await s.close();
  }
});
