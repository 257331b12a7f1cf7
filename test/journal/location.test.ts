import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { journalPath, makeDirs } from '../../src/journal/location.ts';
import { saveMemory } from '../../src/cli/probe-memory.ts';
import { ProbeMemory } from '../../src/probes/memory.ts';

const home = () => '/home/ana';

test('SEAT_JOURNAL wins over the inventory and the state folder', () => {
  assert.deepEqual(journalPath({ SEAT_JOURNAL: '/srv/j.sqlite', XDG_STATE_HOME: '/state' }, { journal: 'j.sqlite' }, '/etc/seat/fleet.yaml', home), { path: '/srv/j.sqlite', from: 'SEAT_JOURNAL' });
});

test('the inventory\'s journal is relative to the inventory file\'s folder', () => {
  assert.deepEqual(journalPath({ XDG_STATE_HOME: '/state' }, { journal: 'data/j.sqlite' }, '/etc/seat/fleet.yaml', home), { path: '/etc/seat/data/j.sqlite', from: 'inventory' });
  assert.deepEqual(journalPath({}, { journal: '/var/lib/seat/j.sqlite' }, '/etc/seat/fleet.yaml', home), { path: '/var/lib/seat/j.sqlite', from: 'inventory' });
});

test('otherwise the XDG state folder, else ~/.local/state', () => {
  assert.deepEqual(journalPath({ XDG_STATE_HOME: '/state' }, {}, '/etc/seat/fleet.yaml', home), { path: '/state/seatbelt/journal.sqlite', from: 'state-dir' });
  assert.deepEqual(journalPath({ HOME: '/home/ben' }, undefined, undefined, home), { path: '/home/ben/.local/state/seatbelt/journal.sqlite', from: 'state-dir' });
  assert.deepEqual(journalPath({}, undefined, undefined, home), { path: '/home/ana/.local/state/seatbelt/journal.sqlite', from: 'state-dir' });
  // A relative XDG_STATE_HOME is invalid by the spec, and an empty SEAT_JOURNAL is unset.
  assert.deepEqual(journalPath({ XDG_STATE_HOME: 'state', SEAT_JOURNAL: '' }, undefined, undefined, home), { path: '/home/ana/.local/state/seatbelt/journal.sqlite', from: 'state-dir' });
});

test('state folders are made top down, private, and a place that refuses them is an error at once, not a hang', { timeout: 20_000 }, async () => {
  const dir = await mkdtemp(join(tmpdir(), 'seat-dirs-'));
  try {
    makeDirs(join(dir, 'a', 'b', 'c'));
    assert.equal((await stat(join(dir, 'a', 'b', 'c'))).mode & 0o777, 0o700);
    makeDirs(join(dir, 'a', 'b', 'c')); // already there: nothing to do
    await writeFile(join(dir, 'file'), '');
    assert.throws(() => makeDirs(join(dir, 'file', 'x')), { code: 'ENOTDIR' });
    assert.throws(() => makeDirs(join(dir, 'file')), { code: 'ENOTDIR' });
    // /proc answers ENOENT to a new entry under a folder that exists: node's recursive mkdir spins on it forever.
    assert.throws(() => makeDirs('/proc/seatbelt-no-such/x'), { code: 'ENOENT' });
    assert.match(saveMemory('/proc/seatbelt-no-such/probe-memory/x.json', new ProbeMemory()) ?? '', /ENOENT/, 'the probe memory is not saved, and says why');
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});
