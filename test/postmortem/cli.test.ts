// `seat export` in the terminal, in-process: the scripted journal as SEAT_JOURNAL, the example
// inventory, an injected clock. Standard output by default; -o writes a 0644 file and refuses a
// directory; a bad incident is exit 2; a journal that does not verify is not exported.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdir, readdir, readFile, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';
import { exportToTerminal } from '../../src/cli/export.ts';
import { runCli, type CliIo } from '../../src/cli/run.ts';
import type { ExportCommand } from '../../src/commands/table.ts';
import { EXPORTED_AT, scriptSiteDark, type Scripted } from './incident.ts';

const INVENTORY = fileURLToPath(new URL('../../examples/fleet.yaml', import.meta.url));
const GOLDEN = fileURLToPath(new URL('../fixtures/postmortem/site-dark.md', import.meta.url));
let s: Scripted;

before(async () => {
  s = await scriptSiteDark();
  await s.store.close(); // the terminal opens the file itself, as another process would
});
after(async () => {
  await s?.close();
});

async function seat(args: string[], journal = s.path): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const io: CliIo = {
    stdout: { write: (x: string) => (out += x) },
    stderr: { write: (x: string) => (err += x) },
    env: { SEAT_JOURNAL: journal, SEAT_USER: 'ana', HOME: s.dir },
    now: () => EXPORTED_AT,
  };
  const code = await runCli(['--inventory', INVENTORY, 'export', ...args], io);
  return { code, out, err };
}

async function exportOnly(cmd: ExportCommand): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const io: CliIo = { stdout: { write: (x: string) => (out += x) }, stderr: { write: (x: string) => (err += x) }, env: { SEAT_JOURNAL: s.path, HOME: s.dir }, now: () => EXPORTED_AT };
  const code = await exportToTerminal(cmd, s.fleet, io, INVENTORY);
  return { code, out, err };
}

test('seat export 1 prints the Markdown postmortem (the golden file) and exits 0', async () => {
  const r = await seat(['1']);
  assert.equal(r.code, 0, r.err);
  assert.equal(r.err, '');
  assert.equal(r.out, await readFile(GOLDEN, 'utf8'));
});

test('with no incident named, the newest open one; none open is exit 2', async () => {
  const r = await seat([]);
  assert.equal(r.code, 2);
  assert.match(r.err, /^seat: no open incident/);
  assert.equal(r.out, '');
});

test('a bad incident is exit 2 and says which', async () => {
  const r = await seat(['99']);
  assert.equal(r.code, 2);
  assert.equal(r.err, 'seat: no incident #99\n');
  assert.equal(r.out, '');
});

test('-o FILE writes the file with mode 0644 and says where; again over it rewrites it', async () => {
  // The shared grammar takes a plain file name (no `/`): the one a person types in the folder they are in.
  const cwd = process.cwd();
  process.chdir(s.dir);
  try {
    const r = await seat(['1', '--format', 'html', '-o', 'pm.html']);
    assert.equal(r.code, 0, r.err);
    assert.match(r.out, /^wrote the postmortem of #1 to pm\.html \(HTML, [\d,]+ bytes; journal head [0-9a-f]{12}\)\n$/);
    const file = join(s.dir, 'pm.html');
    const html = await readFile(file, 'utf8');
    assert.match(html, /^<!doctype html>/);
    assert.equal((await stat(file)).mode & 0o777, 0o644);
    await writeFile(file, 'old and longer than the new one'.repeat(10_000));
    const again = await seat(['1', '--format', 'html', '-o', 'pm.html']);
    assert.equal(again.code, 0, again.err);
    assert.equal(await readFile(file, 'utf8'), html, 'rewritten whole, nothing of the old file left');
  } finally {
    process.chdir(cwd);
  }
});

test('-o with a full path (the export command as the terminal calls it), under a umask that would take bits off', async () => {
  const file = join(s.dir, 'deep', 'pm.md');
  await mkdir(join(s.dir, 'deep'));
  const old = process.umask(0o077);
  try {
    const r = await exportOnly({ verb: 'export', incident: 1, format: 'md', output: file });
    assert.equal(r.code, 0, r.err);
    assert.equal(await readFile(file, 'utf8'), await readFile(GOLDEN, 'utf8'));
    assert.equal((await stat(file)).mode & 0o777, 0o644);
  } finally {
    process.umask(old);
  }
});

test('-o a directory is refused, and nothing is written into it', async () => {
  const dir = join(s.dir, 'out');
  await mkdir(dir);
  const r = await exportOnly({ verb: 'export', incident: 1, format: 'md', output: dir });
  assert.equal(r.code, 2);
  assert.match(r.err, /is a directory: name the file to write/);
  assert.deepEqual(await readdir(dir), []);
  const cwd = process.cwd();
  process.chdir(s.dir);
  try {
    const viaArgv = await seat(['1', '-o', 'out']);
    assert.equal(viaArgv.code, 2);
    assert.match(viaArgv.err, /^seat: out is a directory/);
  } finally {
    process.chdir(cwd);
  }
  assert.deepEqual(await readdir(dir), []);
});

test('a journal that no longer verifies is not exported', async () => {
  const copy = join(s.dir, 'tampered.sqlite');
  await writeFile(copy, await readFile(s.path));
  for (const ext of ['-wal', '-shm']) await writeFile(copy + ext, await readFile(s.path + ext).catch(() => Buffer.alloc(0)));
  const db = new Database(copy);
  db.exec('DROP TRIGGER events_no_update');
  db.prepare("UPDATE events SET payload = ? WHERE incident = 1 AND seq = 4").run(JSON.stringify({ text: 'nobody called the site' }));
  db.close();
  const r = await seat(['1'], copy);
  assert.equal(r.code, 1);
  assert.match(r.err, /^seat: the journal does not hold for incident #1 at event 4: .*not exporting a postmortem that cannot be checked/);
  assert.equal(r.out, '');
});
