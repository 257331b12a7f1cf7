import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, test } from 'node:test';
import { childEnv, createReaper, runCommand, type CommandOptions } from '../../../src/probes/edge/exec.ts';
import { clean, firstLine } from '../../../src/probes/edge/text.ts';
import { createProgramGate } from '../../../src/probes/edge/gate.ts';
import { KILL_AFTER_MS } from '../../../src/probes/edge/timeout.ts';
import { alive, ManualTimers, waitFor } from './helpers.ts';

const BIN = fileURLToPath(new URL('../../fixtures/edge/bin', import.meta.url));
const dir = mkdtempSync(join(tmpdir(), 'seatbelt-edge-'));
after(() => rmSync(dir, { recursive: true, force: true }));
let n = 0;

/** Options for one run: fixtures first on PATH, a pid file the fixture reports to, timers the test fires. */
function setup(extra: Partial<CommandOptions> = {}): { opts: CommandOptions; timers: ManualTimers; pids: () => number[]; pidfile: string } {
  const timers = new ManualTimers();
  const pidfile = join(dir, `pids-${++n}`);
  const opts: CommandOptions = {
    timeoutMs: 3000,
    env: { PATH: process.env.PATH, HOME: '/home/oncall', EDGE_PIDFILE: pidfile },
    pathPrefix: [BIN],
    passEnv: ['EDGE_PIDFILE'],
    reaper: createReaper(),
    setTimer: timers.setTimer,
    ...extra,
  };
  const pids = (): number[] => readFileSync(pidfile, 'utf8').trim().split(/\s+/).map(Number);
  return { opts, timers, pids, pidfile };
}

test('the child gets only what it needs: no Slack token, no gateway key', async () => {
  const { opts } = setup({
    env: {
      PATH: '/usr/bin:/bin',
      HOME: '/home/oncall',
      USER: 'oncall',
      SSH_AUTH_SOCK: '/run/agent.sock',
      SLACK_BOT_TOKEN: 'xoxb-not-for-children',
      SLACK_SIGNING_SECRET: 'signing-not-for-children',
      LITELLM_ADMIN_KEY: 'sk-admin-not-for-children',
      LITELLM_APP_KEY: 'sk-app-not-for-children',
      LANG: 'de_DE.UTF-8',
      KRB5CCNAME: 'FILE:/tmp/krb',
    },
    passEnv: ['KRB5CCNAME', 'PATH'],
  });
  const r = await runCommand(['print-env'], opts);
  assert.equal(r.code, 'ok');
  const env = Object.fromEntries(r.stdout.trim().split('\n').map((l) => [l.slice(0, l.indexOf('=')), l.slice(l.indexOf('=') + 1)]));
  assert.doesNotMatch(r.stdout, /not-for-children|SLACK_|LITELLM_/);
  assert.equal(env.PATH, `${BIN}:/usr/bin:/bin`);
  assert.equal(env.LANG, 'C');
  assert.equal(env.LC_ALL, 'C');
  assert.equal(env.TERM, 'dumb');
  assert.equal(env.HOME, '/home/oncall');
  assert.equal(env.USER, 'oncall');
  assert.equal(env.SSH_AUTH_SOCK, '/run/agent.sock');
  assert.equal(env.KRB5CCNAME, 'FILE:/tmp/krb');
});

test('childEnv: passEnv cannot override PATH or the locale', () => {
  const env = childEnv({ PATH: '/bin', LC_ALL: 'de_DE.UTF-8' }, ['/opt/x'], ['PATH', 'LC_ALL', 'MISSING']);
  assert.deepEqual(env, { PATH: '/opt/x:/bin', LANG: 'C', LC_ALL: 'C', TERM: 'dumb' });
});

test('a non-zero exit, a missing program, one that cannot start, a signal nobody sent', async () => {
  const { opts } = setup();
  const failed = await runCommand(['fail-3'], opts);
  assert.deepEqual(
    { code: failed.code, exitCode: failed.exitCode, stdout: failed.stdout, stderr: failed.stderr, truncated: failed.truncated },
    { code: 'exit', exitCode: 3, stdout: 'partial answer', stderr: 'fail-3: something broke', truncated: false },
  );
  const missing = await runCommand(['no-such-tool-seatbelt'], opts);
  assert.equal(missing.code, 'not_found');
  const denied = await runCommand([join(BIN, 'not-executable')], opts);
  assert.equal(denied.code, 'error');
  assert.match(denied.error ?? '', /EACCES/);
  const killed = await runCommand(['self-kill'], opts);
  assert.equal(killed.code, 'killed');
  assert.equal(killed.signal, 'SIGKILL');
  assert.equal(killed.exitCode, null);
  assert.equal(opts.reaper.size, 0);
});

