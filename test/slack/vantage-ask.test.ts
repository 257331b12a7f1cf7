// "Asking the others" end to end: `/seat probe fv` on a real Bolt bot (signed HTTP, the recording
// Web API) asks every other live replica through the shared journal, and a real `seat vantage`
// process — inside the network namespace the drill made for hq, where fv has no route — answers
// from there. The report carries both vantages and the verdict rests on both: fv lost from hq only
// is "unreachable from hq only", no runbook; fv dark from two vantages is site dark. A replica whose
// heartbeat is fresh but which never answers is named, and the report ends at the probe's timeout.
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { HQ_UPLINK_DOWN } from '../../drills/scenarios/hq-uplink-down.ts';
import { FV_SITE_DARK } from '../../drills/scenarios/fv-site-dark.ts';
import { startScenario, type RunningDrill } from '../../drills/scenarios/index.ts';
import { openSqliteCore } from '../../src/journal/sqlite.ts';
import { createSeatApp, type SeatApp } from '../../src/slack/app.ts';
import { signedPost, slashCommandBody, startSlackApi, type SlackApiStandIn } from '../helpers/slack.ts';
import { MAIN } from '../drill/session.ts';
import { runCli, type CliIo } from '../../src/cli/run.ts';

const SECRET = 'f0e1d2c3b4a5968778695a4b3c2d1e0f';
const stops: (() => Promise<void>)[] = [];
after(async () => {
  for (const s of stops.reverse()) await s().catch(() => {});
});

interface Bot {
  app: SeatApp;
  url: string;
  slack: SlackApiStandIn;
  logs: string[];
}

async function startBot(drill: RunningDrill, vantage: string): Promise<Bot> {
  const slack = await startSlackApi();
  const logs: string[] = [];
  const log = (...m: unknown[]): void => void logs.push(m.join(' '));
  const app = createSeatApp({
    fleet: drill.fleet,
    config: { botToken: 'xoxb-test-0000000000', mode: { kind: 'http', signingSecret: SECRET, port: 0 }, slackApiUrl: slack.url },
    probeDeps: { env: { ...drill.env, PATH: process.env.PATH ?? '' }, ...drill.probe, vantage },
    logger: { debug: log, info: log, warn: log, error: log, setLevel: () => {}, getLevel: () => 'info' as never, setName: () => {} },
    sleep: async () => {},
    journal: drill.journalPath,
    tokenVerification: false,
    replica: `bot-${vantage}`,
  });
  const port = await app.start();
  const bot = { app, url: `http://127.0.0.1:${port}/slack/events`, slack, logs };
  stops.push(async () => {
    await app.stop();
    await slack.close();
  });
  return bot;
}

/** A real `seat vantage` process, run through `exec` (an `ip netns exec` prefix) when given; resolves once it answers. */
async function startVantage(drill: RunningDrill, vantage: string, exec: string[]): Promise<{ child: ChildProcess; err: () => string }> {
  const env = { PATH: `${drill.probe.pathPrefix.join(':')}:${process.env.PATH ?? '/usr/bin:/bin'}`, HOME: process.env.HOME ?? '/tmp', SEAT_PROBE_MEMORY: 'off', SEAT_VANTAGE: vantage, SEAT_REPLICA: `${vantage}-vantage`, SEAT_JOURNAL: drill.journalPath, ...drill.env };
  const argv = [...exec, process.execPath, '--import', 'tsx', MAIN, '--inventory', drill.inventoryPath, 'vantage'];
  const child = spawn(argv[0]!, argv.slice(1), { env, stdio: ['ignore', 'pipe', 'pipe'] });
  let err = '';
  child.stderr.on('data', (b: Buffer) => void (err += b.toString()));
  child.stdout.on('data', () => {});
  stops.push(async () => {
    if (child.exitCode === null) {
      child.kill('SIGTERM');
      await new Promise((r) => child.once('exit', r));
    }
  });
  const end = Date.now() + 60_000;
  while (!/answering the bot replicas' probe requests/.test(err)) {
    if (child.exitCode !== null || Date.now() > end) throw new Error(`seat vantage did not start:\n${err}`);
    await new Promise((r) => setTimeout(r, 50));
  }
  return { child, err: () => err };
}

/** The probe's message as it was left: every text of its last post or update. */
function finalReport(slack: SlackApiStandIn): { text: string; actions: string[] } {
  const last = slack.calls.filter((c) => c.method === 'chat.update' || c.method === 'chat.postMessage').at(-1);
  assert.ok(last, 'the probe posted a message');
  const blocks = (last.args.blocks ?? []) as { type: string; text?: { text: string }; elements?: { text?: string | { text: string }; action_id?: string }[] }[];
  const text = blocks.flatMap((b) => [b.text?.text ?? '', ...(b.elements ?? []).map((e) => (typeof e.text === 'string' ? e.text : (e.text?.text ?? '')))]).join('\n');
  const actions = blocks.flatMap((b) => (b.elements ?? []).flatMap((e) => (e.action_id ? [e.action_id] : [])));
  return { text: `${String(last.args.text ?? '')}\n${text}`, actions };
}

async function probe(bot: Bot, text: string): Promise<number> {
  const t0 = performance.now();
  const res = await signedPost(bot.url, slashCommandBody({ text, responseUrl: `${bot.slack.base}/response/1` }), { secret: SECRET });
  assert.equal(res.status, 200);
  await bot.app.idle();
  return performance.now() - t0;
}

