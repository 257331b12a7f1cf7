// The delivery fallbacks alone: a real Web API client against the recording Slack stand-in, the
// Retry-After wait injected (recorded, never slept), the person's response_url a recording fake.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import bolt from '@slack/bolt';
import type { Logger, RespondArguments } from '@slack/bolt';
import type { ProbeRequest } from '../../src/commands/probe.ts';
import { renderReport } from '../../src/slack/blocks.ts';
import { ChannelMessage, deliverReport, type DeliveryDeps } from '../../src/slack/delivery.ts';
import { exampleFleet } from '../helpers/findings.ts';
import { startSlackApi, type SlackApiStandIn } from '../helpers/slack.ts';
import { fvReport } from '../render/reports.ts';

const req: ProbeRequest = { site: 'fv', only: ['aliases', 'gpus', 'power'], timeoutMs: null, paid: false };
const fleet = await exampleFleet();
const report = fvReport(fleet, { down: ['qwen3-embed'], underFloor: true });
let slack: SlackApiStandIn;

before(async () => {
  slack = await startSlackApi();
});
after(() => slack.close());

const logLines: string[] = [];
const log = (...m: unknown[]): void => void logLines.push(m.join(' '));
const logger: Logger = { debug: log, info: log, warn: log, error: log, setLevel() {}, getLevel: () => 'info' as never, setName() {} };

async function setUp(): Promise<{ d: DeliveryDeps; msg: ChannelMessage; sleeps: number[]; said: RespondArguments[] }> {
  slack.heal();
  const client = new bolt.webApi.WebClient('xoxb-test-0000000000', { slackApiUrl: slack.url, rejectRateLimitedCalls: true, retryConfig: { retries: 0 } });
  const sleeps: number[] = [];
  const said: RespondArguments[] = [];
  const respond = async (m: string | RespondArguments) => {
    said.push(typeof m === 'string' ? { text: m } : m);
    return new Response('ok');
  };
  const d: DeliveryDeps = { client, log: logger, sleep: async (ms) => void sleeps.push(ms), respond };
  const msg = new ChannelMessage(client, 'C0INCIDENT', undefined, logger);
  assert.equal(await msg.open({ text: 'probing fv: 0 of 3 …', blocks: [] }, true), null);
  return { d, msg, sleeps, said };
}

const since = (n: number, method: string) => slack.calls.slice(n).filter((c) => c.method === method);

test('Retry-After is waited out once, capped at 30 s, then the report lands and the full text is attached', async () => {
  const { d, msg, sleeps, said } = await setUp();
  const n = slack.calls.length;
  slack.fail('chat.update', 'ratelimited', 1, 120);
  await deliverReport(d, msg, report, renderReport(report, req, 'U0ONCALL01'), req, 'U0ONCALL01');
  assert.deepEqual(sleeps, [30_000]);
  assert.equal(since(n, 'chat.update').length, 2);
  assert.equal(since(n, 'files.completeUploadExternal').length, 1, 'rows were folded: the full report goes in the thread');
  assert.equal(since(n, 'files.completeUploadExternal')[0]!.args.thread_ts, msg.ts);
  assert.deepEqual(said, [], 'nothing went privately');
});

test('blocks Slack refuses: the verdict alone replaces them, and the full report is attached', async () => {
  const { d, msg, sleeps, said } = await setUp();
  const n = slack.calls.length;
  slack.fail('chat.update', 'invalid_blocks', 1);
  await deliverReport(d, msg, report, renderReport(report, req, 'U0ONCALL01'), req, 'U0ONCALL01');
  const updates = since(n, 'chat.update');
  assert.equal(updates.length, 2);
  assert.match(JSON.stringify(updates[1]!.args.blocks), /The full report is attached in the thread/);
  assert.doesNotMatch(JSON.stringify(updates[1]!.args.blocks), /\*Gateway and aliases\*/);
  assert.equal(since(n, 'files.completeUploadExternal').length, 1);
  assert.deepEqual(sleeps, []);
  assert.deepEqual(said, []);
});

test('when no blocks land, the message says in plain text where the report went, and the person gets it', async () => {
  const { d, msg, said } = await setUp();
  const n = slack.calls.length;
  slack.fail('chat.update', 'invalid_blocks', 2);
  await deliverReport(d, msg, report, renderReport(report, req, 'U0ONCALL01'), req, 'U0ONCALL01');
  const last = since(n, 'chat.update').at(-1)!;
  assert.match(String(last.args.text), / — the full report could not be posted here \(invalid_blocks\); it was sent privately to <@U0ONCALL01>$/);
  assert.equal(said.length, 1);
  assert.match(String(said[0]!.text), /^:warning: the report could not be posted in the channel \(invalid_blocks\); here it is: DEGRADED fv: /, "qwen3-embed routes to ana: not DOWN fv");
  assert.match(JSON.stringify(said[0]), /for every row, run `seat probe fv --all` in a terminal/, 'no thread to point at');
  assert.equal(since(n, 'files.completeUploadExternal').length, 0);
});

test('an upload Slack refuses tells the person how to see every row; the report itself stays', async () => {
  const { d, msg, said } = await setUp();
  slack.fail('files.getUploadURLExternal', 'missing_scope');
  await deliverReport(d, msg, report, renderReport(report, req, 'U0ONCALL01'), req, 'U0ONCALL01');
  assert.equal(said.length, 1);
  assert.match(String(said[0]!.text), /the full report could not be attached \(missing_scope\): run `seat probe fv --all` in a terminal/);
  assert.ok(logLines.some((l) => /files\.uploadV2 failed: missing_scope/.test(l)));
});

test('the attached file is the plain-text report with every row, the verdict and what to run next last', async () => {
  const { d, msg } = await setUp();
  const uploads = slack.uploads.length;
  await deliverReport(d, msg, report, renderReport(report, req, 'U0ONCALL01'), req, 'U0ONCALL01');
  // The upload is one multipart part: the file's text sits between its headers and the boundary.
  const raw = slack.uploads.slice(uploads).join('');
  const text = raw.slice(raw.indexOf('\r\n\r\n') + 4, raw.lastIndexOf('\r\n--'));
  for (const f of report.findings) assert.ok(text.includes(` ${f.target} `), `${f.target} in the file`);
  const lines = text.split('\n');
  assert.match(lines.at(-2)!, new RegExp(`^next: {4}seat runbook start ${report.verdict.runbook} --site fv — `));
  assert.match(lines.at(-1)!, /^details: seat probe fv --json for the facts$/);
});