test('timeout: the whole group dies, grandchild holding stdout included', async () => {
  const { opts, timers, pids, pidfile } = setup();
  const pending = runCommand(['holder', 'wait'], opts);
  await waitFor(() => existsSync(pidfile), 'the fixture to start');
  const [leader, grandchild] = pids() as [number, number];
  assert.ok(alive(leader) && alive(grandchild));
  assert.equal(opts.reaper.size, 1);
  assert.equal(timers.fire(3000), 1);
  const r = await pending;
  assert.equal(r.code, 'timeout');
  assert.equal(r.timedOut, true);
  assert.equal(r.isCanceled, false);
  assert.equal(r.stdout, 'started', 'what came before the kill is kept');
  await waitFor(() => !alive(leader) && !alive(grandchild), 'both to be gone');
  assert.equal(opts.reaper.size, 0);
});

test('a leader that exits while its grandchild holds stdout: answered at once, the grandchild killed', async () => {
  const { opts, pids } = setup();
  // No timer is ever fired: without the group kill on exit this would wait for the grandchild's sleep.
  const r = await runCommand(['holder', 'exit'], opts);
  assert.equal(r.code, 'ok');
  assert.equal(r.stdout, 'started');
  const [, grandchild] = pids() as [number, number];
  await waitFor(() => !alive(grandchild), 'the grandchild to be gone');
});

test('a child that ignores SIGTERM gets SIGKILL after the grace', async () => {
  const { opts, timers, pids, pidfile } = setup();
  const pending = runCommand(['stubborn'], opts);
  await waitFor(() => existsSync(pidfile), 'the fixture to start');
  const [leader, grandchild] = pids() as [number, number];
  timers.fire(3000);
  // SIGTERM was sent and ignored; the SIGKILL waits for its own timer.
  await new Promise((r) => setTimeout(r, 50));
  assert.ok(alive(leader), 'still running after SIGTERM');
  assert.equal(timers.fire(KILL_AFTER_MS), 1);
  const r = await pending;
  assert.equal(r.code, 'timeout');
  await waitFor(() => !alive(leader) && !alive(grandchild), 'both to be gone');
});

test('stopped by the caller: code stopped, group gone; already stopped: never started', async () => {
  const ctl = new AbortController();
  const { opts, pids, pidfile } = setup({ signal: ctl.signal });
  const pending = runCommand(['holder', 'wait'], opts);
  await waitFor(() => existsSync(pidfile), 'the fixture to start');
  ctl.abort();
  const r = await pending;
  assert.equal(r.code, 'stopped');
  assert.equal(r.isCanceled, true);
  assert.equal(r.timedOut, false);
  const [leader, grandchild] = pids() as [number, number];
  await waitFor(() => !alive(leader) && !alive(grandchild), 'both to be gone');

  const gone = await runCommand(['holder', 'wait'], setup({ signal: ctl.signal }).opts);
  assert.equal(gone.code, 'stopped');
});

test('a command waiting on `after` starts when it settles; a stop or its timeout during the wait ends it unstarted', async () => {
  const gate = createProgramGate(100, new ManualTimers().setTimer);
  const waiting = setup({ after: gate.opened });
  let done = false;
  const pending = runCommand(['print-env'], waiting.opts).then((r) => ((done = true), r));
  await new Promise((r) => setTimeout(r, 50));
  assert.equal(done, false, 'not run before the gate opens');
  assert.equal(waiting.opts.reaper.size, 0, 'nothing started');
  gate.open();
  assert.equal((await pending).code, 'ok');

  const shut = createProgramGate(100, new ManualTimers().setTimer);
  const ctl = new AbortController();
  const stopped = setup({ after: shut.opened, signal: ctl.signal });
  const r1 = runCommand(['holder', 'wait'], stopped.opts);
  // Past the turn every spawn waits for: parked on the gate, not on that.
  await new Promise((r) => setTimeout(r, 50));
  ctl.abort();
  assert.equal((await r1).code, 'stopped');
  assert.equal(existsSync(stopped.pidfile), false, 'the program never ran');

  const late = setup({ after: shut.opened });
  const r2 = runCommand(['holder', 'wait'], late.opts);
  await new Promise((r) => setTimeout(r, 50));
  assert.equal(late.timers.fire(3000), 1, 'its own timeout runs through the wait');
  const timedOut = await r2;
  assert.equal(timedOut.code, 'timeout');
  assert.equal(timedOut.timedOut, true);
  assert.equal(existsSync(late.pidfile), false, 'the program never ran');
});

