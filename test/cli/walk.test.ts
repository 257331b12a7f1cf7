// `seat walk` driven as a person would: the real CLI as a child process, answers typed on its
// stdin one at a time after each prompt, a second person approving an override from another
// terminal, the drill's stand-ins answering the probe steps, a real SQLite journal.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { createHash } from 'node:crypto';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startCliDrill, type CliDrill } from '../helpers/cli-drill.ts';
import { openSqliteJournal } from '../../src/journal/sqlite.ts';

const MAIN = fileURLToPath(new URL('../../src/cli/main.ts', import.meta.url));
let cli: CliDrill;
let journal: string;

before(async () => {
  cli = await startCliDrill('seat-walk-');
  journal = join(cli.dir, 'journal.sqlite');
});
after(async () => {
  await cli?.stop();
});

function env(user: string): NodeJS.ProcessEnv {
  const e: NodeJS.ProcessEnv = { ...process.env, SEAT_USER: user, SEAT_JOURNAL: journal, ...cli.drill.env };
  for (const k of ['SEAT_INVENTORY', 'SLACK_BOT_TOKEN', 'SLACK_APP_TOKEN', 'SLACK_SIGNING_SECRET']) delete e[k];
  return e;
}

/** One `seat …` run to its end. */
function seat(user: string, args: string[]): Promise<{ code: number | null; out: string; err: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['--import', 'tsx', MAIN, '--inventory', cli.inventory, ...args], { env: env(user) });
    let out = '';
    let err = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr.on('data', (d: Buffer) => (err += d.toString()));
    child.stdin.end();
    child.on('close', (code) => resolve({ code, out, err }));
  });
}

/** A person at `seat walk`: waits for a prompt, then types. */
class Person {
  private out = '';
  private seen = 0;
  private readonly child: ChildProcessWithoutNullStreams;
  readonly done: Promise<number | null>;
  constructor(user: string, args: string[]) {
    this.child = spawn(process.execPath, ['--import', 'tsx', MAIN, '--inventory', cli.inventory, ...args], { env: env(user) });
    this.child.stdout.on('data', (d: Buffer) => (this.out += d.toString()));
    this.child.stderr.on('data', (d: Buffer) => (this.out += d.toString()));
    this.done = new Promise((resolve) => this.child.on('close', resolve));
  }
  /** Waits (up to 60 s: a busy machine) until the output after the last answer matches. */
  async waitFor(re: RegExp): Promise<string> {
    for (let i = 0; i < 1200; i++) {
      const fresh = this.out.slice(this.seen);
      if (re.test(fresh)) return fresh;
      await new Promise((r) => setTimeout(r, 50));
    }
    throw new Error(`never saw ${re} in:\n${this.out.slice(this.seen)}`);
  }
  async answer(prompt: RegExp, line: string): Promise<string> {
    const fresh = await this.waitFor(prompt);
    this.seen = this.out.length;
    this.child.stdin.write(`${line}\n`);
    return fresh;
  }
  get text(): string {
    return this.out;
  }
}

const MENU = /\[d\]one, \[s\]kip, \[n\]ote, \[o\]verride request, \[q\]uit > $/;

