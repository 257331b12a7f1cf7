// The report as plain text, from findings made by the probes' own code and from a real GPU probe
// run: the verdict last, up rows folded into counts, paid aliases listed (not "ok"), no-GPU said.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { clean, firstLine } from '../../src/probes/edge/text.ts';
import { isListedOnly } from '../../src/render/marks.ts';
import { countLine, reportText } from '../../src/render/report.ts';
import { findingLine } from '../../src/render/rows.ts';
import { exampleFleet, gatewayKey } from '../helpers/findings.ts';
import { driverFailureReport, fvReport, reportOf } from './reports.ts';

const fleet = await exampleFleet();
const sectionOf = (text: string, title: string): string => text.split('\n\n').find((s) => s.startsWith(`${title}:`)) ?? '';

test('the last lines are the verdict, what to run next and where the details are; they fit one screen', () => {
  const report = fvReport(fleet, { down: ['qwen3-embed'], underFloor: true });
  assert.ok(report.verdict.runbook, 'the diagnosis proposes a runbook here');
  const lines = reportText(report).split('\n');
  const verdictAt = lines.findIndex((l) => l.startsWith(`${report.verdict.status.toUpperCase()} fv: ${report.verdict.headline}`));
  assert.ok(verdictAt > 0, lines.join('\n'));
  const lastRow = lines.findLastIndex((l) => /^ {2}(ok {2}|DOWN|WARN|\?\? {2}|list) /.test(l));
  assert.ok(lastRow < verdictAt, 'every row comes before the verdict');
  assert.match(lines.at(-2)!, new RegExp(`^next: {4}seat runbook start ${report.verdict.runbook} --site fv — `));
  assert.equal(lines.at(-1), 'details: seat probe fv --all for every row (41 up, folded above) · seat probe fv --json for the facts');
  assert.ok(lines.length - verdictAt <= 20, `the verdict block is ${lines.length - verdictAt} lines`);
});

test('rows that are up fold into a count per section; --all shows every row and folds nothing', () => {
  const report = fvReport(fleet, { down: ['qwen3-embed'], underFloor: true });
  const folded = reportText(report);
  const paid = report.findings.filter((f) => f.data.kind === 'alias' && f.data.paid).length;
  const exercisedUp = report.findings.filter((f) => f.data.kind === 'alias' && !f.data.paid && f.status === 'up').length;
  assert.match(sectionOf(folded, 'Gateway and aliases'), new RegExp(`^ {2}2 gateway keys ok · ${exercisedUp} aliases ok · ${paid} listed \\(paid, not called\\)$`, 'm'));
  assert.match(sectionOf(folded, 'GPU memory'), /^ {2}3 GPUs ok$/m);
  assert.match(sectionOf(folded, 'Power and out-of-band'), /^ {2}5 addresses ok$/m);
  assert.match(sectionOf(folded, 'Backend seats (direct)'), /^ {2}2 seats ok$/m);
  for (const f of report.findings.filter((x) => x.status !== 'up')) assert.ok(folded.includes(findingLine(f)), `${f.target} is shown`);
  assert.ok(!folded.includes(' gen-fast '), 'an up alias is only counted');

  const all = reportText(report, { all: true });
  for (const f of report.findings) assert.ok(all.includes(`  ${findingLine(f)}`), `${f.target} is a row with --all`);
  assert.doesNotMatch(all, / ok · | aliases ok| GPUs ok/);
  assert.match(all.split('\n').at(-1)!, /^details: seat probe fv --json for the facts$/);
});

