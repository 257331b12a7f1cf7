// `seat journal status`: which journal and database, and the bot replicas seen by their heartbeats,
// one silent too long called so. A real SQLite file; a running bot (the real Bolt app) beats itself.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openSqliteCore } from '../../src/journal/sqlite.ts';
import { runSeat } from '../helpers/seat-cli.ts';
import { startIncidentHarness } from '../helpers/slack-incident.ts';

const AT = new Date('2026-12-07T02:00:00.000Z');
let dir: string;
before(async () => {
  dir = await mkdtemp(join(tmpdir(), 'seat-journal-status-'));
});
after(async () => {
  await rm(dir, { recursive: true, force: true });
});

const seat = (env: NodeJS.ProcessEnv, ...args: string[]) => runSeat(args, { SEAT_USER: 'ana', HOME: dir, ...env }, () => AT);

test('journal status names the file and every replica seen, and calls one silent for a minute stopped or cut off', async () => {
  const file = join(dir, 'j.sqlite');
  const core = openSqliteCore(file);
  core.heartbeat({ replica: 'fv-bot:101', site: 'fv', host: 'fv-ml1', version: '0.1.0', at: '2026-12-07T01:30:00.000Z' });
  core.heartbeat({ replica: 'fv-bot:101', site: 'fv', host: 'fv-ml1', version: '0.1.0', at: '2026-12-07T01:59:00.000Z' });
  core.heartbeat({ replica: 'irv-bot:7', site: 'irv', host: 'irv-gw\u001b[2J', version: '0.1.0', at: '2026-12-07T01:59:55.000Z' });
  core.close();
  const r = await seat({ SEAT_JOURNAL: file }, 'journal', 'status');
  assert.equal(r.code, 0, r.err);
  assert.match(r.out, new RegExp(`journal: ${file.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} \\(sqlite\\)`));
  assert.match(r.out, /replicas seen \(2\):/);
  const lines = r.out.split('\n');
  const irv = lines.findIndex((l) => l.includes('irv-bot:7'));
  const fv = lines.findIndex((l) => l.includes('fv-bot:101'));
  assert.ok(irv >= 0 && fv > irv, 'newest heartbeat first');
  assert.match(lines[irv]!, /site irv .* last seen 5 s ago \(since 2026-12-07T01:59:55.000Z\)$/);
  assert.doesNotMatch(r.out, /\u001b/, 'a peer-sent host name reaches the terminal without its control characters');
  assert.match(lines[fv]!, /last seen 60 s ago \(since 2026-12-07T01:30:00.000Z\) — no heartbeat for 60 s: stopped, or cut off from the database/);
});

test('a running bot says it is alive in the journal', { timeout: 60_000 }, async () => {
  const h = await startIncidentHarness();
  try {
    const core = openSqliteCore(h.journal);
    try {
      const seen = core.replicas();
      assert.equal(seen.length, 1, JSON.stringify(seen));
      assert.match(seen[0]!.replica, /^[\w.-]+:\d+$/, 'host:pid');
      assert.equal(seen[0]!.replica.split(':')[1], String(process.pid));
    } finally {
      core.close();
    }
  } finally {
    await h.stop();
  }
});
