// Issue 30's report budget, end to end: `/seat probe fv` through the real Bolt app over signed HTTP
// on the fv-site-dark drill (seed 002: every Fountain Valley address dark, the real probes against
// the drill's stand-ins). Counted from the recording Web API: the report's channel message is at
// most 8 blocks and 3,000 characters, the verdict first, the failures that share a host and a cause
// folded into one line; the full report is attached in its thread, every row and command line whole.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FV_SITE_DARK } from '../../drills/scenarios/fv-site-dark.ts';
import { startScenario, type RunningDrill } from '../../drills/scenarios/index.ts';
import { createSeatApp, type SeatApp } from '../../src/slack/app.ts';
import { signedPost, slashCommandBody, startSlackApi, type SlackApiStandIn } from '../helpers/slack.ts';
import { ANA, SECRET, startAnswerLog, type Exchange } from '../helpers/slack-incident.ts';

let drill: RunningDrill;
let slack: SlackApiStandIn;
let proxy: { url: string; log: Exchange[]; close(): Promise<void> };
let seat: SeatApp;
let dir: string;
let events: string;

before(async () => {
  drill = await startScenario(FV_SITE_DARK, {});
  slack = await startSlackApi();
  proxy = await startAnswerLog(slack.url);
  dir = await mkdtemp(join(tmpdir(), 'seatbelt-report-budget-'));
  seat = createSeatApp({
    fleet: drill.fleet,
    config: { botToken: 'xoxb-test-0000000000', mode: { kind: 'http', signingSecret: SECRET, port: 0 }, slackApiUrl: proxy.url },
    probeDeps: { env: { ...drill.env, PATH: process.env.PATH ?? '', SEAT_PROBE_MEMORY: 'off' }, ...drill.probe },
    logger: { debug() {}, info() {}, warn() {}, error() {}, setLevel() {}, getLevel: () => 'error' as never, setName() {} },
    sleep: async () => {},
    journal: join(dir, 'journal.sqlite'),
    tokenVerification: false,
  });
  events = `http://127.0.0.1:${await seat.start()}/slack/events`;
});

after(async () => {
  await seat?.idle();
  await seat?.stop();
  await proxy?.close();
  await slack?.close();
  await drill?.stop();
  if (dir) await rm(dir, { recursive: true, force: true });
});

/** Every text a person sees in the blocks (what Slack renders), summed. */
function visibleChars(blocks: unknown): number {
  let n = 0;
  const walk = (v: unknown): void => {
    if (Array.isArray(v)) v.forEach(walk);
    else if (v && typeof v === 'object') for (const [k, x] of Object.entries(v)) k === 'text' && typeof x === 'string' ? (n += x.length) : k !== 'value' && walk(x);
  };
  walk(blocks);
  return n;
}

const sectionsOf = (blocks: unknown[]): string[] => (blocks as { type: string; text?: { text?: string } }[]).filter((b) => b.type === 'section').map((b) => b.text?.text ?? '');

test('fv-site-dark, /seat probe fv in the channel: ≤ 8 blocks and ≤ 3,000 characters, verdict first, fv-ml1 folded into one line; the full report attached whole', { timeout: 120_000 }, async () => {
  const body = slashCommandBody({ text: 'probe fv', user: ANA.id, responseUrl: `${slack.base}/response/1` }).replace('user_name=oncall', `user_name=${ANA.name}`);
  const res = await signedPost(events, body, { secret: SECRET });
  assert.equal(res.status, 200);
  await seat.idle();

  // The report: the channel message (no thread) the probe posted, as Slack shows it now.
  const posted = proxy.log.filter((c) => c.method === 'chat.postMessage' && c.answer.ok === true && !c.args.thread_ts);
  assert.equal(posted.length, 1, `one report in the channel (${posted.length})`);
  const ts = String(posted[0]!.answer.ts);
  const last = proxy.log.filter((c) => (c.method === 'chat.update' && String(c.args.ts) === ts) || c === posted[0]).at(-1)!;
  const blocks = (last.args.blocks ?? []) as unknown[];
  assert.ok(blocks.length <= 8, `${blocks.length} blocks`);
  assert.ok(visibleChars(blocks) <= 3000, `${visibleChars(blocks)} characters`);
  const sections = sectionsOf(blocks);
  assert.match(sections[0]!, /^:rotating_light: \*DOWN\* \*fv\*: site fv dark/, 'the verdict first');
  // Three lines at most under the verdict; everything failing on fv-ml1 for its one cause is one line.
  const lines = sections[1]!.split('\n');
  assert.ok(lines.length <= 3, lines.join('\n'));
  const ml1 = sections.join('\n').split('\n').filter((l) => l.includes('fv-ml1'));
  assert.equal(ml1.length, 1, sections.join('\n'));
  assert.match(ml1[0]!, /\*fv-ml1\*: 19 aliases, 8 seats, [^\n]*4 GPUs[^\n]* — same cause/);
  assert.match(sections.join('\n'), /full report is attached in the thread/);

  // The full report, uploaded into the report's thread: every row there, no command line cut.
  const done = proxy.log.filter((c) => c.method === 'files.completeUploadExternal' && c.answer.ok === true);
  assert.equal(done.length, 1, 'the full report was uploaded');
  assert.equal(String(done[0]!.args.thread_ts), ts, 'in the report’s thread');
  const full = slack.uploads.join('');
  for (const alias of Object.keys(drill.fleet.inventory.aliases)) assert.ok(full.includes(alias), `alias ${alias} in the full report`);
  assert.ok(full.includes('fv-ml1'));
  assert.doesNotMatch(full, /[\w=,-]…/, 'nothing cut mid-word');
  assert.ok(!full.includes('…'), 'no row or command line cut in the full report');
  assert.match(full, /43 down/, 'the summary line whole');
});
