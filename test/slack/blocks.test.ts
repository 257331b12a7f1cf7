// Block Kit rendering of reports built from the probes' own findings: the verdict and what to do
// first, what is not up listed, the rest folded, and Slack's limits kept without cutting a line.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { types } from '@slack/bolt';
import type { ProbeRequest } from '../../src/commands/probe.ts';
import { Fleet } from '../../src/inventory/fleet.ts';
import { parseInventory } from '../../src/inventory/load.ts';
import { MAX_BLOCKS, MAX_SECTION, renderProgress, renderReport } from '../../src/slack/blocks.ts';
import { alias, exampleFleet, gatewayKey, status } from '../helpers/findings.ts';
import { driverFailureReport, fvReport, reportOf } from '../render/reports.ts';

const req: ProbeRequest = { site: 'fv', only: ['aliases', 'gpus', 'power'], timeoutMs: null, paid: false };
const fleet = await exampleFleet();

function bigFleet(aliasCount: number): Fleet {
  const seats = Array.from({ length: 20 }, (_, i) => `  s${i}: { host: h${i % 4}, gpus: [0], port: ${8000 + i}, container: c${i}, gpuMemoryUtilization: 0.04 }`).join('\n');
  const aliases = Array.from({ length: aliasCount }, (_, i) => `  a${i}: { kind: chat, seats: [s${i % 20}] }`).join('\n');
  const hosts = Array.from({ length: 4 }, (_, i) => `      h${i}: { address: 127.0.0.1, gpus: [{ index: 0 }] }`).join('\n');
  const r = parseInventory(`gateway: { baseUrl: http://127.0.0.1:1, keys: { admin: { env: K } } }\nsites:\n  fv:\n    hosts:\n${hosts}\nseats:\n${seats}\naliases:\n${aliases}\n`);
  if (!r.ok) throw new Error(r.errors.join('\n'));
  return new Fleet(r.value);
}

const sectionTexts = (blocks: types.KnownBlock[]): string[] => blocks.flatMap((b) => (b.type === 'section' && b.text ? [b.text.text] : []));
const all = (blocks: types.KnownBlock[]): string => sectionTexts(blocks).join('\n');

