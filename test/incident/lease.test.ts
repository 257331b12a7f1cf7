// A probe step runs under a lease in the journal, so two replicas of the bot on one journal never
// run (or record) one step's probe twice, and a replica that dies mid-step leaves a lease that runs
// out: the next press anywhere is told so and runs it again. Two services on one real SQLite file
// stand for two replicas; an injected clock; the probe is a promise the test resolves.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ProbeReport } from '../../src/commands/probe.ts';
import { retookWords, runningWords } from '../../src/incident/lease-words.ts';
import { IncidentService } from '../../src/incident/service.ts';
import type { Actor } from '../../src/incident/types.ts';
import { Fleet } from '../../src/inventory/fleet.ts';
import { parseInventory } from '../../src/inventory/load.ts';
import { openSqliteJournal } from '../../src/journal/sqlite.ts';
import { openPostgresJournal } from '../../src/journal/postgres.ts';
import { journalMigrate } from '../../src/cli/journal-admin.ts';
import { pgMissing, startCluster, type PgCluster } from '../helpers/pg-cluster.ts';
import { loadRunbooks } from '../../src/runbooks/load.ts';
import { report } from '../postmortem/incident.ts';

const ANA: Actor = { kind: 'slack', id: 'U0ANA', name: 'ana' };
const BEN: Actor = { kind: 'slack', id: 'U0BEN', name: 'ben' };
const T0 = Date.parse('2026-12-07T02:00:00Z');

let dir: string;
let fleet: Fleet;
before(async () => {
  dir = await mkdtemp(join(tmpdir(), 'seat-lease-'));
  const r = parseInventory(await readFile(new URL('../../examples/fleet.yaml', import.meta.url), 'utf8'));
  assert.ok(r.ok);
  fleet = new Fleet(r.value);
});
after(async () => {
  await cluster?.stop();
  await rm(dir, { recursive: true, force: true });
});

const missing = pgMissing();
let cluster: PgCluster | undefined;
let dbs = 0;
async function pgJournal(): Promise<string> {
  cluster ??= await startCluster();
  const db = `seat_lease${++dbs}`;
  await cluster.createDb(db);
  const io = { stdout: { write: () => true }, stderr: { write: () => true }, env: {} };
  assert.equal(await journalMigrate(['--journal', cluster.url('seat_owner', { db })], io), 0);
  return cluster.url('seat_bot', { db });
}

/** Waits (at most 5 s) for replica A's probe to start: through a database that takes a few round trips. */
async function until(ok: () => boolean): Promise<void> {
  for (let i = 0; i < 500 && !ok(); i++) await new Promise((r) => setTimeout(r, 10));
}

let n = 0;
async function twoReplicas(on: 'sqlite' | 'postgres' = 'sqlite') {
  const clock = { t: T0 };
  const now = () => new Date(clock.t);
  const file = on === 'postgres' ? await pgJournal() : join(dir, `j${++n}.sqlite`);
  const open = (f: string) => (on === 'postgres' ? openPostgresJournal(f, { now }) : Promise.resolve(openSqliteJournal(f, { now })));
  const { runbooks } = await loadRunbooks();
  const probes: { a: ((r: ProbeReport) => void)[]; b: number } = { a: [], b: 0 };
  const a = new IncidentService({ store: await open(file), fleet, runbooks, now, replica: 'fv-bot:101', leaseMs: 120_000, probe: () => new Promise<ProbeReport>((resolve) => probes.a.push(resolve)) });
  const b = new IncidentService({
    store: await open(file),
    fleet,
    runbooks,
    now,
    replica: 'irv-bot:202',
    leaseMs: 120_000,
    probe: async () => {
      probes.b++;
      return report(fleet, [], now().toISOString());
    },
  });
  const opened = await a.open({ site: 'fv', title: 'gateway answers 500', actor: ANA });
  assert.ok(!('error' in opened));
  const id = opened.incident.id;
  assert.ok(!('error' in (await a.pin(id, 'gateway-down', ANA))));
  const step = (await a.view(id))!.steps[0]!.spec.id;
  return { a, b, clock, id, step, probes, close: async () => Promise.all([a.deps.store.close(), b.deps.store.close()]) };
}

