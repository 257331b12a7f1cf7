// Issue 29 item 14, at the terminal: a step that acts on the hosts of a site (recreate-containers)
// is refused while the last probe of the site found nothing there answering, and goes through once
// a probe after the dark one reaches the site. The real CLI, a real SQLite journal, the drill's
// loopback stand-ins answering the re-probe.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startCliDrill, type CliDrill } from '../helpers/cli-drill.ts';
import { openSqliteCore } from '../../src/journal/sqlite.ts';
import { darkReport, examplesFleet } from '../postmortem/incident.ts';

const MAIN = fileURLToPath(new URL('../../src/cli/main.ts', import.meta.url));
let cli: CliDrill;
let journal: string;

before(async () => {
  cli = await startCliDrill('seat-dark-act-');
  journal = join(cli.dir, 'journal.sqlite');
});
after(async () => {
  await cli?.stop();
});

function seat(args: string[]): Promise<{ code: number | null; out: string }> {
  const env: NodeJS.ProcessEnv = { ...process.env, SEAT_USER: 'ana', SEAT_JOURNAL: journal, ...cli.drill.env };
  for (const k of ['SEAT_INVENTORY', 'SLACK_BOT_TOKEN', 'SLACK_APP_TOKEN', 'SLACK_SIGNING_SECRET']) delete env[k];
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['--import', 'tsx', MAIN, '--inventory', cli.inventory, ...args], { env });
    let out = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr.on('data', (d: Buffer) => (out += d.toString()));
    child.stdin.end();
    child.on('close', (code) => resolve({ code, out }));
  });
}

test('recreate-containers at a site still dark is refused, naming the last probe and what did not answer; a probe that reaches the site lets it through', { timeout: 180_000 }, async () => {
  assert.equal((await seat(['incident', 'open', 'fv', 'FV dark: UPS tripped'])).code, 0);
  assert.equal((await seat(['runbook', 'start', 'site-dark'])).code, 0);
  // The probe of the site while it was dark, 20 minutes ago (past no-poll-dark-site's quiet quarter hour).
  const store = openSqliteCore(journal);
  let dark: number;
  try {
    const at = new Date(Date.now() - 20 * 60_000).toISOString();
    const r = store.append({ incident: 1, kind: 'probe.report', actor: { kind: 'probe' }, happenedAt: at, payload: { report: JSON.parse(JSON.stringify(darkReport(await examplesFleet(), at))) as unknown } });
    assert.ok(r.ok);
    dark = r.event.seq;
  } finally {
    store.close();
  }

  const refused = await seat(['step', 'done', 'recreate-containers', '--method', 'recreate']);
  assert.notEqual(refused.code, 0, refused.out);
  assert.match(refused.out, /site-answers-first/);
  assert.match(refused.out, new RegExp(`on site fv while it is still dark: the last probe of it \\(report #${dark}`));
  assert.match(refused.out, /no answer from [^\n]*bmc/);
  assert.match(refused.out, /reset \(or replaced\) the UPS, probe the site again/);

  // Someone at the site reset the UPS; the site is probed again and answers (the drill's stand-ins).
  const probed = await seat(['step', 'done', 'blast-radius']);
  assert.equal(probed.code, 0, probed.out);
  const done = await seat(['step', 'done', 'recreate-containers', '--method', 'recreate']);
  assert.equal(done.code, 0, done.out);
  assert.match(done.out, /recorded: recreate-containers done by ana/);

  const check = openSqliteCore(journal);
  try {
    const steps = check.events(1).filter((e) => e.step === 'recreate-containers').map((e) => e.kind);
    assert.deepEqual(steps, ['step.blocked', 'step.done']);
  } finally {
    check.close();
  }
});
