// A fleet's size changes no finding: three hanging aliases (first, in the middle, last) are down by
// their own timeout at 10,000 aliases as at 30, because the overall deadline follows from the plan
// instead of being a constant a big fleet outruns. The gateway is an in-process stand-in (a transport
// answering at once), so the run is quick; nothing here is timed.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ProbeMemory } from '../../src/probes/memory.ts';
import { Fleet } from '../../src/inventory/fleet.ts';
import { parseInventory } from '../../src/inventory/load.ts';
import { planProbe, runProbe } from '../../src/commands/probe.ts';
import { planDeadline } from '../../src/probes/runner.ts';
import type { HttpAnswer, HttpTransport } from '../../src/probes/edge/transport.ts';

const KEY = 'sk-scale-test-0123456789';
const TIMEOUT_MS = 1000;

function fleetOf(n: number): { fleet: Fleet; names: string[]; hanging: Set<string> } {
  const names = Array.from({ length: n }, (_, i) => `a${String(i).padStart(5, '0')}`);
  const hanging = new Set([names[0]!, names[Math.floor(n / 2)]!, names[n - 1]!]);
  // A deadline setting far below what 10,000 aliases need: the plan must raise it.
  const r = parseInventory(`
settings: { probeTimeoutMs: ${TIMEOUT_MS}, deadlineMs: 100, concurrency: 128 }
gateway: { baseUrl: http://127.0.0.1:9, keys: { admin: { env: SEAT_SCALE_KEY } } }
sites: { fv: { hosts: { fv-ml1: { address: 127.0.0.1, gpuVendor: none } } } }
aliases:
${names.map((a) => `  ${a}: { kind: chat, backend: { name: local, paid: false } }`).join('\n')}
`);
  if (!r.ok) throw new Error(r.errors.join('\n'));
  return { fleet: new Fleet(r.value), names, hanging };
}

/** LiteLLM's answers at once; a hanging alias never answers and fails only when its caller gives up. */
function standIn(names: string[], hanging: Set<string>): HttpTransport {
  const listing = Buffer.from(JSON.stringify({ data: names.map((id) => ({ id, object: 'model' })) }));
  const answer = (body: Buffer): HttpAnswer => {
    let sent = false;
    return {
      status: 200,
      header: (name) => (name === 'content-length' ? String(body.length) : null),
      read: () => {
        const chunk = sent ? null : body;
        sent = true;
        return Promise.resolve(chunk);
      },
      cancel: () => {},
    };
  };
  return (url, call) => {
    if (url.endsWith('/v1/models')) return Promise.resolve(answer(listing));
    const model = (JSON.parse(call.body ?? '{}') as { model: string }).model;
    if (hanging.has(model)) {
      return new Promise((_resolve, reject) => call.signal.addEventListener('abort', () => reject(Object.assign(new Error('aborted'), { name: 'AbortError' })), { once: true }));
    }
    return Promise.resolve(answer(Buffer.from(JSON.stringify({ object: 'chat.completion', model, choices: [{ index: 0, message: { role: 'assistant', content: 'p' } }] }))));
  };
}

for (const n of [30, 10_000]) {
  test(`${n.toLocaleString('en-US')} aliases: the hanging ones are down by their own timeout, every other one is up`, async () => {
    const { fleet, names, hanging } = fleetOf(n);
    const req = { site: 'fv', only: ['aliases' as const], timeoutMs: null, paid: false };
    const deps = { env: { SEAT_SCALE_KEY: KEY }, http: standIn(names, hanging) };
    const plan = planProbe(fleet, req, deps);
    assert.equal(plan.deadlineMs, Math.max(100, planDeadline(plan.tasks, 128)), 'the deadline follows from the plan');

    const report = await runProbe(fleet, req, deps);
    const aliases = report.findings.filter((f) => f.subject.kind === 'alias' && f.subject.inInventory);
    assert.equal(aliases.length, n);
    for (const f of aliases) {
      if (hanging.has(f.target)) {
        assert.equal(f.status, 'down', `${f.target} hangs`);
        assert.equal(f.reason, 'timeout', `${f.target}: its own timeout, not the deadline (${f.detail})`);
      } else if (f.status !== 'up') {
        assert.fail(`${f.target} answered but reads ${f.status}/${f.reason}: ${f.detail}`);
      }
    }
  });
}

test('a target that cost its timeout last time starts first this time (after the vital ones): its clock is not queued', () => {
  const { fleet, names } = fleetOf(300);
  const req = { site: 'fv', only: ['aliases' as const], timeoutMs: null, paid: false };
  const cold = planProbe(fleet, req, { env: {} }).tasks.map((t) => t.id);
  assert.equal(cold[0], 'gateway:admin', 'the listing every alias awaits goes first');
  assert.ok(cold.indexOf(`alias:${names[299]}`) > 200, 'cold, the last alias of the inventory is among the last to start');

  const hung = planProbe(fleet, req, { env: {} }).tasks.find((t) => t.id === `alias:${names[299]}`)!;
  const previous = hung.onTimeout(TIMEOUT_MS);
  assert.equal(previous[0]?.reason, 'timeout');
  const warm = planProbe(fleet, req, { env: {}, memory: ProbeMemory.of(previous) }).tasks.map((t) => t.id);
  assert.deepEqual(warm.slice(0, 3), ['gateway:admin', 'gateway:outside-inventory', `alias:${names[299]}`]);
  assert.equal(new Set(warm).size, cold.length);
});

test('start-up is spent of every target timeout, never more than half of it', () => {
  const { fleet } = fleetOf(30);
  const req = { site: 'fv', only: ['aliases' as const], timeoutMs: null, paid: false };
  const at = (now: number) => planProbe(fleet, req, { env: {}, origin: 0, monotonic: () => now });
  assert.equal(at(400).env.timeoutMs, TIMEOUT_MS - 400, 'a target waits the timeout less the 400 ms the command took to start');
  assert.equal(at(400).startupMs, 400);
  assert.equal(at(400).timeoutMs, TIMEOUT_MS, 'the timeout asked for is kept for the report');
  assert.equal(at(900).env.timeoutMs, TIMEOUT_MS / 2, 'however slow the start, a target gets half its timeout');
  const asked = planProbe(fleet, req, { env: {} });
  assert.equal(asked.env.timeoutMs, TIMEOUT_MS, 'no origin (the bot, a step): the probe began as it was asked');
  assert.equal(asked.startupMs, 0);
});
