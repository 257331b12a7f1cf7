// The bot's probes in a process (or a thread) of their own: the same report as in-process, the events
// streamed, the children's pids handed to this side's reaper, the memory learnt here, a cancel
// honoured; a probe whose deps are not data (a shaped network) runs in-process. Real LiteLLM
// stand-in and real ping; each test for both kinds.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startGateway } from '../../drills/litellm.ts';
import { readFileSync } from 'node:fs';
import { createProbeThread, type ProbeHostKind, type ProbeThread } from '../../src/commands/probe-thread.ts';
import { runProbe, type ProbeReport, type ProbeRequest } from '../../src/commands/probe.ts';
import { Fleet } from '../../src/inventory/fleet.ts';
import { parseInventory } from '../../src/inventory/load.ts';
import { fetchTransport } from '../../src/probes/edge/transport.ts';
import { ProbeMemory } from '../../src/probes/memory.ts';
import type { RunEvent } from '../../src/probes/runner.ts';
import type { Reaper } from '../../src/probes/types.ts';

const KEY = 'sk-thread-test-0123456789';

async function lab(): Promise<{ fleet: Fleet; stop(): Promise<void> }> {
  const gateway = await startGateway({ keys: { admin: KEY }, aliases: { 'chat-ok': { mode: 'slow', delayMs: 5 }, 'chat-hang': { mode: 'hang' } } });
  const r = parseInventory(`
fleet: threadtest
settings: { probeTimeoutMs: 1500 }
gateway: { baseUrl: ${gateway.url}, keys: { admin: { env: SEAT_THREAD_KEY } } }
sites:
  lab:
    hosts: { lab-1: { address: 127.0.0.1, gpuVendor: none } }
    firewall: { address: 127.0.0.1, tcpPorts: [9] }
aliases:
  chat-ok: { kind: chat, backend: { name: local, paid: false } }
  chat-hang: { kind: chat, backend: { name: local, paid: false } }
`);
  if (!r.ok) throw new Error(r.errors.join('\n'));
  return { fleet: new Fleet(r.value), stop: () => gateway.stop() };
}

const REQ: ProbeRequest = { site: 'lab', only: ['aliases', 'power'], timeoutMs: null, paid: false };
const env = { SEAT_THREAD_KEY: KEY, PATH: process.env.PATH ?? '/usr/bin:/bin' };
const facts = (fs: { target: string; status: string; reason?: string }[]) => fs.map((f) => `${f.target} ${f.status} ${f.reason ?? ''}`).sort();

function recordingReaper(): Reaper & { seen: number[]; live: Set<number> } {
  const live = new Set<number>();
  const seen: number[] = [];
  return { seen, live, track: (pid) => (seen.push(pid), live.add(pid)), untrack: (pid) => live.delete(pid), killAll: () => {}, get size() { return live.size; } };
}

