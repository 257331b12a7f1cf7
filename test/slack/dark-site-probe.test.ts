// no-poll-dark-site holds for every way of probing in Slack: `/seat probe fv` and Probe again on a
// report of fv, inside the window after an open incident found fv dark at every address, are refused
// with when, who and the override path; nothing is probed and the report message stays as it was.
// `/seat probe all` skips fv and says so. The real Bolt app over signed HTTP, the recording Web API.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { ANA, BEN, startIncidentHarness, type Harness } from '../helpers/slack-incident.ts';
import { DARK_AT, fvAddresses } from '../guardrails/helpers.ts';

let h: Harness;
let clock = Date.parse(DARK_AT) - 60_000;

before(async () => {
  h = await startIncidentHarness({ now: () => clock });
});

after(async () => {
  await h.stop();
});

test('/seat probe fv and Probe again are refused while an open incident holds fv dark; /seat probe all skips fv', async () => {
  // A report of fv with its Probe again button, from before fv went dark.
  await h.command('probe fv --only power', ANA);
  await h.seat.idle();
  const report = [...h.messages().entries()].find(([ts]) => h.buttons(ts).some((b) => b.actionId === 'probe_again'));
  assert.ok(report, 'a report of fv with Probe again');
  const again = h.buttons(report[0]).find((b) => b.actionId === 'probe_again')!;
  const before = JSON.stringify(h.messages().get(report[0]));

  // The incident: site-dark pinned, its blast radius probed by ana, every fv address dark.
  const service = h.seat.incidents!;
  const actor = { kind: 'slack' as const, id: ANA.id, name: ANA.name };
  const opened = await service.open({ site: 'fv', title: 'fv dark', actor });
  assert.ok('incident' in opened);
  const id = opened.incident.id;
  assert.ok(!('error' in (await service.pin(id, 'site-dark', actor))));
  const r = await service.deps.store.append({ incident: id, kind: 'probe.report', actor: { kind: 'probe' }, happenedAt: DARK_AT, step: 'blast-radius', payload: { report: { findings: fvAddresses(DARK_AT, false) } } });
  assert.ok(r.ok);
  await service.deps.store.append({ incident: id, kind: 'step.done', actor, happenedAt: DARK_AT, step: 'blast-radius', payload: { report: r.event.seq } });
  clock = Date.parse(DARK_AT) + 6 * 60_000;

  const calls = h.log.length;
  let mark = h.mark();
  await h.command('probe fv', BEN);
  await h.seat.idle();
  let said = h.said(mark).join(' | ');
  assert.match(said, /refused by no-poll-dark-site: site fv was found dark at every address at 2026-09-13T06:58:40Z \(incident #1, by <@U0ONCALL01>\)/, said);
  assert.match(said, /not re-probed before 2026-09-13T07:13:40Z/);
  assert.match(said, /\/seat override request no-polling no-poll-dark-site &lt;reason&gt; --incident 1/);
  assert.ok(!h.log.slice(calls).some((x) => x.method === 'chat.postMessage'), 'no probe message was posted');

  mark = h.mark();
  await h.click(again, BEN);
  await h.seat.idle();
  said = h.said(mark).join(' | ');
  assert.match(said, /refused by no-poll-dark-site: site fv was found dark/, said);
  assert.equal(JSON.stringify(h.messages().get(report[0])), before, 'the report of fv stays as it was: nothing was probed into it');

  mark = h.mark();
  await h.command('probe all --only power', BEN);
  await h.seat.idle();
  said = h.said(mark).join(' | ');
  assert.match(said, /skipped \(no-poll-dark-site\): fv, dark since 2026-09-13T06:58:40Z \(incident #1, by <@U0ONCALL01>; until 2026-09-13T07:13:40Z\)/, said);
});
