// The terminal's front door, in-process: what answers without an inventory, how a typo is told,
// `seat check`, and bad inventories as exit 2 with one line per problem. No probe runs here.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { runCli, type CliIo } from '../../src/cli/run.ts';

const PKG = JSON.parse(await readFile(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string };
const DRILL = new URL('../../drills/fleet.yaml', import.meta.url).pathname;

let dir: string;
before(async () => {
  dir = await mkdtemp(join(tmpdir(), 'seatbelt-door-'));
});
after(async () => {
  await rm(dir, { recursive: true, force: true });
});

function io(env: NodeJS.ProcessEnv = {}): CliIo & { out: () => string; err: () => string } {
  let out = '';
  let err = '';
  return {
    stdout: { write: (s: string) => (out += s), isTTY: false },
    stderr: { write: (s: string) => (err += s) },
    env,
    out: () => out,
    err: () => err,
  };
}

async function run(argv: string[], env: NodeJS.ProcessEnv = {}): Promise<{ code: number; out: string; err: string }> {
  const o = io(env);
  const code = await runCli(argv, o);
  return { code, out: o.out(), err: o.err() };
}

test('help, -h, --help answer with the usage and need no inventory', async () => {
  for (const argv of [[], ['help'], ['-h'], ['--help']]) {
    const r = await run(argv);
    assert.equal(r.code, 0, argv.join(' '));
    assert.match(r.out, /^usage: seat probe <site\|all> \[--only aliases,gpus,power\] \[--json\] \[--timeout MS\] \[--paid\] \[--all\]\n/);
    assert.match(r.out, /--inventory FILE \(or SEAT_INVENTORY\)/);
    assert.equal(r.err, '');
  }
});

test('seat help probe and seat probe -h: that command\'s arguments and flags, no inventory', async () => {
  for (const argv of [['help', 'probe'], ['probe', '-h'], ['probe', 'fv', '--help']]) {
    const r = await run(argv);
    assert.equal(r.code, 0);
    assert.match(r.out, /^usage: seat probe <site\|all>/);
    assert.match(r.out, /--all +show every finding, not only the problems/);
  }
  const check = await run(['help', 'check']);
  assert.match(check.out, /^usage: seat check\n\nvalidate the inventory/);
});

test('seat --version and seat version print the package.json version, no inventory', async () => {
  for (const argv of [['--version'], ['version']]) {
    const r = await run(argv);
    assert.equal(r.code, 0);
    assert.equal(r.out, `seatbelt ${PKG.version}\n`);
  }
});

test('a misspelt command is told as such, exit 2, not as "no inventory"', async () => {
  const r = await run(['prbe', 'fv']);
  assert.equal(r.code, 2);
  assert.match(r.err, /^seat: unknown command "prbe" — did you mean probe\?\nusage: seat probe/);
  assert.doesNotMatch(r.err, /no inventory/);
  const flag = await run(['probe', 'fv', '--onyl', 'gpus']);
  assert.equal(flag.code, 2);
  assert.match(flag.err, /^seat: unknown option "--onyl" for probe — did you mean --only\?\n/);
});

test('probe and check without an inventory say how to give one', async () => {
  for (const argv of [['probe', 'fv'], ['check']]) {
    const r = await run(argv);
    assert.equal(r.code, 2);
    assert.match(r.err, /^seat: no inventory: pass --inventory FILE or set SEAT_INVENTORY/);
  }
});

test('seat check prints the fleet: sites, hosts, seats, aliases and routes, key variable names but no values', async () => {
  const secret = 'sk-drill-admin-value-1234';
  const r = await run(['check', '--inventory', DRILL], { LITELLM_ADMIN_KEY: secret });
  assert.equal(r.code, 0, r.err);
  assert.match(r.out, /^.*drills\/fleet\.yaml: a valid inventory\n/);
  assert.match(r.out, /^fleet "drill" \(DRILL: stand-ins, not the real fleet\): 3 sites, \d+ hosts, \d+ GPUs, \d+ seats, 30 aliases$/m);
  assert.match(r.out, /^gateway http:\/\/127\.0\.0\.1:\d+$/m);
  assert.match(r.out, /^ {2}key admin +from \$LITELLM_ADMIN_KEY \(set\)$/m);
  assert.match(r.out, /^ {2}key shared +from \$LITELLM_SHARED_KEY \(not set here\)$/m);
  assert.match(r.out, /^site fv/m);
  assert.match(r.out, /^ {2}host fv-ml1 +127\.\S+ +ssh \S+ +nvidia, GPUs 0 1 2 3$/m);
  assert.match(r.out, /^ {2}ups {2}\S+ on 127\.\S+ \(NUT\)/m);
  assert.match(r.out, /^ {2}gen +fv-ml1 GPU 0, port \d+, budget 0\.45 of the card/m);
  assert.match(r.out, /^ {2}gen-large +chat +→ flash-next@fv-ml1/m);
  assert.match(r.out, /^ {2}paid-gen +chat +→ backend openrouter {2}\(paid, opt-in\)$/m);
  assert.ok(!r.out.includes(secret) && !r.err.includes(secret), 'no key value');
});

test('seat check on a bad inventory: exit 2 with every error, the path as the user typed it', async () => {
  // Relative, as typed: shown as it is, not resolved (nor replaced by a copy somewhere else).
  const rel = relative(process.cwd(), join(dir, 'bad.yaml'));
  await writeFile(rel, (await readFile(DRILL, 'utf8')).replace('gpuVendor: intel', 'gpuVendor: amd').replace(/baseUrl: \S+/, 'baseUrl: http://ops:pw-hunter2@127.0.0.1:14000'));
  const r = await run(['check', `--inventory=${rel}`]);
  assert.equal(r.code, 2);
  assert.match(r.err, new RegExp(`^seat: ${rel.replace(/[.]/g, '\\.')} is not a valid inventory:\n`));
  assert.match(r.err, /^ {2}gateway\.baseUrl: has a user or password in it/m);
  assert.match(r.err, /^ {2}sites\.irv\.hosts\.brutus\.gpuVendor: expected one of nvidia, intel, none, got "amd"$/m);
  assert.ok(!r.err.includes('hunter2'));
});

test('YAML trouble is a bad inventory (exit 2), never an internal error: syntax, alias, alias bomb', async () => {
  const cases: [string, RegExp][] = [
    ['sites:\n  fv: { hosts: [ }\n', /, line 2, column \d+: YAML syntax error: /],
    ['sites: *nowhere\n', /, line 1, column 8: alias \*nowhere has no anchor/],
    [['a: &a [x, x, x, x, x, x, x, x, x]', 'b: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a]', 'c: &c [*b, *b, *b, *b, *b, *b, *b, *b, *b]', 'd: [*c, *c, *c, *c, *c, *c, *c, *c, *c]'].join('\n'), /YAML aliases expand too far \(over 100 alias expansions/],
    ['[1, 2, 3]\n', /this file holds a list$/m],
  ];
  for (const [text, expected] of cases) {
    const file = join(dir, 'y.yaml');
    await writeFile(file, text);
    const r = await run(['probe', 'fv', '--inventory', file]);
    assert.equal(r.code, 2, text);
    assert.match(r.err, expected);
    assert.doesNotMatch(r.err, /internal error/);
  }
});

test('a FIFO as the inventory is refused at once (exit 2), not waited on', async () => {
  const fifo = join(dir, 'inv.fifo');
  execFileSync('mkfifo', [fifo]);
  const r = await run(['check'], { SEAT_INVENTORY: fifo });
  assert.equal(r.code, 2);
  assert.match(r.err, /not a regular file: a named pipe \(FIFO\)/);
});

test('seat check shows an alias\'s keys; a site named constructor and a seat without container are fine', async () => {
  const file = join(dir, 'small.yaml');
  await writeFile(file, `gateway: { baseUrl: http://127.0.0.1:4000, keys: { admin: { env: LITELLM_ADMIN_KEY }, shared: { env: LITELLM_SHARED_KEY } } }
sites:
  constructor:
    hosts:
      h1: { address: 127.0.0.1, gpus: [{ index: 0 }] }
seats:
  gen: { host: h1, gpus: [0], port: 8000, gpuMemoryUtilization: 0.5 }
aliases:
  gen-large: { kind: chat, seats: [gen], keys: [admin] }
`);
  const r = await run(['check', '--inventory', file]);
  assert.equal(r.code, 0, r.err);
  assert.match(r.out, /^site constructor$/m);
  assert.match(r.out, /^ {2}gen +h1 GPU 0, port 8000, budget 0\.5 of the card$/m);
  assert.match(r.out, /^ {2}gen-large +chat +→ gen@h1 {2}\(keys: admin\)$/m);
});
