// `seat bot` start-up: a token Slack refuses is a clear error and exit 2; a good start runs until told to stop.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseInventory } from '../../src/inventory/load.ts';
import { Fleet } from '../../src/inventory/fleet.ts';
import { runBot } from '../../src/slack/main.ts';
import { signedPost, slashCommandBody, startSlackApi, type SlackApiStandIn } from '../helpers/slack.ts';

let slack: SlackApiStandIn;
let fleet: Fleet;
let dir: string;
const SECRET = '1234567890abcdef1234567890abcdef';

before(async () => {
  slack = await startSlackApi();
  dir = await mkdtemp(join(tmpdir(), 'seatbelt-bot-'));
  const r = parseInventory(`
oncall: { users: [U0ONCALL01] }
gateway: { baseUrl: http://127.0.0.1:9, keys: { admin: { env: K } } }
sites: { fv: { hosts: { fv-ml1: { address: 127.0.0.1, gpuVendor: none } } } }
`);
  if (!r.ok) throw new Error(r.errors.join('\n'));
  fleet = new Fleet(r.value);
});

after(async () => {
  await slack.close();
  await rm(dir, { recursive: true, force: true });
});

const env = (): NodeJS.ProcessEnv => ({ SLACK_BOT_TOKEN: 'xoxb-1111-2222-revoked', SLACK_SIGNING_SECRET: SECRET, PORT: '0', SLACK_API_URL: slack.url, SEAT_JOURNAL: join(dir, 'journal.sqlite') });

test('a token Slack refuses (invalid_auth) is a one-line start-up error and exit 2, no stack trace', async () => {
  slack.fail('auth.test', 'invalid_auth');
  let err = '';
  const code = await runBot(fleet, { stderr: { write: (s: string) => (err += s) }, env: env(), until: new Promise(() => {}) });
  assert.equal(code, 2);
  assert.equal(err, 'seat bot: Slack refused to start the app (invalid_auth): the bot token is no longer valid: reinstall the app and update SLACK_BOT_TOKEN\n');
  assert.ok(!err.includes('xoxb-1111'), 'the token is never printed');
});

/** `seat bot` started in-process until told to stop: the port it says, what it wrote, its exit code. */
async function startBot(): Promise<{ port: string; err: () => string; stop: () => Promise<number> }> {
  let err = '';
  let stop!: () => void;
  const until = new Promise<void>((r) => (stop = r));
  const running = runBot(fleet, { stderr: { write: (s: string) => (err += s) }, env: env(), until });
  const deadline = performance.now() + 5000;
  while (!/HTTP on port (\d+)/.test(err) && performance.now() < deadline) await new Promise((r) => setTimeout(r, 20));
  const port = /HTTP on port (\d+) at \/slack\/events/.exec(err)?.[1];
  assert.ok(port && port !== '0', err);
  return { port, err: () => err, stop: () => (stop(), running) };
}

test('a good start answers signed requests on the port it reports, and stops when told', async () => {
  const { port, err, stop } = await startBot();
  const res = await signedPost(`http://127.0.0.1:${port}/slack/events`, slashCommandBody({ text: 'help', responseUrl: `${slack.base}/response/b` }), { secret: SECRET });
  assert.equal(res.status, 200);
  assert.match(res.text, /usage: \/seat probe/);
  assert.equal(await stop(), 0);
  assert.match(err(), /stopping after the probes in flight finish/);
});

test('a journal the bot cannot open is a one-line start-up error and exit 2', async () => {
  const notSqlite = join(dir, 'not-a-journal.sqlite');
  await writeFile(notSqlite, 'this is not an SQLite database, it is a text file that happens to be long enough to be read\n'.repeat(20));
  let err = '';
  const code = await runBot(fleet, { stderr: { write: (s: string) => (err += s) }, env: { ...env(), SEAT_JOURNAL: notSqlite }, until: new Promise(() => {}) });
  assert.equal(code, 2);
  assert.match(err, /^seat bot: cannot open the journal: .*not-a-journal\.sqlite.*\n$/);
  assert.ok(!err.includes('    at '), 'no stack trace');
});

/** This process's children running the probe worker (the bot's probe process), by /proc. */
async function probeChildren(): Promise<number[]> {
  const { readdir, readFile } = await import('node:fs/promises');
  const out: number[] = [];
  for (const name of await readdir('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = await readFile(`/proc/${name}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      if (ppid !== process.pid) continue;
      if ((await readFile(`/proc/${name}/cmdline`, 'utf8')).includes('probe-thread-worker')) out.push(Number(name));
    } catch {
      // gone meanwhile
    }
  }
  return out;
}

test('a probe asked of the running bot runs in its probe process and reports; stopping the bot ends that process', async () => {
  const { port, stop } = await startBot();
  const before = slack.calls.length;
  const res = await signedPost(`http://127.0.0.1:${port}/slack/events`, slashCommandBody({ text: 'probe fv --only power', channel: 'C0BOT', responseUrl: `${slack.base}/response/p` }), { secret: SECRET });
  assert.equal(res.status, 200);
  await slack.waitFor((s) => s.calls.slice(before).some((c) => c.method === 'chat.update' && /^(OK|DEGRADED|DOWN) fv/.test(String(c.args.text))));
  assert.equal((await probeChildren()).length, 1, 'the probe ran in a process of its own');
  assert.equal(await stop(), 0);
  const end = performance.now() + 5000;
  while ((await probeChildren()).length > 0 && performance.now() < end) await new Promise((r) => setTimeout(r, 20));
  assert.deepEqual(await probeChildren(), [], 'and it ended with the bot');
});
