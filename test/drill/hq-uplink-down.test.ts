// The hq-uplink-down drill: two real `seat probe fv --json --only power` runs — one from hq, a whole
// `seat` process inside the network namespace the drill makes for it (fv's addresses have no route
// there), one from irv, in this process beside the drill's stand-ins — merged. From hq alone fv looks
// dark; merged, the verdict must not say dark: "unreachable from hq only", no runbook proposed.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { HQ_UPLINK_DOWN } from '../../drills/scenarios/hq-uplink-down.ts';
import { startScenario, type RunningDrill } from '../../drills/scenarios/index.ts';
import { probeFromVantage } from '../../drills/scenarios/vantage-probe.ts';
import { decide, summarize } from '../../src/diagnose/verdict.ts';
import { mergeVantages } from '../../src/diagnose/vantage.ts';
import { probeHere } from '../helpers/drill-probe.ts';

let drill: RunningDrill;
before(async () => {
  drill = await startScenario(HQ_UPLINK_DOWN);
});
after(async () => {
  await drill?.stop();
});

const ARGS = ['probe', 'fv', '--json', '--only', 'power'];

test('hq-uplink-down: fv dark from hq alone, but merged with irv’s report the verdict is "unreachable from hq only", never dark, no runbook', { timeout: 180_000 }, async (t) => {
  const hqView = drill.vantages.find((v) => v.name === 'hq');
  assert.ok(hqView, 'the drill plays the hq vantage');
  assert.ok(drill.standIns.some((l) => l.startsWith('vantage hq: ')), drill.standIns.join('\n'));
  // hq loses fv while the console reaches it: no stand-in can play that beside the console.
  assert.equal(hqView.standIn, false);
  if (!hqView.exec) {
    t.skip(hqView.how);
    return;
  }
  const fromHq = await probeFromVantage(drill, 'hq', ARGS);
  assert.ok(fromHq.ok, fromHq.ok ? '' : fromHq.error);
  const hq = fromHq.report;
  const irv = await probeHere(drill, ARGS, { SEAT_VANTAGE: 'irv' });
  assert.ok(hq.findings.every((f) => f.provenance.vantage === 'hq'));
  assert.ok(irv.findings.every((f) => f.provenance.vantage === 'irv'));
  // From hq alone, fv looks dark: what today's one-vantage rule says, and says so.
  assert.equal(hq.verdict.proposal?.rule, 'site-dark');
  assert.match(hq.verdict.headline, /\(from one vantage point: hq\)/);
  // From irv, fv answers.
  assert.ok(irv.findings.filter((f) => f.subject.kind === 'address' && f.subject.site === 'fv').every((f) => f.status === 'up'), 'irv reaches every fv address');

  const m = mergeVantages([hq, irv]);
  assert.ok(m.ok, m.ok ? '' : m.error);
  const v = decide(m.report.sites, summarize(drill.fleet, m.report.findings, m.report.sites));
  assert.equal(v.proposal?.rule, 'unreachable-from');
  assert.equal(v.runbook, null, 'no runbook proposed for the site');
  assert.match(v.headline, /^fv unreachable from hq only \(irv reaches it\): check hq's own path \(its firewall, its uplink\)/);
  for (const line of v.lines) assert.doesNotMatch(line, /\bdark:|do not poll/, line);
  assert.notEqual(v.status, 'down');
});
