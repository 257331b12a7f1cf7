// The container image: the Dockerfile is multi-stage, runs as a non-root user, keeps the journal on a
// volume and gets no token baked in; where a container runtime answers, it is built and started (uid 1000;
// the bot starts, finds no Slack and exits 2). Without one the build is skipped, saying why.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile, execFileSync } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

function runtime(): string | false {
  try {
    execFileSync('docker', ['info', '--format', '{{.ServerVersion}}'], { stdio: 'pipe', timeout: 15_000 });
    return false;
  } catch (err) {
    const e = err as NodeJS.ErrnoException & { stderr?: Buffer };
    return e.code === 'ENOENT' ? 'docker is not installed' : `docker does not answer (${(e.stderr?.toString() ?? e.message).split('\n').find((l) => l.trim()) ?? 'no daemon'})`;
  }
}

test('the Dockerfile: two stages, a non-root user, the journal on a volume, no secret in it', async () => {
  const text = await readFile(`${ROOT}/Dockerfile`, 'utf8');
  assert.equal(text.match(/^FROM /gm)?.length, 2, 'multi-stage');
  assert.match(text, /^USER node$/m);
  assert.match(text, /^VOLUME \["\/var\/lib\/seatbelt"\]$/m);
  assert.match(text, /SEAT_JOURNAL=\/var\/lib\/seatbelt\/journal\.sqlite/);
  assert.ok(!/TOKEN|SECRET|xox|sk-/.test(text.replace(/^#.*$/gm, '')), 'no token in the image');
  const ignore = await readFile(`${ROOT}/.dockerignore`, 'utf8');
  for (const p of ['node_modules', '.git', '*.sqlite']) assert.ok(ignore.split('\n').includes(p), `.dockerignore leaves out ${p}`);
});

test('the image builds, runs as uid 1000, and the bot in it starts and says it cannot reach Slack (exit 2)', { skip: runtime(), timeout: 900_000 }, async () => {
  const run = (args: string[], timeout = 600_000): Promise<string> =>
    new Promise((resolve, reject) => execFile('docker', args, { cwd: ROOT, timeout, maxBuffer: 64 * 2 ** 20 }, (err, stdout, stderr) => (err ? reject(new Error(`docker ${args[0]}: ${stderr.slice(-2000)}`)) : resolve(stdout.trim()))));
  await run(['build', '-t', 'seatbelt:test', '.']);
  assert.equal(await run(['run', '--rm', '--entrypoint', 'id', 'seatbelt:test', '-u']), '1000', 'not root');
  const id = await run(['run', '-d', '-e', 'SEAT_HTTP_LISTEN=127.0.0.1:9464', '-e', 'SEAT_INVENTORY=/opt/seatbelt/drills/fleet.yaml', '-e', 'SLACK_BOT_TOKEN=xoxb-1-2-3', '-e', 'SLACK_SIGNING_SECRET=1234567890abcdef1234567890abcdef', '-e', 'SLACK_API_URL=http://127.0.0.1:9/api/', 'seatbelt:test']);
  try {
    // The bot cannot reach Slack here (nothing on 127.0.0.1:9): it says so and exits 2, as a person would see it.
    const code = await run(['wait', id], 120_000);
    const logs = await run(['logs', id]).catch(() => '');
    assert.equal(code, '2', logs);
    void logs;
  } finally {
    await run(['rm', '-f', id]).catch(() => '');
  }
});
