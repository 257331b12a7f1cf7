// Failover on a real primary and synchronous streaming standby: a store opened on the multi-host
// URL with target_session_attrs=read-write finds the primary (even listed second), loses it,
// answers in the gap with a JournalError (nothing recorded, within its connect timeout, no hang),
// and records on the promoted standby by itself; nothing it acknowledged is lost.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Actor, EventInput } from '../../src/incident/types.ts';
import { journalMigrate } from '../../src/cli/journal-admin.ts';
import { openPostgresJournal } from '../../src/journal/postgres.ts';
import { JournalError } from '../../src/journal/store.ts';
import { pgMissing, startCluster, type PgCluster } from '../helpers/pg-cluster.ts';

const missing = pgMissing();
let cluster: PgCluster;

before(async () => {
  if (missing) return;
  cluster = await startCluster();
  const sink = { write: () => true };
  assert.equal(await journalMigrate(['--journal', cluster.url('seat_owner')], { stdout: sink, stderr: sink, env: {} }), 0);
  await cluster.addStandby();
});
after(async () => {
  await cluster?.stop();
});

const ana: Actor = { kind: 'slack', id: 'U0ANA', name: 'ana' };
const at = '2025-03-01T14:05:00.000Z';
const note = (incident: number, text: string): EventInput => ({ incident, kind: 'note', actor: ana, happenedAt: at, payload: { text } });
const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));

test('the store follows the primary to the promoted standby; the gap is told as not recorded; nothing acknowledged is lost', { skip: missing }, async () => {
  const { primary } = cluster;
  const standby = cluster.standby!;
  // The standby listed first: read-write must still land on the primary (postgres.js alone would not).
  const url = cluster.url('seat_bot', { nodes: [standby, primary], params: 'target_session_attrs=read-write&connect_timeout=2' });
  const j = await openPostgresJournal(url);
  try {
    const id = (await j.openIncident({ site: 'fv', title: 'fv dark', actor: ana, at, drill: false })).incident.id;
    const acknowledged: string[] = [];
    for (let i = 0; i < 5; i++) {
      const r = await j.append(note(id, `before ${i}`));
      assert.ok(r.ok);
      acknowledged.push(r.event.hash);
    }
    await primary.kill();
    // The gap: no writable primary. Told at once as a JournalError, within the connect timeout's bound.
    const t0 = Date.now();
    await assert.rejects(j.append(note(id, 'in the gap')), (e: unknown) => e instanceof JournalError && e.code === 'journal_unavailable' && /no writable PostgreSQL primary/.test(e.message));
    assert.ok(Date.now() - t0 < 20_000, 'the append in the gap hung');
    await standby.promote();
    // The next append after the failover records on the promoted node (a bounded retry loop).
    let after: Awaited<ReturnType<typeof j.append>> | undefined;
    for (let i = 0; i < 100 && !after; i++) {
      try {
        after = await j.append(note(id, 'after the failover'));
      } catch (e) {
        assert.ok(e instanceof JournalError && e.code === 'journal_unavailable', String(e));
        await pause(100);
      }
    }
    assert.ok(after?.ok, 'no append succeeded on the promoted standby');
    const events = await j.events(id);
    for (const h of acknowledged) assert.ok(events.some((e) => e.hash === h), 'an acknowledged event was lost');
    assert.equal(events.filter((e) => e.payload.text === 'in the gap').length, 0);
    assert.equal(events.at(-1)?.payload.text, 'after the failover');
    assert.equal((await j.verify()).ok, true);
  } finally {
    await j.close();
  }
});
