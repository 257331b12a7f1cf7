// `npm start` with Slack tokens and no inventory: the bot runs on the drill, whose stand-ins start with
// it and stop with it; without a terminal, `probe all` on the same drill. One default everywhere:
// fv-site-dark (SEAT_DRILL picks another). The real entry point, as a child process.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { pathWithoutPing } from '../helpers/no-ping-path.ts';
import { signedPost, slashCommandBody, startSlackApi } from '../helpers/slack.ts';

const START = fileURLToPath(new URL('../../src/cli/start.ts', import.meta.url));
const SECRET = 'abcdef0123456789abcdef0123456789';

test('npm start with tokens: the bot answers /seat probe on the fv-site-dark drill, and SIGTERM stops it all', { timeout: 60_000 }, async () => {
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
    assert.match(err, /starting the drill fleet on loopback: drill fv-site-dark/);
    assert.match(err, /seat bot: running on drill \(fv, ana, irv\)/);
    const port = /HTTP on port (\d+)/.exec(err)![1];
    // The drill's on-call list is U0ONCALL01/02 in C0INCIDENT.
    const res = await signedPost(`http://127.0.0.1:${port}/slack/events`, slashCommandBody({ text: 'probe fv', responseUrl: `${slack.base}/response/s` }), { secret: SECRET });
    assert.equal(res.status, 200);
    await slack.waitFor((s) => s.calls.some((c) => c.method === 'chat.update' && /^DRILL DOWN fv: site fv dark/.test(String(c.args.text))), 30_000);
  } finally {
    child.kill('SIGTERM');
    assert.equal(await exited, 0, err);
    await slack.close();
  }
  assert.ok(!err.includes('xoxb-drill'), 'the token is never printed');
});

function start(env: NodeJS.ProcessEnv): Promise<{ code: number | null; out: string; err: string }> {
  const e: NodeJS.ProcessEnv = { ...env, NO_COLOR: '1', SEAT_PROBE_MEMORY: 'off' };
  for (const k of ['SEAT_INVENTORY', 'SLACK_BOT_TOKEN', 'SLACK_APP_TOKEN', 'SLACK_SIGNING_SECRET', 'SEAT_DRILL_KEEP']) delete e[k];
  // stdin is /dev/null: nobody types, as in CI or `npm start < /dev/null`.
  const child = spawn(process.execPath, ['--import', 'tsx', START], { env: e, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  child.stdout.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr.on('data', (d: Buffer) => (err += d.toString()));
  return new Promise((resolve) => child.on('close', (code) => resolve({ code, out, err })));
}

test('npm start without a terminal, on a machine without ping: probe all on fv-site-dark proposes site-dark, nothing down for the missing tool', { timeout: 90_000 }, async () => {
  const path = pathWithoutPing();
  try {
    const r = await start({ ...process.env, PATH: path.dir });
    assert.equal(r.code, 1, r.err);
    assert.match(r.err, /starting the drill fleet on loopback: drill fv-site-dark .*SEAT_DRILL=<scenario> plays another/);
    // Its first lines: what was found and what was not, and what that changes.
    assert.match(r.err, /^seat: drill: tools found: .*\nseat: drill: not found: ping \(apt-get install iputils-ping\): ICMP is not measured/m);
    assert.match(r.out, /^DOWN all: site fv dark: every measured address \(BMC included\) failed \(1 not measured\) while other sites answer/m);
    assert.match(r.out, /^next: +seat runbook start site-dark/m);
    assert.doesNotMatch(r.out, /own network|no ICMP reply/);
    // No ping ran: every site is judged by what was measured, its TCP ports (`probe fv`'s control checks: test/drill/no-ping.test.ts).
    assert.match(r.out, /^ok +firewall ana firewall +ping not run .*tcp\/\d+ open/m);
    assert.doesNotMatch(r.out, /ana-gpu-oom/);
  } finally {
    path.remove();
  }
});

test('SEAT_DRILL picks another scenario for npm start; one it does not know is exit 2 naming the known ones', { timeout: 90_000 }, async () => {
  const other = await start({ ...process.env, SEAT_DRILL: 'ana-gpu-oom' });
  assert.equal(other.code, 1, other.err);
  assert.match(other.err, /starting the drill fleet on loopback: drill ana-gpu-oom \(seed 000/);
  assert.doesNotMatch(other.out, /site fv dark/);
  const typo = await start({ ...process.env, SEAT_DRILL: 'fv-site-drak' });
  assert.equal(typo.code, 2);
  assert.match(typo.err, /^seat: SEAT_DRILL names no drill scenario "fv-site-drak"; known: fv-site-dark, ana-gpu-oom, brutus-kv-boot, hq-uplink-down \(seat drill --list\)$/m);
  assert.doesNotMatch(typo.err, /at .*\.ts:\d+/);
});