test('a paid alias only listed reads "list … listed, not called", never "ok"; it folds as listed', () => {
  const report = fvReport(fleet);
  const listed = report.findings.filter(isListedOnly);
  assert.deepEqual(listed.map((f) => f.target).sort(), [...fleet.aliases.values()].filter((a) => a.paid).map((a) => a.name).sort());
  for (const f of listed) {
    assert.ok(f.data.kind === 'alias' && !f.data.exercised && f.status === 'up');
    assert.match(findingLine(f), new RegExp(`^list alias {4}${f.target} +listed, not called \\(--paid to exercise\\)$`));
  }
  const all = reportText(report, { all: true });
  assert.doesNotMatch(all, /^ {2}ok {3}alias {4}paid-/m);
  assert.match(reportText(report), new RegExp(` · ${listed.length} listed \\(paid, not called\\)$`, 'm'));
});

test('a real GPU probe that measured no card says "no GPU measured" and why, and nothing about a floor', async () => {
  const report = await driverFailureReport();
  assert.equal(report.summary.gpus.measured, 0);
  const gpu = sectionOf(reportText(report), 'GPU memory');
  const why = clean(firstLine(report.findings[0]!.detail));
  assert.match(gpu, new RegExp(`^ {2}no GPU measured: fv-ml1: ${why.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}$`, 'm'));
  assert.doesNotMatch(gpu, /floor/);
  assert.equal(gpu.split('\n').filter((l) => l.includes('fv-ml1 GPU')).length, 2, 'each card still has its row');
});

test('what to run next: nothing when all is up; probe again when something is not up and no runbook fits', () => {
  const up = fvReport(fleet);
  assert.equal(up.verdict.status, 'ok');
  assert.match(reportText(up), /^next: {4}nothing: every check is up$/m);
  const unset = reportOf(fleet, [...fvReport(fleet).findings.filter((f) => f.subject.kind !== 'gateway'), gatewayKey(fleet, 'admin', 'ok'), gatewayKey(fleet, 'shared', 'unset')]);
  assert.notEqual(unset.verdict.status, 'ok');
  assert.equal(unset.verdict.runbook, null);
  assert.match(reportText(unset, { scope: { only: ['aliases'] } }), /^next: {4}no runbook fits: deal with the rows not up, then probe again \(seat probe fv --only aliases\)$/m);
});

test('the count line says what was measured and how long', () => {
  const text = reportText(fvReport(fleet, { underFloor: true }));
  assert.match(text, /^43 findings: 42 up, 0 down, 1 degraded, 0 unknown — measured in 1,234 ms: 2 gateway keys, 30 aliases, 2 seats, 4 GPUs, 5 addresses; started 2026-12-03 \d\d:58:40 local \(per-probe timeout 3,000 ms, deadline 10,000 ms\)$/m);
});

test('piped (rows already streamed): no sections, the verdict last, and the details keep the scope', () => {
  const report = fvReport(fleet, { down: ['qwen3-embed'] });
  const lines = reportText(report, { sections: false, scope: { only: ['aliases', 'gpus'], paid: true } }).split('\n');
  assert.match(lines[0]!, /^\d+ findings: /);
  assert.ok(!lines.some((l) => / alias {4}qwen3-embed/.test(l)), 'no row is repeated');
  assert.equal(lines.at(-1), 'details: every finding is listed above · seat probe fv --only aliases,gpus --paid --json for the facts');
});

test('the count line says what start-up took of the timeout, and says so differently when it took over half', () => {
  const asked = countLine(fvReport(fleet));
  assert.doesNotMatch(asked, /start-up/, 'a probe that began as it was asked says nothing of a start-up');
  const shell = countLine({ ...fvReport(fleet), startupMs: 246, waitMs: 2754, askedFirst: 3 });
  assert.match(shell, /per-probe timeout 3,000 ms from the command's start: start-up took 246 ms, each target waited at most 2,754 ms; 3 targets that cost the timeout last time asked first/);
  const slow = countLine({ ...fvReport(fleet), startupMs: 1800, waitMs: 1500 });
  assert.match(slow, /start-up took 1,800 ms, over half of it, so each target still waited 1,500 ms \(half the timeout\) and the command took longer/);
  assert.doesNotMatch(slow, /from the command's start/);
});
