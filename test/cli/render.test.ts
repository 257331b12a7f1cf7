// The terminal's report over the shared text, from real probe runs against the drill's stand-ins:
// the last screen holds the verdict, what to run next and where the details are.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { runCli, type CliIo } from '../../src/cli/run.ts';
import { findingLine, renderReport } from '../../src/cli/render.ts';
import type { DrillFleet } from '../../drills/litellm.ts';
import { startCliDrill, type CliDrill } from '../helpers/cli-drill.ts';
import { DRILL_BIN } from '../../drills/drill.ts';
import type { ProbeReport } from '../../src/commands/probe.ts';

let cli: CliDrill;
let drill: DrillFleet;
let inventory: string;

before(async () => {
  cli = await startCliDrill('seatbelt-render-');
  drill = cli.drill;
  inventory = cli.inventory;
});

after(async () => {
  await cli.stop();
});

const ANSI = /\x1b\[[0-9;]*[A-Za-z]/g;

async function seat(args: string[], tty: boolean): Promise<string> {
  let out = '';
  const env = { ...drill.env, PATH: process.env.PATH };
  const io: CliIo = { stdout: { write: (s: string) => (out += s), isTTY: tty }, stderr: { write: () => true }, env, probeDeps: { env, pathPrefix: [DRILL_BIN] } };
  await runCli(['--inventory', inventory, ...args], io);
  return out;
}

test('on a TTY the last screen shows the verdict, what to run next and where the details are', async () => {
  const facts = JSON.parse(await seat(['probe', 'ana', '--only', 'aliases,gpus', '--json'], false)) as ProbeReport;
  assert.ok(facts.verdict.runbook, 'seed 000 proposes a runbook');
  const out = await seat(['probe', 'ana', '--only', 'aliases,gpus'], true);
  // What a 24-row terminal shows at the end: the text after the last progress line, its last 24 lines.
  const lines = out.slice(out.lastIndexOf('\r')).replace(ANSI, '').trimEnd().split('\n');
  const screen = lines.slice(-24);
  assert.ok(screen.some((l) => l === `${facts.verdict.status.toUpperCase()} ana: ${facts.verdict.headline}`), screen.join('\n'));
  assert.equal(screen.at(-2), `next:    seat runbook start ${facts.verdict.runbook} --site ana — ${screen.at(-2)!.split(' — ').slice(1).join(' — ')}`);
  assert.match(screen.at(-1)!, /^details: seat probe ana --only aliases,gpus --all for every row \(\d+ up, folded above\) · seat probe ana --only aliases,gpus --json for the facts$/);
  const upAliases = facts.findings.filter((f) => f.probe === 'alias' && f.status === 'up' && !(f.data.kind === 'alias' && f.data.paid)).length;
  assert.ok(lines.includes(`  2 gateway keys ok · ${upAliases} aliases ok · 6 listed (paid, not called)`), lines.join('\n'));
  assert.ok(!lines.some((l) => /^ {2}ok {3}alias /.test(l)), 'no up alias row');
  assert.ok(out.includes('\x1b['), 'painted on a TTY');
});

test('--all on a TTY: every finding is a row; paid aliases read "list", not "ok"', async () => {
  const facts = JSON.parse(await seat(['probe', 'fv', '--only', 'aliases', '--json'], false)) as ProbeReport;
  const out = (await seat(['probe', 'fv', '--only', 'aliases', '--all'], true)).replace(ANSI, '');
  const report = out.slice(out.lastIndexOf('\r')).trimEnd();
  for (const f of facts.findings) assert.ok(report.includes(` ${f.target} `), `${f.target} has a row`);
  const paid = facts.findings.filter((f) => f.data.kind === 'alias' && f.data.paid);
  assert.ok(paid.length > 0);
  for (const f of paid) assert.match(report, new RegExp(`^ {2}list alias {4}${f.target} +listed, not called \\(--paid to exercise\\)$`, 'm'));
  assert.doesNotMatch(report, / aliases ok/);
  assert.match(report.split('\n').at(-1)!, /^details: seat probe fv --only aliases --json for the facts$/);
});

test('piped: every finding once as it arrives, paid ones as "list"; the verdict and the next step last', async () => {
  const out = await seat(['probe', 'fv', '--only', 'aliases'], false);
  assert.ok(!out.includes('\x1b['));
  assert.equal(out.match(/^\S+ +alias +gen +/gm)?.length, 1, 'each finding once');
  assert.match(out, /^list alias {4}paid-gen +listed, not called \(--paid to exercise\)$/m);
  assert.doesNotMatch(out, /^ok {3}alias {4}paid-/m);
  const lines = out.trimEnd().split('\n');
  assert.match(lines.at(-2)!, /^next: {4}/);
  assert.match(lines.at(-1)!, /^details: every finding is listed above · seat probe fv --only aliases --json for the facts$/);
});

test('colour only when asked: the same text, painted', async () => {
  const facts = JSON.parse(await seat(['probe', 'ana', '--only', 'aliases,gpus', '--json'], false)) as ProbeReport;
  const plain = renderReport(facts, { colour: false });
  const painted = renderReport(facts, { colour: true });
  assert.ok(!plain.includes('\x1b['));
  assert.match(painted, /\x1b\[31mDOWN\x1b\[0m/);
  assert.equal(painted.replace(ANSI, ''), plain);
  const down = facts.findings.find((f) => f.status === 'down')!;
  assert.equal(findingLine(down, { colour: true }).replace(ANSI, ''), findingLine(down, { colour: false }));
});
