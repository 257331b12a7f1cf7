// Two replicas of the bot on one journal, both answering signed Slack requests (the real Bolt app,
// each with its own store and /slack/events; one recording Web API): a walkthrough whose clicks and
// commands alternate between them records what one bot would, with one message per step; the same
// click delivered to both records once; two people on two replicas deciding one step: one wins and
// the other is told who. Run on SQLite (replicas.test.ts) and on PostgreSQL (replicas-pg.test.ts).
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { signedPost } from '../helpers/slack.ts';
import { ANA, BEN, SECRET, buttonBody, radio, startIncidentHarness, submissionBody, type Button, type Harness } from '../helpers/slack-incident.ts';

/** The replica tests on one journal: the temporary SQLite file, or a PostgreSQL URL `journal()` gives. */
export function replicaTests(on: string, journal?: () => Promise<string>, skip?: string): void {
  let h: Harness;
  before(async () => {
    if (skip) return;
    h = await startIncidentHarness({ replicas: 2, ...(journal ? { journal: await journal() } : {}) });
  });
  after(async () => {
    await h?.stop();
  });

  const store = (i = 0) => h.seats[i]!.incidents!.deps.store;

  async function start(): Promise<{ id: number; thread: string }> {
    h.on(0);
    await h.command('incident open fv gateway answers 500 everywhere');
    const id = (await store(1).newestOpen())!.id;
    h.on(1);
    await h.command(`runbook start gateway-down ${id}`);
    return { id, thread: (await store(0).incident(id))!.slack!.thread };
  }

  function stepTs(thread: string, step: string): string {
    const m = h.thread(thread).filter((x) => h.buttons(x.ts).some((b) => b.actionId === 'seat_step_done' && (JSON.parse(b.value) as { step: string }).step === step)).at(-1);
    assert.ok(m, `no message with buttons for ${step}`);
    return m.ts;
  }

  function done(thread: string, step: string): Button {
    const b = h.buttons(stepTs(thread, step)).find((x) => x.actionId === 'seat_step_done');
    assert.ok(b);
    return b;
  }

  /** The thread as it stands: each step's title on one message, however many replicas raced to post it. */
  const oneMessagePerStep = (thread: string): void => {
    const titles = h.thread(thread).flatMap((m) => [...JSON.stringify(m.blocks).matchAll(/Step \d+ of \d+ · ([^*]+)\*/g)].map((x) => x[1]!));
    assert.deepEqual(titles.filter((t, i) => titles.indexOf(t) !== i), [], `one message per step in the thread: ${titles.join(' | ')}`);
  };

  const stepMessages = (thread: string, title: RegExp): number => h.log.filter((c) => c.method === 'chat.postMessage' && c.args.thread_ts === thread && title.test(JSON.stringify(c.args.blocks))).length;

  test(`${on}: a walkthrough alternating between two replicas: one message per step, the journal as one bot would write it`, { timeout: 120_000, ...(skip ? { skip } : {}) }, async () => {
    const { id, thread } = await start();
    h.on(0);
    await h.click(done(thread, 'probe-gateway'), ANA);
    h.on(1);
    await h.click(done(thread, 'gateway-local'), BEN);
    h.on(0);
    assert.equal(await h.submit(h.lastView(), { ev_yesno: radio('yes') }, BEN), null, 'a modal opened by one replica is submitted to the other');
    h.on(1);
    await h.click(done(thread, 'gateway-logs'), ANA);
    h.on(0);
    await h.command(`step skip gateway-up --incident ${id} restarted by hand on the host`, BEN);
    h.on(1);
    await h.click(done(thread, 'probe-again'), ANA);

    const events = await store(1).events(id);
    const decided = events.filter((e) => e.kind === 'step.done' || e.kind === 'step.skipped').map((e) => `${e.step} ${e.kind}`);
    assert.deepEqual(decided, ['probe-gateway step.done', 'gateway-local step.done', 'gateway-logs step.done', 'gateway-up step.skipped', 'probe-again step.done']);
    // Each step's message by its title, whatever state it was posted in (a step typed on the replica
    // that never saw its message must update that one, not post another).
    const titles = (await store(0).events(id)).find((e) => e.kind === 'runbook.pinned')!.payload.text as string;
    const heads = [...titles.matchAll(/^## (.+)$/gm)].map((m) => m[1]!.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/[.*+?^${}()|[\]\\]/g, '\\$&'));
    assert.equal(heads.length, 5);
    for (const t of heads) assert.equal(stepMessages(thread, new RegExp(`Step \\d+ of \\d+ · ${t}\\*`)), 1, `${t}: one message, whichever replica posted it`);
    for (const m of h.thread(thread)) assert.equal(h.buttons(m.ts).filter((b) => b.actionId === 'seat_step_done').length, 0, 'no live Done left once every step is decided');
    assert.ok((await store(0).verify(id)).ok);
  });

  test(`${on}: the same click delivered to both replicas (a Slack retry landing on the other) records once`, { ...(skip ? { skip } : {}) }, async () => {
    const { id, thread } = await start();
    h.on(0);
    await h.click(done(thread, 'probe-gateway'), ANA);
    // gateway-local opens a modal; a submission carries the view id Slack gives it, the dedupe key.
    await h.click(done(thread, 'gateway-local'), ANA);
    const view = h.lastView();
    const body = submissionBody({ view, values: { ev_yesno: radio('yes') }, user: ANA, viewId: 'V0SAME' });
    const answers = await Promise.all(h.urls.map((u) => signedPost(u, body, { secret: SECRET })));
    for (const x of answers) assert.equal(x.status, 200);
    await Promise.all(h.seats.map((s) => s.idle()));
    const recorded = (await store(0).events(id)).filter((e) => e.kind === 'step.done' && e.step === 'gateway-local');
    assert.equal(recorded.length, 1, 'one decision across both replicas');
    // Both replicas redrew the thread at once, both wanting the next step's first message.
    oneMessagePerStep(thread);
    assert.ok((await store(1).verify(id)).ok);
  });

  test(`${on}: two people deciding one step on two replicas: one wins, the other is told who`, { ...(skip ? { skip } : {}) }, async () => {
    const { id, thread } = await start();
    h.on(0);
    await h.click(done(thread, 'probe-gateway'), ANA);
    await h.click(done(thread, 'gateway-local'), ANA);
    assert.equal(await h.submit(h.lastView(), { ev_yesno: radio('yes') }, ANA), null);
    const b = done(thread, 'gateway-logs');
    const said = h.mark();
    const click = (i: number, who: typeof ANA) => signedPost(h.urls[i]!, buttonBody({ actionId: b.actionId, value: b.value, ts: b.ts, user: who, responseUrl: `${h.slack.base}/response/r${i}` }), { secret: SECRET });
    await Promise.all([click(0, ANA), click(1, BEN)]);
    await Promise.all(h.seats.map((s) => s.idle()));
    const decisions = (await store(0).events(id)).filter((e) => e.kind === 'step.done' && e.step === 'gateway-logs');
    assert.equal(decisions.length, 1, 'one decision');
    const winner = decisions[0]!.actor as { id: string };
    assert.match(h.said(said).join('\n'), new RegExp(`step \`gateway-logs\` was already done by <@${winner.id}>`), 'the loser is told who');
    oneMessagePerStep(thread);
    // A copy of the step's message that no replica kept (its replica died between posting and keeping
    // it): its Done, pressed now, tells who decided and takes the copy back.
    const copy = '1767225600.999001';
    const deletes = h.log.filter((c) => c.method === 'chat.delete').length;
    await signedPost(h.urls[1]!, buttonBody({ actionId: b.actionId, value: b.value, ts: copy, user: BEN, responseUrl: `${h.slack.base}/response/copy` }), { secret: SECRET });
    await Promise.all(h.seats.map((s) => s.idle()));
    const gone = h.log.filter((c) => c.method === 'chat.delete').slice(deletes);
    assert.deepEqual(gone.map((c) => c.args.ts), [copy], 'the copy nobody kept is taken back');
    assert.ok((await store(0).replicaSide.messages(id)).every((m) => m.ts !== copy), 'and never kept');
  });

  test(`${on}: a step's message its replica posted but never kept (it died in between): the click on it keeps it in the journal for every replica`, { ...(skip ? { skip } : {}) }, async () => {
    const { id, thread } = await start();
    h.on(0);
    await h.click(done(thread, 'probe-gateway'), ANA);
    await h.click(done(thread, 'gateway-local'), ANA);
    // Replica 0 posts the next step's message and dies before keeping it: its keep never reaches the journal.
    const side = store(0).replicaSide;
    const keep = side.keepMessage;
    side.keepMessage = async () => undefined;
    try {
      assert.equal(await h.submit(h.lastView(), { ev_yesno: radio('yes') }, ANA), null);
    } finally {
      side.keepMessage = keep;
    }
    const orphan = stepTs(thread, 'gateway-logs');
    assert.ok((await store(1).replicaSide.messages(id)).every((m) => m.key !== 'step:gateway-logs'), 'nobody kept it');
    // Pressed on replica 1: from then on it is the step's message in the journal, for every replica.
    h.on(1);
    await h.click(done(thread, 'gateway-logs'), BEN);
    const kept = (await store(0).replicaSide.messages(id)).find((m) => m.key === 'step:gateway-logs');
    assert.equal(kept?.ts, orphan, 'the message pressed is the step’s message in the journal');
    // A replica that starts now reads the step's messages from the journal: it updates that one, never posts another.
    h.on(0);
    await h.command(`step skip gateway-up --incident ${id} restarted by hand on the host`, BEN);
    assert.match(JSON.stringify(h.messages().get(orphan)?.blocks), /Step 3 of 5 · Read the gateway.{1,6}s logs\* — done by/, 'the message pressed shows the step done');
    oneMessagePerStep(thread);
    assert.ok((await store(0).verify(id)).ok);
  });
}