/** A line of ours is whole: emoji closed, code spans and bold closed, every & an entity. */
function assertWhole(text: string): void {
  assert.ok(text.length <= MAX_SECTION, `section of ${text.length}`);
  for (const line of text.split('\n')) {
    assert.equal((line.match(/`/g)?.length ?? 0) % 2, 0, `code span cut: ${line.slice(-80)}`);
    assert.equal((line.match(/\*/g)?.length ?? 0) % 2, 0, `bold cut: ${line.slice(-80)}`);
    assert.doesNotMatch(line, /&(?!amp;|lt;|gt;)/, `entity cut: ${line.slice(-80)}`);
    assert.doesNotMatch(line, /^:[a-z_]*$/, `emoji cut: ${line}`);
    assert.doesNotMatch(line, /:(white|red|large)_[a-z_]*$/, `emoji cut: ${line.slice(-80)}`);
  }
}

test('200 aliases down with long, hostile errors: within 50 blocks, every section ends on a whole line', () => {
  const big = bigFleet(200);
  const error = `litellm.InternalServerError: <b>&amp; ${'x'.repeat(50)} :white_circle guard admin `.repeat(40);
  const findings = [...big.aliases.keys()].map((a, i) => alias(big, a, i % 10 === 0 ? 'ok' : status(500, error)));
  const report = reportOf(big, findings);
  const view = renderReport(report, req);
  assert.ok(view.blocks.length <= MAX_BLOCKS, `${view.blocks.length} blocks`);
  for (const text of sectionTexts(view.blocks)) assertWhole(text);
  for (const text of sectionTexts(view.blocks)) {
    assert.doesNotMatch(text.split('\n').at(-1)!, /^:red_circle: \*a\d+\*/, `a row's measured line stays with it: …${text.slice(-60)}`);
  }
  assert.match(all(view.blocks), /^• \*h\d\*: \d+ aliases down — gateway fault$/m, 'more than a phone takes: folded by the host they route to and the cause');
  assert.ok(view.blocks.length <= 8, `${view.blocks.length} blocks`);
  assert.equal(view.attach, true, 'every row goes in the thread');
  assert.match(all(view.blocks), /full report is attached in the thread/);
  assert.equal(view.blocks.at(-1)?.type, 'actions', 'the Probe again button survives');
  assert.equal(view.text, `DOWN fv: ${report.verdict.headline}`);
});

test('one over-long line is cut with an ellipsis between whole entities, never mid-emoji or mid-mrkdwn', () => {
  const huge = `&<>:white_circle: ${'&'.repeat(5000)} *guard* admin`;
  const report = reportOf(fleet, [alias(fleet, 'gen', status(500, huge))]);
  const view = renderReport(report, req);
  const row = all(view.blocks).split('\n').find((l) => l.includes('*gen*'));
  assert.ok(row, all(view.blocks));
  assertWhole(row);
  assert.ok(row.length < 1000, `row of ${row.length}`);
  assert.match(row, /^:red_circle: \*gen\* HTTP 500 through the gateway: &amp;&lt;&gt;:white_circle: (&amp;)+…/);
});

test('leads with the verdict and the proposed runbook, lists what is not up, folds the rest into counts', () => {
  const report = fvReport(fleet, { down: ['qwen3-embed'], underFloor: true });
  const view = renderReport(report, req, 'U0ONCALL02');
  const texts = sectionTexts(view.blocks);
  // qwen3-embed routes to ana's seat: ana's fault, so fv's own state (a GPU under its floor) leads.
  assert.match(texts[0]!, new RegExp(`^:warning: \\*DEGRADED\\* \\*fv\\*: `));
  const next = texts.findIndex((t) => t.startsWith(':arrow_right: *Next:*'));
  assert.ok(next > 0 && next < texts.findIndex((t) => t.startsWith('*Gateway and aliases*')), 'what to do comes before the lists');
  assert.match(texts[next]!, new RegExp(`start runbook \\*${report.verdict.runbook}\\* — `));
  const text = all(view.blocks);
  const paid = report.findings.filter((f) => f.data.kind === 'alias' && f.data.paid).length;
  assert.match(text, new RegExp(`^\\*Gateway and aliases\\* — 1 down · 2 gateway keys ok · 23 aliases ok · ${paid} listed \\(paid, not called\\)$`, 'm'));
  assert.match(text, /^\*ana-ml2\* \(1 down\)\n:red_circle: \*qwen3-embed\* /m, 'down aliases grouped by where they route');
  assert.match(text, /^\*GPU memory\* — 1 under the 4,096 MiB free floor · 3 GPUs ok$/m);
  assert.match(text, /^\*Power and out-of-band\* — nothing down · 5 addresses ok$/m);
  assert.ok(!text.includes('gen-fast'), 'an up alias is only counted');
  assert.equal(view.attach, true);
  assert.match(text, /:paperclip: Every row \(41 up, folded into counts\) is in the full report attached in the thread\./);
  assert.match(JSON.stringify(view.blocks), /asked by <@U0ONCALL02>/);
  const actions = view.blocks.at(-1);
  assert.ok(actions?.type === 'actions');
  const [start, again] = actions.elements as { type: string; action_id?: string; value?: string; text?: { text: string } }[];
  assert.equal(start?.action_id, 'seat_runbook_start', 'the proposed runbook is offered first');
  assert.equal(start?.text?.text, `Start runbook ${report.verdict.runbook}`);
  assert.deepEqual(JSON.parse(start?.value ?? ''), { runbook: report.verdict.runbook, site: 'fv', title: `fv: ${report.verdict.headline}` });
  assert.equal(again?.action_id, 'probe_again');
  assert.deepEqual(JSON.parse(again?.value ?? ''), req);
});

test('probe text is escaped for mrkdwn; a problem says how it was measured, an inferred one says inferred', () => {
  const report = reportOf(fleet, [alias(fleet, 'gen', status(500, 'boom <b>&</b>')), gatewayKey(fleet, 'shared', 'unset')]);
  const text = all(renderReport(report, req).blocks);
  assert.match(text, /boom &lt;b&gt;&amp;&lt;\/b&gt;/);
  assert.doesNotMatch(text, /<b>/);
  assert.match(text, /\*gen\* [^\n]+\n {8}measured: `POST http:\/\/192\.0\.2\.10:4000\/v1\/chat\/completions/);
  const unset = report.findings.find((f) => f.subject.kind === 'gateway')!;
  assert.ok(text.includes(`\n        ${unset.measuredBy}`), 'the inferred line as the finding renders it');
  assert.ok(!text.includes('measured: `inferred'));
});

test('a GPU under the floor has its bar, used, declared and free MiB; a run that measured no GPU says so, not "0 MiB floor"', async () => {
  const under = all(renderReport(fvReport(fleet, { underFloor: true }), req).blocks);
  assert.match(under, /`fv-ml1 GPU1` `[█│░]{20}` used 97,671 · declared 83,203 · free 216 of 97,887 MiB — \*under the floor\*/);
  const none = await driverFailureReport();
  const text = all(renderReport(none, { ...req, only: ['gpus'] }).blocks);
  assert.match(text, /^\*GPU memory\* — no GPU measured: fv-ml1: /m);
  assert.doesNotMatch(text, /floor/);
});

test('a drill report says DRILL first, in the notification and the message', () => {
  const real = renderReport(fvReport(fleet, { down: ['gen'] }), req);
  assert.doesNotMatch(real.text + all(real.blocks), /DRILL/);
  const report = { ...fvReport(fleet, { down: ['gen'] }), fleet: 'drill', drill: true };
  const drill = renderReport(report, req);
  assert.match(drill.text, /^DRILL DOWN fv: /);
  assert.match(sectionTexts(drill.blocks)[0]!, /^:test_tube: \*DRILL\* — fleet “drill”: every figure in this report comes from loopback stand-ins, not from the real fleet$/);
  assert.equal(drill.blocks.length, real.blocks.length + 1);
});

test('progress shows how far along and what is already down, nothing that is up', () => {
  const down = alias(fleet, 'gen', status(500, 'HTTP 500'));
  const up = alias(fleet, 'coder', 'ok');
  const view = renderProgress('fv', 12, 37, [down, up]);
  assert.equal(view.text, 'probing fv: 12 of 37, 1 down or degraded so far …');
  assert.match(all(view.blocks), /\*gen\* /);
  assert.doesNotMatch(all(view.blocks), /coder/);
});
