// Issue 30: the probe report of the fv-site-dark drill sized for a phone. The real probes run
// against the drill's loopback stand-ins; the channel message must lead with the verdict, fold the
// failures that share a host and a cause into one line, stay within 8 blocks and 3,000
// characters, and leave every row whole to the attached report.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { FV_SITE_DARK } from '../../drills/scenarios/fv-site-dark.ts';
import { startScenario, type RunningDrill } from '../../drills/scenarios/index.ts';
import { runProbe, type ProbeReport, type ProbeRequest } from '../../src/commands/probe.ts';
import { reportText } from '../../src/render/report.ts';
import { renderReport } from '../../src/slack/blocks.ts';
import { shownChars } from '../../src/slack/phone-report.ts';

let drill: RunningDrill;
let report: ProbeReport;
const req: ProbeRequest = { site: 'fv', only: ['aliases', 'gpus', 'power'], timeoutMs: null, paid: false };

before(async () => {
  drill = await startScenario(FV_SITE_DARK, {});
  const env = { ...process.env, SEAT_PROBE_MEMORY: 'off', ...drill.env };
  report = await runProbe(drill.fleet, req, { env, ...drill.probe });
});
after(async () => {
  await drill?.stop();
});

test('fv-site-dark in the channel: verdict first, at most three lines, ≤ 8 blocks and ≤ 3,000 characters', () => {
  const notUp = report.findings.filter((f) => f.status === 'down' || f.status === 'degraded');
  assert.ok(notUp.length >= 20, `the drill has many rows down (${notUp.length})`);
  const r = renderReport(report, req, 'U0ONCALL01');
  assert.ok(r.blocks.length <= 8, `${r.blocks.length} blocks`);
  assert.ok(shownChars(r.blocks) <= 3000, `${shownChars(r.blocks)} characters`);
  assert.ok(r.attach, 'the full report goes in the thread');
  const sections = r.blocks.filter((b) => b.type === 'section').map((b) => (b as { text: { text: string } }).text.text);
  assert.match(sections[0]!, /^:rotating_light: \*DOWN\* \*fv\*: site fv dark/, 'the verdict first');
  const lines = sections[1]!.split('\n');
  assert.ok(lines.length <= 3, lines.join('\n'));
  // Every failure on fv-ml1 (aliases routed to it, its seats, containers, GPUs) is one line, said once.
  const ml1 = lines.filter((l) => l.includes('fv-ml1'));
  assert.equal(ml1.length, 1, lines.join('\n'));
  assert.match(ml1[0]!, /^• \*fv-ml1\*: 19 aliases, 8 seats, 8 containers, 4 GPUs, the host down — same cause: host fv-ml1 does not answer/);
  assert.ok(sections.some((s) => /Next:\* start runbook \*site-dark\*/.test(s)));
});

test('the attached report holds every row and command line whole', () => {
  const text = reportText(report, { all: true, scope: req });
  for (const f of report.findings) assert.ok(text.includes(f.target), f.target);
  assert.doesNotMatch(text, /--format=csv,no…/);
});