test('hq-uplink-down: the bot at irv asks the replica at hq; fv is "unreachable from hq only", both vantages in the report, no runbook', { timeout: 180_000 }, async (t) => {
  const drill = await startScenario(HQ_UPLINK_DOWN);
  stops.push(() => drill.stop());
  const hq = drill.vantages.find((v) => v.name === 'hq');
  if (!hq?.exec) {
    t.skip(hq?.how ?? 'no hq vantage');
    return;
  }
  const bot = await startBot(drill, 'irv');
  const hqVantage = await startVantage(drill, 'hq', hq.exec);
  await probe(bot, 'probe fv --only power');
  const r = finalReport(bot.slack);
  assert.match(r.text, /fv unreachable from hq only \(irv reaches it\)/, r.text);
  assert.match(r.text, /measured from 2 vantage points: irv, hq; asked 1 other vantage: hq \(hq-vantage\) answered in \d+ ms/, r.text);
  assert.doesNotMatch(r.text, /site dark|is dark/i, r.text);
  assert.ok(!r.actions.includes('start_runbook'), `no runbook is offered: ${r.actions.join(', ')}`);
  assert.match(hqVantage.err(), /probe request \d+: answered/);
  // The request's rows are gone once the report is out: the channel is not a record.
  const db = openSqliteCore(drill.journalPath);
  try {
    assert.deepEqual((db as unknown as { db: { prepare(s: string): { get(): unknown } } }).db.prepare('SELECT count(*) AS n FROM probe_answers').get(), { n: 0 });
  } finally {
    db.close();
  }
});

test('fv-site-dark: fv dark from irv and from a second vantage that reaches the other sites: site dark, said from both', { timeout: 180_000 }, async (t) => {
  const drill = await startScenario(FV_SITE_DARK);
  stops.push(() => drill.stop());
  // The drill's dark namespace is where fv has no route: a whole `seat vantage` runs inside it.
  const exec = drill.probe.pingCommand?.slice(0, -1);
  if (!exec || exec[0] !== 'ip') {
    t.skip('no network namespace here: fv is dark only to a ping stand-in, which one process plays');
    return;
  }
  const bot = await startBot(drill, 'irv');
  await startVantage(drill, 'ana', exec);
  await probe(bot, 'probe fv --only power');
  const r = finalReport(bot.slack);
  assert.match(r.text, /measured from 2 vantage points: irv, ana/, r.text);
  assert.match(r.text, /site fv dark: every address \(BMC included\) failed/, r.text);
  assert.ok(r.actions.includes('start_runbook') || /Start runbook site-dark/.test(r.text), 'site-dark is proposed');
  assert.doesNotMatch(r.text, /from one vantage point/, r.text);
});

test('a replica with a fresh heartbeat that never answers is named, and the report ends at the probe timeout', { timeout: 120_000 }, async () => {
  const drill = await startScenario(HQ_UPLINK_DOWN);
  stops.push(() => drill.stop());
  const bot = await startBot(drill, 'irv');
  const db = openSqliteCore(drill.journalPath);
  db.heartbeat({ replica: 'lax-ghost', site: 'lax', host: 'lax1', version: '0.0.0', at: new Date().toISOString() });
  db.close();
  const timeoutMs = drill.fleet.inventory.settings.probeTimeoutMs;
  const ms = await probe(bot, 'probe fv --only power');
  const r = finalReport(bot.slack);
  assert.match(r.text, /asked 1 other vantage: lax \(lax-ghost\) did not answer \(no answer within \d+\.\d s\): not in this report/, r.text);
  assert.match(r.text, /measured from irv;/, r.text);
  // It cost its timeout (and the request's way through the journal), never more: generous margin.
  assert.ok(ms >= timeoutMs, `the ghost was waited for its timeout (${Math.round(ms)} ms)`);
  assert.ok(ms < timeoutMs + 6000, `the report ended soon after the timeout (${Math.round(ms)} ms, timeout ${timeoutMs} ms)`);
});

test('the terminal asks too: `seat probe fv --json` at irv, on the journal the replicas share, carries hq\'s answer and its verdict', { timeout: 180_000 }, async (t) => {
  const drill = await startScenario(HQ_UPLINK_DOWN);
  stops.push(() => drill.stop());
  const hq = drill.vantages.find((v) => v.name === 'hq');
  if (!hq?.exec) {
    t.skip(hq?.how ?? 'no hq vantage');
    return;
  }
  await startVantage(drill, 'hq', hq.exec);
  let out = '';
  let err = '';
  const env: NodeJS.ProcessEnv = { PATH: process.env.PATH, SEAT_PROBE_MEMORY: 'off', SEAT_VANTAGE: 'irv', SEAT_JOURNAL: drill.journalPath, ...drill.env };
  const io: CliIo = { stdout: { write: (x: string | Uint8Array) => (out += String(x)), isTTY: false }, stderr: { write: (x: string) => (err += x) }, env, probeDeps: { env, ...drill.probe } };
  const code = await runCli(['--inventory', drill.inventoryPath, 'probe', 'fv', '--only', 'power', '--json'], io);
  assert.ok(code === 0 || code === 1, err);
  const report = JSON.parse(out) as { vantages: string[]; asked?: { vantage: string; outcome: string }[]; verdict: { headline: string; runbook: string | null } };
  assert.deepEqual(report.vantages, ['irv', 'hq']);
  assert.deepEqual(report.asked?.map((a) => [a.vantage, a.outcome]), [['hq', 'answered']]);
  assert.match(report.verdict.headline, /^fv unreachable from hq only/);
  assert.equal(report.verdict.runbook, null);
});
