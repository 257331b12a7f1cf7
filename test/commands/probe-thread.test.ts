// The bot's probes in a thread of their own: the same report as in-process, the events streamed, the
// children's pids handed to this side's reaper, the memory learnt here, a cancel honoured; a probe
// whose deps are not data (a shaped network) runs in-process. Real LiteLLM stand-in and real ping.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startGateway } from '../../drills/litellm.ts';
import { createProbeThread } from '../../src/commands/probe-thread.ts';
import { runProbe, type ProbeRequest } from '../../src/commands/probe.ts';
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

test('a probe in the thread reports what the same probe in-process reports, streams its events, and hands its children to this side', { timeout: 60_000 }, async () => {
  const { fleet, stop } = await lab();
  const thread = createProbeThread();
  try {
    const events: RunEvent[] = [];
    const memory = new ProbeMemory();
    const reaper = recordingReaper();
    const report = await thread.runProbe(fleet, REQ, { env, memory, reaper, onEvent: (e) => events.push(e) });
    assert.equal(thread.threaded, 1, 'it ran in the thread');
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

test('a cancel reaches the thread; deps that are not data keep the probe in-process; a closed thread starts again', { timeout: 60_000 }, async () => {
  const { fleet, stop } = await lab();
  const thread = createProbeThread();
  try {
    const ctl = new AbortController();
    const running = thread.runProbe(fleet, REQ, { env, signal: ctl.signal, onEvent: (e) => e.type === 'start' && setTimeout(() => ctl.abort(), 100) });
    const report = await running;
    const hung = report.findings.find((f) => f.target === 'chat-hang');
    assert.equal(hung?.reason, 'stopped', 'stopped, not timed out');

    const shaped = await thread.runProbe(fleet, REQ, { env, http: fetchTransport(fetch) });
    assert.equal(thread.threaded, 1, 'a shaped network is not data: in-process');
    assert.equal(shaped.findings.find((f) => f.target === 'chat-ok')?.status, 'up');

    // The thread gone mid-probe (a crash, a stop): the probe fails with words, the next one starts a new thread.
    const cut = thread.runProbe(fleet, REQ, { env, onEvent: (e) => e.type === 'start' && void thread.close() });
    await assert.rejects(cut, /the probe thread (ended|failed)/);
    const after = await thread.runProbe(fleet, REQ, { env });
    assert.equal(thread.threaded, 3);
    assert.equal(after.findings.find((f) => f.target === 'chat-ok')?.status, 'up');
  } finally {
    await thread.close();
    await stop();
  }
});
