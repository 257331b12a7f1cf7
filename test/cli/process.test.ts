// The real entry points as child processes: what a shell sees when the reader goes away, when
// Ctrl-C arrives mid-probe, and when `npm start` is given an inventory of its own. None starts
// the drill: its fixed loopback ports belong to the drill tests running beside these.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { closeSync, existsSync, openSync } from 'node:fs';
import { chmod, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const MAIN = fileURLToPath(new URL('../../src/cli/main.ts', import.meta.url));
const START = fileURLToPath(new URL('../../src/cli/start.ts', import.meta.url));

/** One local GPU host on loopback; the gateway port is closed, its key unset. */
const LAB_FLEET = `gateway: { baseUrl: http://127.0.0.1:9, keys: { admin: { env: SEAT_TEST_UNSET_KEY } } }
sites:
  lab:
    hosts:
      lab-gpu: { address: 127.0.0.1, ssh: local, gpus: [{ index: 0 }] }
seats: {}
aliases: {}
`;

/** A directory holding LAB_FLEET as fleet.yaml and `nvidia-smi` as this script (put first on PATH). */
async function labDir(prefix: string, nvidiaSmi: string): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), prefix));
  await writeFile(join(dir, 'nvidia-smi'), nvidiaSmi);
  await chmod(join(dir, 'nvidia-smi'), 0o755);
  await writeFile(join(dir, 'fleet.yaml'), LAB_FLEET);
  return dir;
}

function cleanEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, ...extra };
  for (const k of ['SEAT_INVENTORY', 'SLACK_BOT_TOKEN', 'SLACK_APP_TOKEN', 'SLACK_SIGNING_SECRET']) delete env[k];
  return env;
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

