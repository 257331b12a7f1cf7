// Issue 30's "Done when", on the fv-site-dark drill's own power log (seed 002: the GPUs' peak 1,159 W
// against the 900 W UPS): runbook site-dark by two people in the real Slack app over signed HTTP,
// typed and clicked decisions mixed, one override asked by one and approved by the other, a race on
// a form step and on a probe step, a stale click. Counted from the recording Web API: one
// chat.postMessage per step for the life of the incident, the last chat.update of each with no
// live button, the approval on its step, every request closed, the parent checklist equal to the
// journal, and the power figures on the power steps and in the Markdown postmortem. (It replaced
// incident-checklist.test.ts, the same walk on a small 601 W log; the battery bank is no-surge-outlets's.)
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { fvPowerLog } from '../../drills/scenarios/fv-site-dark.ts';
import type { JournalEvent } from '../../src/incident/types.ts';
import { ANA, BEN, WALK_INPUTS, chosen, radio, startIncidentHarness, typed, uploaded, type Button, type Harness, type Person } from '../helpers/slack-incident.ts';

const POWER_LOG = Buffer.from(fvPowerLog());

let h: Harness;

before(async () => {
  h = await startIncidentHarness();
});

after(async () => {
  await h.stop();
});

const escTitle = (t: string): string => t.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
const reEsc = (s: string): string => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

