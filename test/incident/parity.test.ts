// The same site-dark walkthrough through Slack (signed requests, buttons, modals, the recording
// Slack API) and through `seat walk` (the real CLI, answers typed on its stdin) ends with the same
// journal: the same events, steps, evidence and inputs, in the same order. Only who, when and the
// hashes differ.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startCliDrill, type CliDrill } from '../helpers/cli-drill.ts';
import { POWER_LOG, runSiteDarkWalkthrough, startIncidentHarness, type Harness } from '../helpers/slack-incident.ts';
import type { JournalEvent } from '../../src/incident/types.ts';
import { openSqliteJournal } from '../../src/journal/sqlite.ts';

const MAIN = fileURLToPath(new URL('../../src/cli/main.ts', import.meta.url));
const TITLE = 'FV dark: UPS tripped under two loaded cards';
let h: Harness;
let cli: CliDrill;

before(async () => {
  h = await startIncidentHarness();
  cli = await startCliDrill('seat-parity-');
});
after(async () => {
  await h?.stop();
  await cli?.stop();
});

/** What the two front ends must agree on: no actor, no time, no hash, no seq of a stored report. */
function facts(events: readonly JournalEvent[]): unknown[] {
  return events.map((e) => {
    const p = { ...e.payload } as Record<string, unknown>;
    if (e.kind === 'probe.report') return { kind: e.kind, step: e.step };
    if (e.kind === 'runbook.pinned') return { kind: e.kind, runbook: p.runbook, sha256: p.sha256 };
    if (e.kind === 'incident.opened') return { kind: e.kind, site: p.site, title: p.title, drill: p.drill };
    if (e.kind === 'incident.closed') return { kind: e.kind };
    delete p.report;
    const ev = p.evidence as { kind?: string; name?: string } | undefined;
    if (ev?.kind === 'file' && ev.name) p.evidence = { ...ev, name: basename(ev.name) };
    return { kind: e.kind, step: e.step, payload: p };
  });
}

test('site-dark through Slack and through seat walk: the same journal content', { timeout: 300_000 }, async () => {
  const slack = await runSiteDarkWalkthrough(h, { title: TITLE });

  const journal = join(cli.dir, 'journal.sqlite');
  const log = join(cli.dir, 'power.log');
  await writeFile(log, POWER_LOG);
  const env: NodeJS.ProcessEnv = { ...process.env, SEAT_USER: 'ana', SEAT_JOURNAL: journal, ...cli.drill.env };
  for (const k of ['SEAT_INVENTORY', 'SLACK_BOT_TOKEN', 'SLACK_APP_TOKEN', 'SLACK_SIGNING_SECRET']) delete env[k];
  const seat = (args: string[], input = ''): Promise<{ code: number | null; out: string }> =>
    new Promise((resolve) => {
      const child = spawn(process.execPath, ['--import', 'tsx', MAIN, '--inventory', cli.inventory, ...args], { env });
      let out = '';
      child.stdout.on('data', (d: Buffer) => (out += d.toString()));
      child.stderr.on('data', (d: Buffer) => (out += d.toString()));
      child.stdin.end(input);
      child.on('close', (code) => resolve({ code, out }));
    });
  assert.equal((await seat(['incident', 'open', 'fv', TITLE])).code, 0);
  assert.equal((await seat(['runbook', 'start', 'site-dark'])).code, 0);
  // The answers the Slack walkthrough gives in its modals (WALK_INPUTS), typed at the prompts.
  const answers = [
    'd', // blast-radius: a probe
    'd', 'y', // no-polling: a probe, after "has a person reset the UPS?"
    'd', 'gen-paid', 'openrouter', // paid-coverage: the users' coverage before any power work
    'd', log, // recover-power-log: the file, hashed here
    'd', '', // ups-rating: the load left empty, as the Slack walkthrough leaves it
    'd', 'battery', '800', // power-plan
    'd', 'recreate', // recreate-containers
    'd', 'gen', // seat-reachable
  ];
  const walked = await seat(['walk'], `${answers.join('\n')}\n`);
  assert.equal(walked.code, 0, walked.out);
  assert.equal((await seat(['incident', 'close', '1', 'walked through in Slack'])).code, 0);

  const store = openSqliteJournal(journal);
  try {
    assert.deepEqual(facts(await store.events(1)), facts(slack.events));
    const log = slack.events.find((e) => e.kind === 'step.done' && e.step === 'recover-power-log')!;
    assert.equal((log.payload.evidence as { powerlog?: { peakW: number } }).powerlog?.peakW, 600.7, 'the power log was read as it was hashed: 303.4 + 297.3 W');
    assert.ok((await store.verify()).ok);
  } finally {
    await store.close();
  }
});
