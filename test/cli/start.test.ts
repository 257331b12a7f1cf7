// `npm start` with Slack tokens and no inventory: the bot runs on the drill fleet, whose stand-ins
// start with it and stop with it. The real entry point, as a child process.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { signedPost, slashCommandBody, startSlackApi } from '../helpers/slack.ts';

const START = fileURLToPath(new URL('../../src/cli/start.ts', import.meta.url));
const SECRET = 'abcdef0123456789abcdef0123456789';

test('npm start with tokens: the bot answers /seat probe on the drill fleet, and SIGTERM stops it all', { timeout: 60_000 }, async () => {
  const slack = await startSlackApi();
  const env: NodeJS.ProcessEnv = { ...process.env, SLACK_BOT_TOKEN: 'xoxb-drill-0000000000', SLACK_SIGNING_SECRET: SECRET, PORT: '0', SLACK_API_URL: slack.url };
  delete env.SEAT_INVENTORY;
  delete env.SLACK_APP_TOKEN;
  const child = spawn(process.execPath, ['--import', 'tsx', START], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  let err = '';
  child.stderr.on('data', (d: Buffer) => (err += d.toString()));
  const exited = new Promise<number | null>((r) => child.on('close', r));
  try {
    const t0 = performance.now();
    while (!/HTTP on port (\d+)/.test(err)) {
      if (performance.now() - t0 > 30_000 || child.exitCode !== null) throw new Error(`bot did not start: ${err}`);
      await new Promise((r) => setTimeout(r, 50));
    }
    assert.match(err, /starting the drill fleet on loopback/);
    assert.match(err, /seat bot: running on drill \(fv, ana, irv\)/);
    const port = /HTTP on port (\d+)/.exec(err)![1];
    // The drill's on-call list is U0ONCALL01/02 in C0INCIDENT.
    const res = await signedPost(`http://127.0.0.1:${port}/slack/events`, slashCommandBody({ text: 'probe ana', responseUrl: `${slack.base}/response/s` }), { secret: SECRET });
    assert.equal(res.status, 200);
    await slack.waitFor((s) => s.calls.some((c) => c.method === 'chat.update' && /^DRILL DOWN ana: 1 of 30 aliases down, all routed to ana-ml2/.test(String(c.args.text))), 30_000);
  } finally {
    child.kill('SIGTERM');
    assert.equal(await exited, 0, err);
    await slack.close();
  }
  assert.ok(!err.includes('xoxb-drill'), 'the token is never printed');
});