for (const kind of ['process', 'thread'] as const satisfies ProbeHostKind[]) {
test(`a probe in the ${kind} reports what the same probe in-process reports, streams its events, and hands its children to this side`, { timeout: 60_000 }, async () => {
  const { fleet, stop } = await lab();
  const thread = createProbeThread(kind);
  try {
    const events: RunEvent[] = [];
    const memory = new ProbeMemory();
    const reaper = recordingReaper();
    const report = await thread.runProbe(fleet, REQ, { env, memory, reaper, onEvent: (e) => events.push(e) });
    assert.equal(thread.threaded, 1, `it ran in the ${kind}`);
    const local = await runProbe(fleet, REQ, { env });
    assert.deepEqual(facts(report.findings), facts(local.findings));
    assert.equal(report.findings.find((f) => f.target === 'chat-hang')?.reason, 'timeout');
    assert.equal(report.verdict.status, local.verdict.status);

    assert.equal(events[0]?.type, 'start');
    const tasks = events.filter((e) => e.type === 'task');
    assert.equal(tasks.length, events[0]?.type === 'start' ? events[0].total : -1, 'one event a task');
    assert.deepEqual(facts(tasks.flatMap((e) => e.findings)), facts(report.findings), 'every finding streamed');

    assert.ok(reaper.seen.length >= 1, 'the ping child was handed to this side’s reaper');
    assert.equal(reaper.live.size, 0, 'and handed back when it ended');
    assert.ok(memory.slow.has('alias:chat-hang'), 'the memory is learnt on this side');

    // The memory goes in: the alias that hung is asked first next time.
    const again = await thread.runProbe(fleet, REQ, { env, memory });
    assert.equal(again.askedFirst, 1);
  } finally {
    await thread.close();
    await stop();
  }
});

test(`a cancel reaches the ${kind}; deps that are not data keep the probe in-process; a closed ${kind} starts again`, { timeout: 60_000 }, async () => {
  const { fleet, stop } = await lab();
  const thread = createProbeThread(kind);
  try {
    const ctl = new AbortController();
    const running = thread.runProbe(fleet, REQ, { env, signal: ctl.signal, onEvent: (e) => e.type === 'start' && setTimeout(() => ctl.abort(), 100) });
    const report = await running;
    const hung = report.findings.find((f) => f.target === 'chat-hang');
    assert.equal(hung?.reason, 'stopped', 'stopped, not timed out');

    const shaped = await thread.runProbe(fleet, REQ, { env, http: fetchTransport(fetch) });
    assert.equal(thread.threaded, 1, 'a shaped network is not data: in-process');
    assert.equal(shaped.findings.find((f) => f.target === 'chat-ok')?.status, 'up');

    // The other side gone mid-probe (a crash, a stop): the probe fails with words, the next one starts a new one.
    const cut = thread.runProbe(fleet, REQ, { env, onEvent: (e) => e.type === 'start' && void thread.close() });
    await assert.rejects(cut, new RegExp(`the probe ${kind} (ended|failed)`));
    const after = await thread.runProbe(fleet, REQ, { env });
    assert.equal(thread.threaded, 3);
    assert.equal(after.findings.find((f) => f.target === 'chat-ok')?.status, 'up');
  } finally {
    await thread.close();
    await stop();
  }
});
}

test('the probe process does not get Slack’s tokens: its environment is the bot’s without them', { timeout: 60_000 }, async () => {
  const { fleet, stop } = await lab();
  const before = { bot: process.env.SLACK_BOT_TOKEN, secret: process.env.SLACK_SIGNING_SECRET, app: process.env.SLACK_APP_TOKEN };
  process.env.SLACK_BOT_TOKEN = 'xoxb-never-in-the-probe-process';
  process.env.SLACK_SIGNING_SECRET = '0123456789abcdef0123456789abcdef';
  process.env.SLACK_APP_TOKEN = 'xapp-never-in-the-probe-process';
  process.env.SEAT_THREAD_KEY = KEY;
  const thread = createProbeThread('process');
  try {
    // Its own env (no deps.env): the gateway key comes from the process's environment, as in the bot.
    const report = await thread.runProbe(fleet, { ...REQ, only: ['aliases'] }, {});
    assert.equal(report.findings.find((f) => f.target === 'chat-ok')?.status, 'up', 'the gateway key reached it');
    const pid = thread.pid;
    assert.ok(pid !== undefined && pid !== process.pid, 'a process of its own');
    const environ = readFileSync(`/proc/${pid}/environ`, 'utf8').split('\0');
    assert.ok(environ.includes(`SEAT_THREAD_KEY=${KEY}`));
    assert.deepEqual(environ.filter((e) => e.startsWith('SLACK_')), []);
  } finally {
    await thread.close();
    await stop();
    for (const [name, v] of [['SLACK_BOT_TOKEN', before.bot], ['SLACK_SIGNING_SECRET', before.secret], ['SLACK_APP_TOKEN', before.app]] as const) {
      if (v === undefined) delete process.env[name];
      else process.env[name] = v;
    }
    delete process.env.SEAT_THREAD_KEY;
  }
});

