// `seat powerlog` as a person meets it: what the file holds never reaches the terminal raw, every
// error is one plain line with exit 2, and `-` reads standard input through the real entry point.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { powerlogToTerminal } from '../../src/cli/powerlog.ts';
import type { CliIo } from '../../src/cli/run.ts';
import { fleetOf, SEED_FLEET } from './fleet.ts';

const MAIN = fileURLToPath(new URL('../../src/cli/main.ts', import.meta.url));
const FIXTURE = fileURLToPath(new URL('../fixtures/powerlog/fv-ml1-power.log', import.meta.url));
// C0 and C1 controls (newline and tab are ours to write), DEL, and the bidi overrides.
const UNSAFE = /[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]/;

function fakeIo(stdin?: NodeJS.ReadableStream): { out: string[]; err: string[]; io: CliIo } {
  const out: string[] = [];
  const err: string[] = [];
  return { out, err, io: { stdout: { write: (s: string) => out.push(s) }, stderr: { write: (s: string) => err.push(s) }, env: {}, ...(stdin ? { stdin } : {}) } };
}

async function withDir<T>(fn: (dir: string) => Promise<T>): Promise<T> {
  const dir = await mkdtemp(join(tmpdir(), 'seat-powerlog-'));
  try {
    return await fn(dir);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

test('control characters in the file (names, uuids, skipped and partial lines) do not reach the output', async () => {
  await withDir(async (dir) => {
    const file = join(dir, 'power.log');
    await writeFile(
      file,
      [
        'timestamp, name, uuid, index, power.draw [W]',
        '2026/09/13 06:51:04.100, \x1b[31mNVIDIA\x1b[0m H200\x07, GPU-\u202eevil\x1b]0;pwned\x07, 0, 100.00 W',
        '2026/09/13 06:51:04.104, NVIDIA\x9b2J H100\r, GPU-b\x00, 1, 200.00 W',
        '\x1b[2J\x1b[H2026/09/13 06:51:14.100, forged\x08\x08\x08, x, 0, 1 W\x1b[8m',
        '2026/09/13 06:51:14.104, \x1bPq#0;2;0;0;0\x1b\\, GPU-c, 1, [N/A]\x1b[5m',
        '2026/09/13 06:51:24.100, \x1b[1mX, GPU-\x1b[2Kd, 0, 2',
      ].join('\n'),
    );
    const t = fakeIo();
    const code = await powerlogToTerminal({ verb: 'powerlog', file, site: 'fv' }, fleetOf(SEED_FLEET), t.io);
    assert.equal(code, 0, t.err.join(''));
    const text = t.out.join('') + t.err.join('');
    assert.doesNotMatch(text, UNSAFE, JSON.stringify(text));
    assert.match(text, /NVIDIA H200/);
    assert.match(text, /skipped line 4: /);
    assert.match(text, /then a partial line at 2026\/09\/13 06:51:24\.100/);
  });
});

test('errors are one plain line, exit 2, nothing on stdout: no such file, a directory, not a power log, an unknown site', async () => {
  await withDir(async (dir) => {
    const notLog = join(dir, 'fleet.yaml');
    await writeFile(notLog, SEED_FLEET);
    await mkdir(join(dir, 'logs'));
    const cases: [string, string | undefined, RegExp][] = [
      [join(dir, 'missing.log'), undefined, /^seat: .*missing\.log: no such file\n$/],
      [join(dir, 'logs'), undefined, /^seat: .*logs: a directory, not a power log file\n$/],
      [notLog, undefined, /^seat: .*fleet\.yaml: not a power log: no header line with a power\.draw column \(nvidia-smi --query-gpu=timestamp,index,power\.draw --format=csv -l 10 writes one first line naming the columns\)\n$/],
      [FIXTURE, 'nope', /^seat: no site "nope" in the inventory \(its sites: fv, ana, irv\)\n$/],
      ['-', undefined, /^seat: -: no standard input to read\n$/],
    ];
    for (const [file, site, expected] of cases) {
      const t = fakeIo();
      const code = await powerlogToTerminal({ verb: 'powerlog', file, ...(site ? { site } : {}) }, fleetOf(SEED_FLEET), t.io);
      assert.equal(code, 2, file);
      assert.deepEqual(t.out, [], file);
      assert.match(t.err.join(''), expected);
    }
  });
});

interface Run { code: number | null; out: string; err: string }

function runSeat(args: string[], stdin: string | null, env: NodeJS.ProcessEnv = {}): Promise<Run> {
  const clean: NodeJS.ProcessEnv = { ...process.env, ...env };
  delete clean.SEAT_INVENTORY;
  const child = spawn(process.execPath, ['--import', 'tsx', MAIN, ...args], { env: clean, stdio: ['pipe', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  child.stdout.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr.on('data', (d: Buffer) => (err += d.toString()));
  if (stdin !== null) child.stdin.write(stdin);
  child.stdin.end();
  return new Promise((resolve) => child.on('close', (code) => resolve({ code, out, err })));
}

test('seat powerlog - reads standard input through the real entry point', { timeout: 120_000 }, async () => {
  await withDir(async (dir) => {
    const inventory = join(dir, 'fleet.yaml');
    await writeFile(inventory, SEED_FLEET);
    const log = await readFile(FIXTURE, 'utf8');
    const ran = await runSeat(['powerlog', '-', '--site', 'fv', '--inventory', inventory], log);
    assert.equal(ran.code, 0, ran.err);
    assert.equal(ran.err, '');
    assert.match(ran.out, /^power log standard input: GPU board power \(power\.draw\)/);
    assert.match(ran.out, /^ {2}summed peak 1,191\.4 W at 2026\/09\/13 06:55:14 = 132% of 900 W$/m);
    assert.match(ran.out, /^ {2}WARN the summed peak 1,191\.4 W exceeds the UPS's 900 W rating$/m);

    const junk = await runSeat(['powerlog', '-', '--inventory', inventory], 'not a log\n\x1b[31mred\n');
    assert.equal(junk.code, 2);
    assert.equal(junk.out, '');
    assert.equal(junk.err, 'seat: standard input: not a power log: no header line with a power.draw column (nvidia-smi --query-gpu=timestamp,index,power.draw --format=csv -l 10 writes one first line naming the columns)\n');
  });
});