async function until(what: string, ok: () => boolean | Promise<boolean>, ms = 20_000): Promise<void> {
  const t0 = performance.now();
  while (!(await ok())) {
    if (performance.now() - t0 > ms) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

test('Ctrl-C during a probe exits 130 and takes a hanging nvidia-smi with it', { timeout: 60_000 }, async () => {
  const dir = await mkdtemp(join(tmpdir(), 'seat-sigint-'));
  try {
    const pidFile = join(dir, 'smi.pid');
    // A wedged driver: records its pid, then sleeps in place (exec keeps the pid).
    await writeFile(join(dir, 'nvidia-smi'), `#!/bin/bash\necho $$ > ${JSON.stringify(pidFile)}\nexec sleep 60\n`);
    await chmod(join(dir, 'nvidia-smi'), 0o755);
    await writeFile(join(dir, 'fleet.yaml'), LAB_FLEET);
    const child = spawn(process.execPath, ['--import', 'tsx', MAIN, 'probe', 'lab', '--only', 'gpus', '--timeout', '60000', '--inventory', join(dir, 'fleet.yaml')], {
      env: cleanEnv({ PATH: `${dir}:${process.env.PATH ?? '/usr/bin:/bin'}` }),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let err = '';
    child.stderr.on('data', (d: Buffer) => (err += d.toString()));
    const exited = new Promise<number | null>((r) => child.on('close', (code) => r(code)));
    await until('nvidia-smi to start', async () => Number(await readFile(pidFile, 'utf8').catch(() => '')) > 0);
    const smi = Number(await readFile(pidFile, 'utf8'));
    assert.ok(alive(smi));
    child.kill('SIGINT');
    assert.equal(await exited, 130, err);
    await until('the hanging nvidia-smi to be gone', () => !alive(smi), 3000);
    assert.ok(!/at .*\.ts:\d+/.test(err), `no stack trace: ${err}`);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

test('a reader that closes the pipe early (| head -1) ends the run as a closed pipe does: exit 141, no stack trace', { timeout: 60_000 }, async () => {
  // A slow GPU: the report's later lines are written after the reader has gone.
  const dir = await labDir('seat-epipe-', '#!/bin/bash\nsleep 1\necho "No devices were found"\nexit 6\n');
  try {
    const child = spawn(process.execPath, ['--import', 'tsx', MAIN, 'probe', 'lab', '--inventory', join(dir, 'fleet.yaml')], {
      env: cleanEnv({ PATH: `${dir}:${process.env.PATH ?? '/usr/bin:/bin'}` }),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let err = '';
    child.stderr.on('data', (d: Buffer) => (err += d.toString()));
    const exited = new Promise<number | null>((r) => child.on('close', (code) => r(code)));
    // Like `| head -1`: read the first line, then close our end.
    const first = await Promise.race([new Promise<string>((r) => child.stdout.once('data', (d: Buffer) => r(d.toString()))), exited.then(() => '')]);
    assert.ok(first, `the probe wrote nothing before it ended: ${err}`);
    child.stdout.destroy();
    assert.equal(await exited, 141, err);
    assert.ok(!/at .*\.ts:\d+/.test(err), `no stack trace: ${err}`);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

test('what cannot be written (a full disk) is exit 3 with the reason, not the command\'s own verdict', { timeout: 60_000, skip: existsSync('/dev/full') ? false : 'no /dev/full here' }, async () => {
  const dir = await labDir('seat-enospc-', '#!/bin/bash\necho "No devices were found"\nexit 6\n');
  const full = openSync('/dev/full', 'w');
  try {
    for (const args of [['check'], ['probe', 'lab', '--json', '--only', 'gpus']]) {
      const child = spawn(process.execPath, ['--import', 'tsx', MAIN, ...args, '--inventory', join(dir, 'fleet.yaml')], {
        env: cleanEnv({ PATH: `${dir}:${process.env.PATH ?? '/usr/bin:/bin'}`, SEAT_PROBE_MEMORY: 'off' }),
        stdio: ['ignore', full, 'pipe'],
      });
      let err = '';
      child.stderr!.on('data', (d: Buffer) => (err += d.toString()));
      const code = await new Promise<number | null>((r) => child.on('close', (c) => r(c)));
      assert.equal(code, 3, `${args.join(' ')}: ${err}`);
      assert.match(err, /cannot write the report: ENOSPC/);
      assert.ok(!/at .*\.ts:\d+/.test(err), `no stack trace: ${err}`);
    }
  } finally {
    closeSync(full);
    await rm(dir, { recursive: true, force: true });
  }
});

test('--json to a reader already gone: exit 141, as a closed pipe, not the probe\'s verdict', { timeout: 60_000 }, async () => {
  const dir = await labDir('seat-epipe-json-', '#!/bin/bash\nsleep 0.5\necho "No devices were found"\nexit 6\n');
  try {
    const child = spawn(process.execPath, ['--import', 'tsx', MAIN, 'probe', 'lab', '--json', '--only', 'gpus', '--inventory', join(dir, 'fleet.yaml')], {
      env: cleanEnv({ PATH: `${dir}:${process.env.PATH ?? '/usr/bin:/bin'}`, SEAT_PROBE_MEMORY: 'off' }),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    child.stdout.destroy();
    let err = '';
    child.stderr.on('data', (d: Buffer) => (err += d.toString()));
    const code = await new Promise<number | null>((r) => child.on('close', (c) => r(c)));
    assert.equal(code, 141, err);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

test('npm start -- --inventory FILE uses that file: no drill starts, and a missing file is exit 2 naming it', { timeout: 30_000 }, async () => {
  for (const args of [['--inventory', '/nonexistent/mine.yaml'], ['--inventory=/nonexistent/mine.yaml'], ['probe', 'fv', '-i', '/nonexistent/mine.yaml']]) {
    const child = spawn(process.execPath, ['--import', 'tsx', START, ...args], { env: cleanEnv(), stdio: ['ignore', 'pipe', 'pipe'] });
    let err = '';
    child.stderr.on('data', (d: Buffer) => (err += d.toString()));
    const code = await new Promise<number | null>((r) => child.on('close', (c) => r(c)));
    assert.equal(code, 2, `${args.join(' ')}: ${err}`);
    assert.match(err, /\/nonexistent\/mine\.yaml/);
    assert.doesNotMatch(err, /drill/, `${args.join(' ')} started the drill: ${err}`);
  }
});