for (const on of ['sqlite', 'postgres'] as const) {
test(`${on}: a probe step running on one replica: Done on the other is told who runs it and where, and records nothing`, { ...(on === 'postgres' && missing ? { skip: missing } : {}) }, async () => {
  const { a, b, id, step, probes, close, clock } = await twoReplicas(on);
  try {
    const first = a.decide({ incident: id, step, decision: 'done', actor: ANA });
    await until(() => probes.a.length > 0);
    assert.equal(probes.a.length, 1, 'replica A runs the probe');
    const events = (await b.deps.store.events(id)).length;

    const second = await b.decide({ incident: id, step, decision: 'done', actor: BEN });
    assert.equal(second.ok, false);
    assert.ok(!second.ok && second.kind === 'running', JSON.stringify(second));
    assert.equal(second.lease.replica, 'fv-bot:101');
    assert.deepEqual(second.lease.by, ANA);
    assert.match(runningWords(second.lease), /already running: ana pressed Done 2026-12-07T02:00:00.000Z on replica fv-bot:101 \(its lease holds until 2026-12-07T02:02:00.000Z\); nothing was recorded for you/);
    assert.equal(probes.b, 0, 'replica B did not probe');
    assert.equal((await b.deps.store.events(id)).length, events, 'nothing recorded for ben');

    clock.t += 5_000;
    probes.a[0]!(report(fleet, [], new Date(clock.t).toISOString()));
    const r = await first;
    assert.ok(r.ok && !r.retook, 'A records its run');
    assert.equal((await a.deps.store.replicaSide!.takeLease({ incident: id, step, by: BEN, replica: 'irv-bot:202', at: new Date(clock.t).toISOString(), until: new Date(clock.t + 1000).toISOString() })).ok, true, 'the lease was let go once recorded');
    assert.ok((await b.deps.store.verify(id)).ok);
  } finally {
    await close();
  }
});

test(`${on}: a replica that dies mid-step: its lease runs out, the next Done on another replica says so and runs the probe again; the dead run cannot record after`, { ...(on === 'postgres' && missing ? { skip: missing } : {}) }, async () => {
  const { a, b, id, step, probes, close, clock } = await twoReplicas(on);
  try {
    const orphan = a.decide({ incident: id, step, decision: 'done', actor: ANA });
    await until(() => probes.a.length > 0);
    assert.equal(probes.a.length, 1);
    // Inside the lease: still refused.
    clock.t += 119_000;
    const early = await b.decide({ incident: id, step, decision: 'done', actor: BEN });
    assert.ok(!early.ok && early.kind === 'running');
    // Past it: B runs the step again and says whose run did not finish.
    clock.t += 2_000;
    const again = await b.decide({ incident: id, step, decision: 'done', actor: BEN });
    assert.ok(again.ok, JSON.stringify(again));
    assert.equal(probes.b, 1, 'replica B probed');
    assert.equal(again.retook?.replica, 'fv-bot:101');
    assert.match(retookWords(again.retook!), /that ana started 2026-12-07T02:00:00.000Z on replica fv-bot:101 did not finish \(its lease ran out 2026-12-07T02:02:00.000Z\): it ran again/);
    assert.equal(again.event.actor.kind === 'slack' ? again.event.actor.name : '', 'ben');

    // The "dead" replica's probe comes back late: the step is decided, its record is refused.
    probes.a[0]!(report(fleet, [], new Date(clock.t).toISOString()));
    const late = await orphan;
    assert.ok(!late.ok && late.kind === 'conflict', JSON.stringify(late));
    const done = (await a.deps.store.events(id)).filter((e) => e.kind === 'step.done' && e.step === step);
    assert.equal(done.length, 1, 'one decision for the step');
    assert.ok((await a.deps.store.verify(id)).ok);
  } finally {
    await close();
  }
});
}
