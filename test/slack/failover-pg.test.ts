// Failover under two replicas in Slack: a primary with a synchronous streaming standby, both bots on
// the multi-host URL (target_session_attrs=read-write). The primary dies mid-walkthrough: a decision
// typed in the gap is told as NOT recorded (and is not in the journal); the standby is promoted; the
// replicas follow by themselves and the walkthrough finishes; nothing shown as recorded is lost.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { journalMigrate } from '../../src/cli/journal-admin.ts';
import { pgMissing, startCluster, type PgCluster } from '../helpers/pg-cluster.ts';
import { ANA, BEN, startIncidentHarness, type Button, type Harness } from '../helpers/slack-incident.ts';

const missing = pgMissing();
let cluster: PgCluster | undefined;
let h: Harness | undefined;
const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));

before(async () => {
  if (missing) return;
  cluster = await startCluster();
  const sink = { write: () => true };
  assert.equal(await journalMigrate(['--journal', cluster.url('seat_owner')], { stdout: sink, stderr: sink, env: {} }), 0);
  const standby = await cluster.addStandby();
  h = await startIncidentHarness({ replicas: 2, journal: cluster.url('seat_bot', { nodes: [cluster.primary, standby], params: 'target_session_attrs=read-write&connect_timeout=2' }) });
});
after(async () => {
  await h?.stop();
  await cluster?.stop();
});

function done(thread: string, step: string): Button {
  const m = h!.thread(thread).filter((x) => h!.buttons(x.ts).some((b) => b.actionId === 'seat_step_done' && (JSON.parse(b.value) as { step: string }).step === step)).at(-1);
  assert.ok(m, `no message with buttons for ${step}`);
  return h!.buttons(m.ts).find((b) => b.actionId === 'seat_step_done')!;
}

test('the primary dies mid-walkthrough: the gap is told as not recorded, the replicas follow the promoted standby, nothing shown as recorded is lost', { timeout: 180_000, ...(missing ? { skip: missing } : {}) }, async () => {
  const s = h!;
  const store = (i: number) => s.seats[i]!.incidents!.deps.store;
  s.on(0);
  await s.command('incident open fv gateway answers 500 everywhere');
  const id = (await store(0).newestOpen())!.id;
  s.on(1);
  await s.command(`runbook start gateway-down ${id}`);
  const thread = (await store(1).incident(id))!.slack!.thread;
  s.on(0);
  await s.click(done(thread, 'probe-gateway'), ANA);
  const shown = (await store(0).events(id)).map((e) => e.hash);

  await cluster!.primary.kill();
  s.on(1);
  const mark = s.mark();
  await s.command(`step skip gateway-local --incident ${id} curl on the gateway host answers 500 too`, BEN);
  assert.match(s.said(mark).join('\n'), /nothing was recorded/, 'the decision in the gap is told as not recorded');

  await cluster!.standby!.promote();
  // The replicas follow by themselves: the same decision again, until a replica records it (bounded).
  let recorded = false;
  for (let i = 0; i < 60 && !recorded; i++) {
    const m = s.mark();
    await s.command(`step skip gateway-local --incident ${id} curl on the gateway host answers 500 too`, BEN);
    recorded = !s.said(m).join('\n').includes('nothing was recorded');
    if (!recorded) await pause(250);
  }
  assert.ok(recorded, 'no replica recorded on the promoted standby');
  s.on(0);
  await s.click(done(thread, 'gateway-logs'), ANA);
  s.on(1);
  await s.command(`step skip gateway-up --incident ${id} restarted by hand`, BEN);
  s.on(0);
  await s.click(done(thread, 'probe-again'), ANA);

  const events = await store(1).events(id);
  for (const hash of shown) assert.ok(events.some((e) => e.hash === hash), 'a decision shown as recorded before the failover was lost');
  const decided = events.filter((e) => e.kind === 'step.done' || e.kind === 'step.skipped').map((e) => `${e.step} ${e.kind}`);
  assert.deepEqual(decided, ['probe-gateway step.done', 'gateway-local step.skipped', 'gateway-logs step.done', 'gateway-up step.skipped', 'probe-again step.done']);
  assert.equal(events.filter((e) => e.kind === 'step.skipped' && e.step === 'gateway-local').length, 1, 'the decision told as not recorded is not in the journal twice');
  assert.ok((await store(0).verify(id)).ok);
});