test('a whole site-dark walkthrough at the terminal: probes, evidence, refusals, one override by a second person, a chain that verifies', { timeout: 240_000 }, async () => {
  const powerLog = join(cli.dir, 'power.log');
  const bytes = 'timestamp, index, power.draw [W]\n2026/09/13 06:56:04.000, 0, 312.40 W\n';
  await writeFile(powerLog, bytes);

  const opened = await seat('ana', ['incident', 'open', 'fv', 'FV dark: UPS tripped — "two cards" ⚡']);
  assert.equal(opened.code, 0, opened.err);
  assert.match(opened.out, /^opened #1 \[open\] DRILL fv · FV dark: UPS tripped — "two cards" ⚡ · /);
  const started = await seat('ana', ['runbook', 'start', 'site-dark']);
  assert.equal(started.code, 0, started.err);
  assert.match(started.out, /pinned site-dark to #1 \(sha256 [0-9a-f]{12}\)/);

  const ana = new Person('ana', ['walk']);
  // 1. The blast radius: a real probe of the drill's stand-ins, stored as evidence.
  let shown = await ana.answer(MENU, 'd');
  assert.match(shown, /step 1 of 8: Measure the blast radius {2}\[blast-radius\]/);
  // 2. A note first, then the probe of the site: it answers in the drill, so probing it is allowed.
  shown = await ana.answer(MENU, 'n');
  assert.match(shown, /recorded: blast-radius done by ana .* \(event \d+, journal head [0-9a-f]{12}\)/);
  assert.match(shown, /probe: (ok|degraded|down).*\(report stored as event \d+\)/);
  await ana.answer(/note: $/, 'called the site: Jo is driving over 🚗');
  shown = await ana.answer(MENU, 'd');
  assert.match(shown, /noted \(event \d+\)/);
  await ana.answer(/Has a person at the site reset or replaced the UPS\? \[y\/n\]: $/, 'n');
  // An honest "no" (nobody has reset the UPS yet) is recorded as that answer, and the step stays open.
  shown = await ana.answer(MENU, 'd');
  assert.match(shown, /recorded: no-polling answered no \(event \d+\); the step stays open/);
  await ana.answer(/Has a person at the site reset or replaced the UPS\? \[y\/n\]: $/, 'y');
  // 3. The users' coverage before any power work: a silent paid repoint is refused; a new opt-in alias is the way through.
  shown = await ana.answer(MENU, 'd');
  assert.match(shown, /recorded: no-polling done by ana/);
  await ana.answer(/alias: $/, 'summarizer');
  await ana.answer(/backend: $/, 'openrouter');
  shown = await ana.answer(MENU, 'd');
  assert.match(shown, /refused by no-silent-paid-repoint: repointing alias summarizer to openrouter/);
  assert.match(shown, /summarizer-paid/);
  await ana.answer(/alias: $/, 'summarizer-paid');
  await ana.answer(/backend: $/, 'openrouter');
  // 4. The power log, hashed here.
  shown = await ana.answer(MENU, 'd');
  assert.match(shown, /recorded: paid-coverage done by ana/);
  await ana.answer(/a local path \(hashed here\), or "sha256 <hex> <bytes>" as declared: $/, powerLog);
  // 5. Sizing, now that the log is in.
  shown = await ana.answer(MENU, 'd');
  assert.match(shown, new RegExp(`measured: ${bytes.length} bytes, sha256 ${createHash('sha256').update(bytes).digest('hex')}`));
  assert.match(shown, /recorded: recover-power-log done by ana/);
  await ana.answer(/loadW: $/, '');
  // 6. The surge bank is refused (no override); the battery bank goes through.
  shown = await ana.answer(MENU, 'd');
  assert.match(shown, /recorded: ups-rating done by ana/);
  await ana.answer(/bank: $/, 'surge');
  await ana.answer(/loadW: $/, '1200');
  shown = await ana.answer(MENU, 'd');
  assert.match(shown, /refused by no-surge-outlets: .*1,200 W.*surge/);
  assert.match(shown, /override: none/);
  await ana.answer(/bank: $/, 'battery');
  await ana.answer(/loadW: $/, '600');
  // 7. A restart instead of a recreate is refused; ana asks, bob approves, ana goes through.
  shown = await ana.answer(MENU, 'd');
  assert.match(shown, /recorded: power-plan done by ana/);
  await ana.answer(/method: $/, 'restart');
  shown = await ana.answer(MENU, 'o');
  assert.match(shown, /refused by recreate-not-restart/);
  await ana.answer(/why go past recreate-not-restart this time: $/, 'compose file lost with the host; labels unchanged since creation');
  const req = /override request #(\d+) recorded until/.exec(await ana.waitFor(MENU));
  assert.ok(req, ana.text.slice(-2000));
  const self = await seat('ana', ['override', 'approve', req[1]!]);
  assert.equal(self.code, 2);
  assert.match(self.err, /ana asked for this override: a second on-call person must approve it/);
  const bob = await seat('bob', ['override', 'approve', req[1]!]);
  assert.equal(bob.code, 0, bob.err);
  await ana.answer(MENU, 'd');
  await ana.answer(/method: $/, 'restart');
  // 8. Up from outside: the blast-radius probe saw the drill's aliases answer after the incident opened.
  shown = await ana.answer(MENU, 'd');
  assert.match(shown, /recorded: recreate-containers done by ana/);
  await ana.answer(/seat: $/, 'gen');
  assert.equal(await ana.done, 0);
  assert.match(ana.text, /recorded: seat-reachable done by ana/);

  const verify = await seat('bob', ['journal', 'verify']);
  assert.equal(verify.code, 0, verify.err);
  assert.match(verify.out, /^journal holds: \d+ events in 1 incident/);

  const store = openSqliteJournal(journal);
  try {
    const events = await store.events(1);
    const kinds = events.map((e) => `${e.kind}${e.step ? ` ${e.step}` : ''}`);
    assert.deepEqual(kinds.filter((k) => k.startsWith('step.')), [
      'step.done blast-radius',
      'step.done no-polling',
      'step.blocked paid-coverage',
      'step.done paid-coverage',
      'step.done recover-power-log',
      'step.done ups-rating',
      'step.blocked power-plan',
      'step.done power-plan',
      'step.blocked recreate-containers',
      'step.done recreate-containers',
      'step.done seat-reachable',
    ]);
    const approved = events.find((e) => e.kind === 'override.approved')!;
    assert.deepEqual(approved.actor, { kind: 'local', name: 'bob' });
    const recreate = events.find((e) => e.kind === 'step.done' && e.step === 'recreate-containers')!;
    assert.equal(recreate.payload.override, approved.seq, 'the done names the approval it went through on');
    assert.ok(events.some((e) => e.kind === 'probe.report'), 'the probe report is evidence');
    const log = events.find((e) => e.step === 'recover-power-log' && e.kind === 'step.done')!;
    assert.deepEqual(log.payload.evidence, {
      kind: 'file',
      of: 'power-log',
      name: powerLog,
      size: bytes.length,
      sha256: createHash('sha256').update(bytes).digest('hex'),
      measured: true,
      powerlog: { gpus: 1, samples: 1, peakW: 312.4, peakAt: '2026/09/13 06:56:04.000', lastWindowMeanW: 312.4, last: '2026/09/13 06:56:04.000', intervalMs: null },
    });
  } finally {
    await store.close();
  }
});