test('fv-site-dark by two people in Slack: one posted message per step, no live button once decided, the approval on its step, requests closed, the checklist equals the journal, the power figures shown and in the postmortem', { timeout: 120_000 }, async () => {
  const service = h.seat.incidents!;
  await h.command('incident open fv FV dark: UPS tripped under two loaded cards', ANA);
  const id = (await service.deps.store.newestOpen())!.id;
  await h.command(`runbook start site-dark ${id}`, BEN);
  const thread = (await service.deps.store.incident(id))!.slack!.thread;
  const fileUrl = h.files.add('F0POWERLOG', POWER_LOG);
  h.slack.answer('files.info', { ok: true, file: { id: 'F0POWERLOG', name: 'power.log', size: POWER_LOG.length, mimetype: 'text/plain', url_private_download: fileUrl } });

  const view = () => h.viewNow(id);
  const titleOf = (step: string): string => view().steps.find((s) => s.spec.id === step)!.spec.title;
  const messagesOf = (step: string) => h.thread(thread).filter((m) => new RegExp(`Step \\d+ of \\d+ · ${reEsc(escTitle(titleOf(step)))}\\*`).test(JSON.stringify(m.blocks)));
  const only = (step: string) => {
    const ms = messagesOf(step);
    assert.equal(ms.length, 1, `${step}: exactly one message (${ms.length})`);
    return ms[0]!;
  };
  const button = (ts: string, action: string): Button => {
    const b = h.buttons(ts).find((x) => x.actionId === action);
    assert.ok(b, `${action} on ${ts}: ${h.buttons(ts).map((x) => x.actionId).join(', ')}`);
    return b;
  };
  const current = () => view().steps.find((s) => s.state.state === 'pending' || s.state.state === 'blocked')!;
  const events = (kind: string, step?: string): JournalEvent[] => h.journalEvents(id).filter((e) => e.kind === kind && (step === undefined || e.step === step));
  const requests = () => h.thread(thread).filter((m) => /^Override request #/.test(m.text));

  // The parent is the checklist from the start.
  const parent = () => JSON.stringify(h.messages().get(thread)!.blocks);
  assert.match(parent(), /:arrow_forward: 1\. [^—]+ — \*current\*/);
  assert.doesNotMatch(h.messages().get(thread)!.text, /at fv: fv:/);
  const first = current().spec.id;
  assert.notEqual(first, 'ups-rating');

  // ana types a decision on a later step: refused (the power log is not in), told to her, no early copy of it.
  let mark = h.mark();
  await h.command('step done ups-rating --load-w 900', ANA);
  assert.equal(events('step.blocked', 'ups-rating').length, 1);
  assert.equal(messagesOf('ups-rating').length, 0, 'no early copy of ups-rating');
  assert.match(h.said(mark).join('\n'), /step `ups-rating` refused by \*power-log-first\*/);
  assert.match(parent(), /:no_entry: \d\. Check the UPS rating[^\n]* — \*refused\* for <@U0ONCALL01>/);
  // ben asks for an override of it (typed): a request that must close when the step is decided.
  await h.command('override request ups-rating power-log-first the vendor quote is due today', BEN);
  const dangling = requests().at(-1)!;
  const danglingApprove = button(dangling.ts, 'seat_override_approve');
  assert.match(parent(), /:hourglass: \d\. Check the UPS rating[^\n]* — \*waiting for approval\* asked by <@U0ONCALL02>/);
  // ana skips a later step by typing: its one message is a static line; the current step is not re-posted.
  await h.command('step skip seat-reachable checked from another host by hand', ANA);
  assert.equal(h.buttons(only('seat-reachable').ts).length, 0);
  only(first);

  const figures = new Set<string>();
  let stale: Button | undefined;
  let staleBy: Person | undefined;
  for (let turn = 0; turn < 30; turn++) {
    const cur = current();
    if (!cur) break;
    const step = cur.spec.id;
    const msg = only(step);
    const who = turn % 2 === 0 ? ANA : BEN;
    const other = who === ANA ? BEN : ANA;
    const opened = () => h.slack.calls.filter((c) => c.method === 'views.open').length;
    const answer = (modal: ReturnType<Harness['lastView']>, extra: Record<string, Record<string, unknown>> = {}) => {
      const values: Record<string, Record<string, unknown>> = { ...(cur.spec.action ? (WALK_INPUTS[cur.spec.action] ?? {}) : {}), ...extra };
      const ids = new Set(modal.blocks.map((b) => b.block_id));
      if (ids.has('ev_file')) values.ev_file = uploaded('F0POWERLOG', 'power.log');
      if (ids.has('ev_yesno')) values.ev_yesno = radio('yes');
      return values;
    };

    if (cur.spec.kind === 'probe' && !cur.spec.evidence && !stale) {
      // A race on a probe step: both press Done at once; one probe runs, the loser is told who runs it.
      const done = button(msg.ts, 'seat_step_done');
      mark = h.mark();
      await Promise.all([h.click(done, who), h.click(done, other)]);
      assert.equal(events('step.done', step).length, 1);
      assert.equal(events('probe.report', step).length, 1, 'one probe');
      assert.match(h.said(mark).join('\n'), /already running: <@U0ONCALL0[12]> pressed Done/);
      stale = done;
      staleBy = other;
    } else if (step === 'recover-power-log') {
      // A race on a form step: both open the form, both submit; the second is told who was first.
      await h.click(button(msg.ts, 'seat_step_done'), who);
      const a = h.lastView();
      await h.click(button(msg.ts, 'seat_step_done'), other);
      const b = h.lastView();
      assert.equal(await h.submit(a, answer(a), who), null);
      mark = h.mark();
      assert.equal(await h.submit(b, answer(b), other), null);
      assert.equal(events('step.done', step).length, 1);
      assert.match(h.said(mark).join('\n'), new RegExp(`already done by <@${who.id}>`));
    } else if (step === 'ups-rating' || step === 'power-plan') {
      // The power log's figures where the decision is made; the load pre-filled from the log.
      const shown = JSON.stringify(msg.blocks);
      assert.match(shown, /power log:\* peak \*1,159 W\* at 2026\/09\/13 06:58:18\.421 · last window mean 1,0\d\d W/);
      assert.match(shown, /UPS rating 900 W \/ 1,500 VA — the peak is \*259 W over\* the rating/);
      figures.add(step);
      // ana's early 900 W, typed before the log was in, is now refused by the log's own figure, both shown.
      if (step === 'ups-rating') assert.match(shown, /Refused by power-log-first:\* step ups-rating with 900 W typed: below the 1,159 W the power log measured/);
      if (step === 'power-plan') {
        // Typed, on the current step: its one message is updated.
        await h.command('step done power-plan --bank bypass --load-w 1160', who);
      } else {
        await h.click(button(msg.ts, 'seat_step_done'), who);
        const modal = h.lastView() as unknown as { blocks: { block_id?: string; element?: { initial_value?: string } }[] };
        assert.equal(modal.blocks.find((x) => x.block_id === 'in_loadW')?.element?.initial_value, '1160', 'the load pre-filled from the log (its 1,159.18 W peak, rounded up)');
        // A typed load under the measured peak is refused with both figures, and leaves one line on the step.
        assert.equal(await h.submit(h.lastView(), { in_loadW: typed('1150') }, who), null);
        assert.match(JSON.stringify(h.messages().get(msg.ts)!.blocks), /Refused by power-log-first:\* step ups-rating with 1,150 W typed: below the 1,159 W the power log measured/, 'on the step, both figures');
        assert.equal(view().steps.find((x) => x.spec.id === step)!.state.state === 'done', false);
        await h.click(button(only(step).ts, 'seat_step_done'), who);
        assert.equal(await h.submit(h.lastView(), { in_loadW: typed('1160') }, who), null);
      }
    } else if (step === 'recreate-containers') {
      // The override: ana's restart is refused, she asks, ben approves; the step shows the approval.
      await h.click(button(msg.ts, 'seat_step_done'), ANA);
      assert.equal(await h.submit(h.lastView(), { in_method: chosen('restart') }, ANA), null);
      assert.equal(events('step.blocked', step).length, 1);
      await h.click(button(msg.ts, 'seat_override_ask'), ANA);
      assert.equal(await h.submit(h.lastView(), { reason: typed('the compose folder is on the dark host; restart now, recreate at 09:00') }, ANA), null);
      const req = requests().at(-1)!;
      await h.click(button(req.ts, 'seat_override_approve'), BEN);
      const shown = JSON.stringify(h.messages().get(msg.ts)!.blocks);
      assert.match(shown, /override of \*recreate-not-restart\* approved by <@U0ONCALL02> until <!date\^\d+[^>]*> — <@U0ONCALL01>[^—]* may press \*Done\*/);
      assert.ok(!h.buttons(msg.ts).some((x) => x.actionId === 'seat_override_ask'), 'no Ask for override while the approval stands');
      assert.match(parent(), /:unlock: \d\. [^\n]* — \*override approved\* by <@U0ONCALL02>/);
      mark = h.mark();
      await h.command('override request recreate-containers recreate-not-restart once more', ANA);
      assert.match(h.said(mark).join('\n'), /already approved by ben/);
      assert.equal(events('override.requested', step).length, 1, 'asking again is refused');
      // ben, the approver, presses Done: told why it is refused.
      await h.click(button(msg.ts, 'seat_step_done'), BEN);
      mark = h.mark();
      await h.submit(h.lastView(), { in_method: chosen('restart') }, BEN);
      assert.match(h.said(mark).join('\n'), /you approved override #\d+ of \*recreate-not-restart\*[^\n]*<@U0ONCALL01>[^\n]* may press \*Done\*/);
      // ana presses Done: the form holds the approved action, and it goes through.
      await h.click(button(msg.ts, 'seat_step_done'), ANA);
      const form = h.lastView() as unknown as { blocks: { block_id?: string; element?: { initial_option?: { value?: string } } }[] };
      assert.equal(form.blocks.find((x) => x.block_id === 'in_method')?.element?.initial_option?.value, 'restart');
      assert.equal(await h.submit(h.lastView(), { in_method: chosen('restart') }, ANA), null);
    } else {
      const before = opened();
      await h.click(button(msg.ts, 'seat_step_done'), who);
      if (opened() > before) assert.equal(await h.submit(h.lastView(), answer(h.lastView()), who), null);
    }
    const s = view().steps.find((x) => x.spec.id === step)!;
    assert.equal(s.state.state, 'done', `${step}: ${JSON.stringify(s.state)} ${h.said().slice(-2).join(' | ')}`);
    assert.equal(h.buttons(only(step).ts).length, 0, `${step}: no live button once done`);
  }

  // A stale click on the raced probe step: told once what it is and who decided it.
  assert.ok(stale && staleBy);
  mark = h.mark();
  await h.click(stale, staleBy);
  const told = h.said(mark);
  assert.equal(told.length, 1);
  assert.match(told[0]!, /was already done by <@U0ONCALL0[12]>/);

  await h.command(`incident close ${id} walked through in Slack`, ANA);
  // The dangling request closed (its step decided) and cannot be approved now.
  mark = h.mark();
  await h.click(danglingApprove, ANA);
  assert.match(h.said(mark).join('\n'), /is closed \(its step was decided/);
  assert.equal(h.journalEvents(id).filter((e) => e.kind === 'override.approved').length, 1);

  // Exactly one message per step, none with a live button; every request closed or used.
  const v = view();
  for (const s of v.steps) assert.equal(h.buttons(only(s.spec.id).ts).length, 0, s.spec.id);
  const reqs = requests();
  assert.equal(reqs.length, 2);
  for (const r of reqs) assert.equal(h.buttons(r.ts).length, 0, `request ${r.text}: no button`);
  assert.match(JSON.stringify(h.messages().get(dangling.ts)!.blocks), /:lock: \*closed:\* the step was decided by <@U0ONCALL0[12]>/);

  // The parent checklist equals the journal's state: each step's last decision, its kind and who.
  const lines = JSON.stringify(h.messages().get(thread)!.blocks);
  v.steps.forEach((s, i) => {
    const last = h.journalEvents(id).filter((e) => e.step === s.spec.id && (e.kind === 'step.done' || e.kind === 'step.skipped')).at(-1)!;
    const word = last.kind === 'step.done' ? 'done' : 'skipped';
    assert.match(lines, new RegExp(`${i + 1}\\. ${reEsc(escTitle(s.spec.title))} — \\*${word}\\* by <@${(last.actor as { id: string }).id}>`), s.spec.id);
  });
  assert.match(lines, /backup|method `restart`/);
  assert.match(lines, /bank `bypass` · load 1,160 W/);
  assert.deepEqual([...figures].sort(), ['power-plan', 'ups-rating'], 'the figures were on both power steps');
  assert.ok((await service.deps.store.verify(id)).ok);

  // Counted from the Web API itself: each step's header posted exactly once in the thread, and the
  // last chat.update of that message (what Slack shows now; the post itself if never updated) has no button left.
  const posts = h.log.filter((c) => c.method === 'chat.postMessage' && c.answer.ok === true && String(c.args.thread_ts ?? '') === thread);
  for (const s of v.steps) {
    const header = new RegExp(`Step \\d+ of \\d+ · ${reEsc(escTitle(s.spec.title))}\\*`);
    const mine = posts.filter((c) => header.test(JSON.stringify(c.args.blocks ?? [])));
    assert.equal(mine.length, 1, `${s.spec.id}: chat.postMessage ${mine.length} times`);
    const ts = String(mine[0]!.answer.ts);
    const last = h.log.filter((c) => c.method === 'chat.update' && c.answer.ok === true && String(c.args.ts) === ts).at(-1);
    // A step decided before its turn (seat-reachable, skipped by typing) was posted already decided.
    const shownNow = last ?? mine[0]!;
    const live = ((shownNow.args.blocks ?? []) as { type: string; elements?: { type: string }[] }[]).filter((b) => b.type === 'actions' && (b.elements ?? []).some((e) => e.type === 'button'));
    assert.equal(live.length, 0, `${s.spec.id}: no button in its last update`);
  }
  // The override's approval stands on the step it unlocked, in its last state too.
  assert.match(JSON.stringify(only('recreate-containers').blocks), /past a guardrail by override \(journal #\d+, approved by <@U0ONCALL02>\)/);

  // The Markdown postmortem carries the power log's figures against the rating.
  const uploads = h.slack.uploads.length;
  await h.command(`export ${id}`, BEN);
  const doc = h.slack.uploads.slice(uploads).join('');
  assert.match(doc, /Postmortem/);
  assert.match(doc, /## Power\n\n- Measured peak 1,159 W at 2026\/09\/13 06:58:18\.421/);
  assert.match(doc, /Against the UPS rating 900 W \/ 1,500 VA — the peak is \*\*259 W over\*\* the rating/);
});
