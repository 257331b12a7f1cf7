// Reading, verifying and exporting a journal need no inventory; a usage error shows the one command's usage.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdir, mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { runCli, type CliIo } from '../../src/cli/run.ts';
import { USAGE } from '../../src/commands/parse.ts';

const INVENTORY = fileURLToPath(new URL('../../examples/fleet.yaml', import.meta.url));
const AT = new Date('2026-09-13T07:00:00.000Z');
let dir: string;

before(async () => {
  dir = await mkdtemp(join(tmpdir(), 'seat-no-fleet-'));
});
after(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function seat(env: NodeJS.ProcessEnv, ...args: string[]): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const io: CliIo = {
    stdout: { write: (x: string | Uint8Array) => (out += String(x)) },
    stderr: { write: (x: string) => (err += x) },
    env: { SEAT_USER: 'ana', HOME: dir, ...env },
    now: () => AT,
  };
  const code = await runCli(args, io);
  return { code, out, err };
}

test('journal, journal verify, export and incident list read SEAT_JOURNAL with no inventory', async () => {
  const env = { SEAT_JOURNAL: join(dir, 'env.sqlite') };
  assert.equal((await seat(env, '--inventory', INVENTORY, 'incident', 'open', 'fv', 'gen OOM after the move')).code, 0);
  assert.equal((await seat(env, '--inventory', INVENTORY, 'note', '--incident', '1', 'restarted gen')).code, 0);

  const journal = await seat(env, 'journal', '1');
  assert.equal(journal.code, 0, journal.err);
  assert.match(journal.out, /restarted gen/);
  const verify = await seat(env, 'journal', 'verify', '1');
  assert.equal(verify.code, 0, verify.err);
  const list = await seat(env, 'incident', 'list');
  assert.equal(list.code, 0, list.err);
  assert.match(list.out, /gen OOM after the move/);
  const file = join(dir, 'pm.md');
  const exported = await seat(env, 'export', '1', '-o', file);
  assert.equal(exported.code, 0, exported.err);
  assert.match(await readFile(file, 'utf8'), /gen OOM after the move/);
  for (const r of [journal, verify, list, exported]) assert.doesNotMatch(r.err, /no inventory/);
});

test('without SEAT_JOURNAL the state folder’s journal is read; a missing one is one line, not a usage dump', async () => {
  const state = join(dir, 'state');
  const missing = await seat({ XDG_STATE_HOME: state }, 'journal', '1');
  assert.equal(missing.code, 2);
  assert.equal(missing.err, `seat: no journal at ${join(state, 'seatbelt', 'journal.sqlite')} (the state folder): set SEAT_JOURNAL to the journal file, or pass --inventory FILE if the inventory names it\n`);
  await mkdir(join(state, 'seatbelt'), { recursive: true });
  const env = { SEAT_JOURNAL: join(state, 'seatbelt', 'journal.sqlite') };
  assert.equal((await seat(env, '--inventory', INVENTORY, 'incident', 'open', 'fv', 'kv error')).code, 0);
  const list = await seat({ XDG_STATE_HOME: state }, 'incident', 'list');
  assert.equal(list.code, 0, list.err);
  assert.match(list.out, /kv error/);
});

test('a writing command without an inventory says so in one line, then its own usage only', async () => {
  const r = await seat({ SEAT_JOURNAL: join(dir, 'env.sqlite') }, 'note', '1', 'hello');
  assert.equal(r.code, 2);
  const [first, ...rest] = r.err.trimEnd().split('\n');
  assert.match(first!, /^seat: no inventory: pass --inventory FILE or set SEAT_INVENTORY/);
  assert.match(rest.join('\n'), /seat note/);
  assert.doesNotMatch(r.err, /seat probe/, 'not every command’s usage');
  assert.ok(rest.length < USAGE.split('\n').length, r.err);
});

test('a usage error names the command and prints its usage; only an unknown command prints them all', async () => {
  const bad = await seat({}, 'step', 'done', 'kv-error', '--bogus');
  assert.equal(bad.code, 2);
  assert.match(bad.err, /^seat: .*--bogus/);
  assert.match(bad.err, /seat step done/);
  assert.doesNotMatch(bad.err, /seat probe/);
  const unknown = await seat({}, 'frobnicate');
  assert.equal(unknown.code, 2);
  assert.ok(unknown.err.includes(USAGE), unknown.err);
});
