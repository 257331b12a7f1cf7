// `seat journal import FILE`: an incident worked in a local journal while the shared one was out of
// reach comes back as a marked segment with its own actors and times; a step decided on both sides
// is named, and the shared decision stands; importing twice records once; the chain holds.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { openSqliteCore } from '../../src/journal/sqlite.ts';
import { runSeat } from '../helpers/seat-cli.ts';

const INVENTORY = fileURLToPath(new URL('../../examples/fleet.yaml', import.meta.url));
let dir: string;
let t = Date.parse('2026-12-07T02:00:00.000Z');
before(async () => {
  dir = await mkdtemp(join(tmpdir(), 'seat-journal-import-'));
});
after(async () => {
  await rm(dir, { recursive: true, force: true });
});

const seat = (journal: string, user: string, ...args: string[]) => runSeat(['--inventory', INVENTORY, ...args], { SEAT_USER: user, HOME: dir, SEAT_JOURNAL: journal }, () => new Date((t += 60_000)));

test('a local incident imported into the shared one: marked, in order, the both-sides step named, twice is once', async () => {
  const shared = join(dir, 'shared.sqlite');
  const local = join(dir, 'local.sqlite');
  assert.equal((await seat(shared, 'ana', 'incident', 'open', 'fv', 'gateway answers 500')).code, 0);
  assert.equal((await seat(shared, 'ana', 'runbook', 'start', 'gateway-down', '1')).code, 0);
  // The database goes; ben works on in a local journal, bob (on the bot) decides probe-gateway meanwhile.
  assert.equal((await seat(local, 'ben', 'incident', 'open', 'fv', 'gateway answers 500 (shared journal down)')).code, 0);
  assert.equal((await seat(local, 'ben', 'runbook', 'start', 'gateway-down', '1')).code, 0);
  assert.equal((await seat(local, 'ben', 'step', 'skip', 'probe-gateway', 'probed by hand: every alias 500')).code, 0);
  assert.equal((await seat(local, 'ben', 'step', 'skip', 'gateway-local', 'curl on the gateway host: 500 too')).code, 0);
  assert.equal((await seat(local, 'ben', 'note', 'litellm logs: <db> connection refused')).code, 0);
  assert.equal((await seat(shared, 'bob', 'step', 'skip', 'probe-gateway', 'the bot probed: 500', '--incident', '1')).code, 0);

  const r = await seat(shared, 'ben', 'journal', 'import', local, '--into', '1');
  assert.equal(r.code, 0, r.err);
  assert.match(r.out, /imported local #1 into #1: \d+ events appended/);
  assert.match(r.out, /step probe-gateway was decided on both sides: here event \d+ \(step.skipped by bob\), there event \d+ \(step.skipped by ben\): the shared decision stands/);

  const core = openSqliteCore(shared);
  try {
    const events = core.events(1);
    const mark = events.find((e) => e.kind === 'note' && typeof e.payload.text === 'string' && e.payload.text.startsWith(`imported from ${local}`));
    assert.ok(mark, 'the segment is marked');
    assert.deepEqual(mark.actor, { kind: 'local', name: 'ben' });
    const after = events.filter((e) => e.seq > mark.seq);
    const probe = events.filter((e) => e.step === 'probe-gateway' && e.kind === 'step.skipped');
    assert.equal(probe.length, 1, 'the shared decision stands alone');
    assert.equal((probe[0]!.actor as { name: string }).name, 'bob');
    const both = after.find((e) => e.kind === 'note' && e.step === 'probe-gateway');
    assert.match(String(both?.payload.text), /decided on both sides/);
    const local2 = after.find((e) => e.kind === 'step.skipped' && e.step === 'gateway-local');
    assert.ok(local2, 'the local decision on a step nobody decided here is imported as a decision');
    assert.equal((local2.actor as { name: string }).name, 'ben', 'with its own actor');
    assert.equal(after.some((e) => e.kind === 'runbook.pinned'), false, 'the same runbook is not pinned again');
    assert.ok(after.some((e) => e.kind === 'note' && e.payload.text === 'litellm logs: <db> connection refused'), 'free text as typed');
    assert.ok(core.verify().ok);
    const count = events.length;
    core.close();

    const again = await seat(shared, 'ben', 'journal', 'import', local, '--into', '1');
    assert.equal(again.code, 0, again.err);
    assert.match(again.out, /: 0 events appended, \d+ already imported before/);
    const check = openSqliteCore(shared);
    assert.equal(check.events(1).length, count, 'importing twice records once');
    check.close();
  } finally {
    core.close();
  }

  const fresh = await seat(shared, 'ben', 'journal', 'import', local);
  assert.equal(fresh.code, 0, fresh.err);
  assert.match(fresh.out, /imported local #1 into #2 \(opened here\)/);
  assert.equal((await seat(shared, 'ben', 'journal', 'verify')).code, 0);

  const self = await seat(shared, 'ben', 'journal', 'import', shared);
  assert.equal(self.code, 2);
  assert.match(self.err, /is this journal itself/);
  const missing = await seat(shared, 'ben', 'journal', 'import', join(dir, 'nope.sqlite'));
  assert.match(missing.err, /no such file/);
});