test('a child printing forever is cut at the cap: too_large, memory flat', async () => {
  const { opts } = setup({ maxBytes: 4 * 1024 * 1024 });
  const r = await runCommand(['yes'], opts);
  assert.equal(r.code, 'too_large');
  assert.equal(r.truncated, true);
  assert.ok(r.stdout.length <= 4 * 1024 * 1024);
  assert.ok(r.stdout.startsWith('y\ny\n'));
  assert.ok(process.memoryUsage().rss < 400 * 1024 * 1024, `rss ${process.memoryUsage().rss}`);
});

test('a grandchild printing forever is cut too, and killed with its group', async () => {
  const { opts, pids } = setup({ maxBytes: 1024 * 1024 });
  const r = await runCommand(['flood-child'], opts);
  assert.equal(r.code, 'too_large');
  assert.equal(r.truncated, true);
  const [leader, grandchild] = pids() as [number, number];
  await waitFor(() => !alive(leader) && !alive(grandchild), 'both to be gone');
  assert.ok(process.memoryUsage().rss < 400 * 1024 * 1024, `rss ${process.memoryUsage().rss}`);
});

test('reaper.killAll() kills a still-running group (the CLI on SIGINT, SIGTERM, exit)', async () => {
  const { opts, pids, pidfile } = setup();
  const pending = runCommand(['holder', 'wait'], opts);
  await waitFor(() => existsSync(pidfile), 'the fixture to start');
  const [leader, grandchild] = pids() as [number, number];
  assert.equal(opts.reaper.size, 1);
  opts.reaper.killAll();
  const r = await pending;
  assert.equal(r.code, 'killed');
  assert.equal(r.signal, 'SIGKILL');
  await waitFor(() => !alive(leader) && !alive(grandchild), 'both to be gone');
  assert.equal(opts.reaper.size, 0);
});

test('a ping to a dark host dies with the reaper like any other child', async () => {
  const { opts, pids, pidfile } = setup();
  const pending = runCommand(['ping', '-c', '1', '-W', '2', '192.0.2.1'], opts);
  await waitFor(() => existsSync(pidfile), 'the fake ping to start');
  const [leader, grandchild] = pids() as [number, number];
  opts.reaper.killAll('SIGTERM');
  const r = await pending;
  assert.equal(r.code, 'killed');
  assert.equal(r.signal, 'SIGTERM');
  await waitFor(() => !alive(leader) && !alive(grandchild), 'both to be gone');
});

test('createReaper: injected kill, every group by its negative pid, errors ignored', () => {
  const calls: [number, string][] = [];
  const reaper = createReaper((pid, sig) => {
    calls.push([pid, sig]);
    if (pid === -2) throw Object.assign(new Error('ESRCH'), { code: 'ESRCH' });
  });
  reaper.track(1);
  reaper.track(2);
  reaper.track(3);
  reaper.untrack(3);
  assert.equal(reaper.size, 2);
  reaper.killAll();
  reaper.killAll('SIGTERM');
  assert.deepEqual(calls, [
    [-1, 'SIGKILL'],
    [-2, 'SIGKILL'],
    [-1, 'SIGTERM'],
    [-2, 'SIGTERM'],
  ]);
});

test("a tool's escape sequences stay in the raw output; the caller cleans what it shows", async () => {
  const { opts } = setup();
  const r = await runCommand(['escapes'], opts);
  assert.equal(r.code, 'exit');
  assert.equal(r.exitCode, 2);
  assert.match(r.stderr, /\x1b\]0;pwned/);
  assert.equal(clean(firstLine(r.stderr)), 'GPU 0: fallen off the bus'); // a bare CR ends a line
  assert.equal(clean(r.stderr), 'GPU 0: fallen off the bus OK forged: all good dlrow');
});