/** A fleet whose one host is pinged with a stand-in that takes `seconds` (sh -c 'sleep N'; ping's own arguments ignored). */
function slowPingFleet(): Fleet {
  const r = parseInventory(`
fleet: slowping
settings: { probeTimeoutMs: 8000 }
gateway: { baseUrl: http://127.0.0.1:9, keys: { admin: { env: SEAT_THREAD_NO_KEY } } }
sites: { lab: { hosts: { lab-1: { address: 127.0.0.1, gpuVendor: none } } } }
aliases: {}
`);
  if (!r.ok) throw new Error(r.errors.join('\n'));
  return new Fleet(r.value);
}
const slowPing = (seconds: number): string[] => ['sh', '-c', `sleep ${seconds}`, 'ping'];
const POWER: ProbeRequest = { site: 'lab', only: ['power'], timeoutMs: null, paid: false };
const alive = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};
async function until(what: string, ok: () => boolean, ms = 5000): Promise<void> {
  const end = Date.now() + ms;
  while (!ok()) {
    if (Date.now() > end) throw new Error(`${what}: not within ${ms} ms`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** A power probe in the probe process whose ping answers after `seconds`, once that ping has started. */
async function slowPingStarted(thread: ProbeThread, seconds: number): Promise<{ probe: Promise<ProbeReport>; reaper: ReturnType<typeof recordingReaper> }> {
  const reaper = recordingReaper();
  const probe = thread.runProbe(slowPingFleet(), POWER, { env, pingCommand: slowPing(seconds), reaper });
  await until('the ping started', () => reaper.seen.length > 0);
  return { probe, reaper };
}

test('the probe process is a group of its own and lets a Ctrl-C pass: the probe in flight finishes for the bot to report', { timeout: 60_000 }, async () => {
  const thread = createProbeThread('process');
  try {
    const { probe } = await slowPingStarted(thread, 1);
    const pid = thread.pid!;
    assert.ok(alive(-pid), 'its own process group (a terminal’s Ctrl-C goes to the bot’s)');
    process.kill(pid, 'SIGINT');
    process.kill(pid, 'SIGTERM');
    const report = await probe;
    assert.equal(report.findings.find((f) => f.target === 'lab-1')?.status, 'up', 'the ping answered, after both signals');
  } finally {
    await thread.close();
  }
});

test('the probe process killed mid-probe: the probe fails with words and the children it had started are killed, not orphaned', { timeout: 60_000 }, async () => {
  const thread = createProbeThread('process');
  try {
    const { probe, reaper } = await slowPingStarted(thread, 30);
    const children = [...reaper.seen];
    assert.ok(children.every(alive));
    process.kill(thread.pid!, 'SIGKILL');
    await assert.rejects(probe, /the probe process ended/);
    await until('its children gone', () => !children.some(alive));
    assert.equal(reaper.live.size, 0);
  } finally {
    await thread.close();
  }
});

for (const kind of ['process', 'thread'] as const) {
  test(`Slack’s tokens in a probe’s own env (npm start on the drill) do not cross to the ${kind}`, { timeout: 60_000 }, async () => {
    const token = 'xoxb-must-stay-in-the-bot-0123';
    const gateway = await startGateway({ keys: { admin: token }, aliases: {} });
    const r = parseInventory(`
gateway: { baseUrl: ${gateway.url}, keys: { admin: { env: SLACK_BOT_TOKEN } } }
sites: { lab: { hosts: { lab-1: { address: 127.0.0.1, gpuVendor: none } } } }
aliases: {}
`);
    if (!r.ok) throw new Error(r.errors.join('\n'));
    const thread = createProbeThread(kind);
    try {
      const report = await thread.runProbe(new Fleet(r.value), { site: 'lab', only: ['aliases'], timeoutMs: null, paid: false }, { env: { ...env, SLACK_BOT_TOKEN: token } });
      const key = report.findings.find((f) => f.subject.kind === 'gateway' && f.subject.key === 'admin');
      assert.equal(key?.reason, 'key_unset', `the probe never held the token: ${JSON.stringify(key)}`);
    } finally {
      await thread.close();
      await gateway.stop();
    }
  });
}
