// Two replicas of the bot on one PostgreSQL journal (a real PostgreSQL 15 cluster on loopback, made
// by the test, migrated by `seat journal migrate`, the bots connecting as the INSERT/SELECT role):
// the replica tests of replica-tests.ts; then `seat journal status` names both replicas and the primary.
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { journalMigrate } from '../../src/cli/journal-admin.ts';
import { runCli, type CliIo } from '../../src/cli/run.ts';
import { pgMissing, startCluster, type PgCluster } from '../helpers/pg-cluster.ts';
import { replicaTests } from './replica-tests.ts';

const missing = pgMissing();
let cluster: PgCluster | undefined;
let bot = '';

async function journal(): Promise<string> {
  cluster = await startCluster();
  await cluster.createDb('seat_replicas');
  let err = '';
  const io: CliIo = { stdout: { write: () => true }, stderr: { write: (s: string) => ((err += s), true) }, env: {} };
  assert.equal(await journalMigrate(['--journal', cluster.url('seat_owner', { db: 'seat_replicas' })], io), 0, err);
  bot = cluster.url('seat_bot', { db: 'seat_replicas' });
  return bot;
}

after(async () => {
  await cluster?.stop();
});

replicaTests('PostgreSQL', journal, missing);

test('PostgreSQL: seat journal status names the primary and the replicas that beat', { ...(missing ? { skip: missing } : {}) }, async () => {
  let out = '';
  let err = '';
  const io: CliIo = { stdout: { write: (s: string | Uint8Array) => ((out += String(s)), true) }, stderr: { write: (s: string) => ((err += s), true) }, env: { SEAT_JOURNAL: bot, HOME: '/nonexistent' } };
  assert.equal(await runCli(['journal', 'status'], io), 0, err);
  assert.match(out, /\(postgres\)/);
  assert.doesNotMatch(out, /password=|:[^*@/]+@/, 'no password shown');
  assert.match(out, /database: 127\.0\.0\.1:\d+, the primary: takes writes/);
  assert.match(out, /replicas seen \(2\):/);
});
