import { test } from 'node:test';
import assert from 'node:assert/strict';
import { journalPath } from '../../src/journal/location.ts';

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
