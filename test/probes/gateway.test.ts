// The alias probe against the drill fleet's LiteLLM and vLLM stand-ins on loopback.
import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { parseInventory } from '../../src/inventory/load.ts';
import { Fleet } from '../../src/inventory/fleet.ts';
import { planGatewayTasks } from '../../src/probes/gateway.ts';
import { runTasks } from '../../src/probes/runner.ts';
import { decide, summarize } from '../../src/diagnose/verdict.ts';
import type { Finding, ProbeEnv, ProbeTask } from '../../src/probes/types.ts';
import { startDrillFleet, type DrillFleet, type DrillScenario } from '../../drills/litellm.ts';
import { testProbeEnv } from '../helpers/probe-env.ts';

const loaded = parseInventory(await readFile(new URL('../../drills/fleet.yaml', import.meta.url), 'utf8'));
if (!loaded.ok) throw new Error(loaded.errors.join('\n'));
const inventoryFleet = new Fleet(loaded.value);
// A regression that loses a timeout fails the test instead of hanging the suite.
const LIMIT = { timeout: 15_000 };
const PAID = [...inventoryFleet.aliases.values()].filter((a) => a.paid).map((a) => a.name);

async function drill(t: TestContext, scenario?: DrillScenario): Promise<DrillFleet> {
  const d = await startDrillFleet(inventoryFleet, scenario, { ephemeralPorts: true, env: {} });
  t.after(() => d.stop());
  return d;
}

function probeEnv(env: NodeJS.ProcessEnv, o: Partial<ProbeEnv> = {}): ProbeEnv {
  // Generous: an answer that comes is judged on what it says, however busy the machine (hangs set their own).
  return testProbeEnv({ env, timeoutMs: 10_000, ...o });
}

async function runAll(tasks: ProbeTask[]): Promise<Finding[]> {
  return (await Promise.all(tasks.map((t) => t.run(new AbortController().signal)))).flat();
}

async function probe(d: DrillFleet, o: Partial<ProbeEnv> = {}, sites = ['ana'], env: NodeJS.ProcessEnv = d.env): Promise<Finding[]> {
  return runAll(planGatewayTasks(d.fleet, { sites }, probeEnv(env, o)));
}

function one(findings: Finding[], probe: Finding['probe'], target: string): Finding {
  const f = findings.filter((x) => x.probe === probe && x.target === target);
  assert.equal(f.length, 1, `one ${probe} finding for ${target}, got ${f.length}`);
  return f[0]!;
}

function secret(d: DrillFleet, key: string): string {
  const v = d.keys[key];
  assert.ok(v && v.length > 8, `the drill has a ${key} key`);
  return v;
}

const aliases = (findings: Finding[]): Finding[] => findings.filter((f) => f.probe === 'alias');
const statusOf = (findings: Finding[]): Record<string, number> =>
  aliases(findings).reduce<Record<string, number>>((acc, f) => ((acc[f.status] = (acc[f.status] ?? 0) + 1), acc), {});

test('seed 000: qwen3-embed’s 500 is put on its OOM-crashed seat, not on the gateway', LIMIT, async (t) => {
  const d = await drill(t);
  const findings = await probe(d);
  const q = one(findings, 'alias', 'qwen3-embed');
  assert.equal(q.status, 'down');
  assert.match(q.detail, /^HTTP 500 through the gateway: litellm\.InternalServerError: Hosted_vllmException - EngineCore encountered an issue/);
  assert.ok(q.detail.endsWith('; gateway OK, backend vllm-embed@ana-ml2 /health 503 → the backend is down, not the gateway'), q.detail);
  assert.match(q.measuredBy, /^POST http:\/\/127\.0\.0\.1:\d+\/v1\/embeddings input="ping" \(admin, shared keys\); GET http:\/\/127\.0\.2\.20:\d+\/health$/);
  assert.equal(one(findings, 'gateway', 'gateway (admin key)').status, 'up');
  assert.equal(one(findings, 'gateway', 'gateway (admin key)').detail, '30 models listed');
  assert.equal(one(findings, 'gateway', 'gateway (shared key)').detail, '29 models listed');

  const seat = one(findings, 'seat', 'vllm-embed@ana-ml2');
  assert.equal(seat.status, 'down');
  assert.match(seat.detail, /^\/health 503/);
  assert.deepEqual(seat.data?.kind === 'seat' && seat.data.health.httpStatus, 503);
  assert.equal(findings.filter((f) => f.probe === 'seat').length, 3, 'seats only at the scope’s site (ana)');

  const large = one(findings, 'alias', 'gen-large');
  assert.equal(large.status, 'degraded');
  assert.match(large.detail, /registered for admin, not for shared/);
  assert.deepEqual(large.data?.kind === 'alias' && large.data.keys.map((k) => [k.key, k.registered]), [['admin', true], ['shared', false]]);

  // Every alias counted, fleet-wide, though the probe was for one site.
  assert.equal(aliases(findings).length, 30);
  assert.deepEqual(statusOf(findings), { up: 28, down: 1, degraded: 1 });
  const verdict = decide(['ana'], summarize(d.fleet, findings, ['ana']));
  assert.equal(verdict.runbook, 'backend-down');
});

test('each alias gets the smallest real request once per key: one chat token, one short embedding input', LIMIT, async (t) => {
  const d = await drill(t);
  await probe(d);
  const gen = d.gateway.requests.filter((r) => r.model === 'gen');
  assert.deepEqual(gen.map((r) => r.key).sort(), ['admin', 'shared']);
  assert.deepEqual(gen[0]?.body, { model: 'gen', messages: [{ role: 'user', content: 'ping' }], max_tokens: 1 });
  const embed = d.gateway.requests.filter((r) => r.model === 'embed');
  assert.deepEqual(embed.map((r) => r.path), ['/v1/embeddings', '/v1/embeddings']);
  assert.deepEqual(embed[0]?.body, { model: 'embed', input: 'ping' });
  assert.equal(d.gateway.requests.filter((r) => r.path === '/v1/models').length, 2, 'one listing per key for the whole run');
  const routed = new Set([...d.fleet.aliases.values()].flatMap((a) => a.seats.map((s) => s.name)));
  for (const [name, seat] of d.seats) {
    const asked = seat.requests.filter((r) => r.path === '/health').length;
    assert.equal(asked, routed.has(name) || d.fleet.seats.get(name)?.host.site === 'ana' ? 1 : 0, `${name} asked ${asked} times`);
  }
});

test('paid aliases are listed but never called without --paid, and called once per key with it', LIMIT, async (t) => {
  const d = await drill(t);
  const findings = await probe(d);
  assert.equal(d.gateway.requests.filter((r) => r.model !== null && PAID.includes(r.model)).length, 0, 'no billable request');
  assert.equal(one(findings, 'alias', 'paid-gen').status, 'up');
  assert.equal(one(findings, 'alias', 'paid-gen').detail, 'listed for admin, shared; not called (paid backend openrouter; --paid to exercise)');

  const before = d.gateway.requests.length;
  const paid = await probe(d, { paid: true });
  const calls = d.gateway.requests.slice(before).filter((r) => r.model === 'paid-gen');
  assert.deepEqual(calls.map((r) => r.key).sort(), ['admin', 'shared']);
  assert.equal(one(paid, 'alias', 'paid-gen').detail, 'chat ok for admin, shared (paid backend openrouter, called with --paid)');
  assert.equal(d.gateway.requests.slice(before).filter((r) => r.model === 'paid-embed' && r.path === '/v1/embeddings').length, 2);
});

test('a slow alias is up, and its latency says how slow', LIMIT, async (t) => {
  const d = await drill(t);
  d.gateway.set('gen', { mode: 'slow', delayMs: 300 });
  const gen = one(await probe(d), 'alias', 'gen');
  assert.equal(gen.status, 'up');
  assert.equal(gen.detail, 'chat ok for admin, shared');
  assert.ok(gen.latencyMs !== null && gen.latencyMs >= 300 && gen.latencyMs < 1500, `latency ${gen.latencyMs}`);
});

test('a 500 with a healthy backend is the gateway’s fault; a stopped gateway reads differently', LIMIT, async (t) => {
  const d = await drill(t);
  d.gateway.set('gen', { mode: 'error' });
  const first = await probe(d);
  const fault = one(first, 'alias', 'gen');
  assert.equal(fault.status, 'down');
  assert.equal(fault.detail, 'HTTP 500 through the gateway: litellm.InternalServerError: OpenAIException - Connection error.; backend gen@fv-ml1 answers /health 200 → gateway-side fault');

  await d.gateway.stop();
  const second = await probe(d);
  const down = one(second, 'alias', 'gen');
  assert.equal(down.status, 'down');
  assert.equal(down.detail, 'gateway unreachable (ECONNREFUSED) — the backend answers directly (gen@fv-ml1 /health 200)');
  assert.notEqual(down.detail, fault.detail);
  const key = one(second, 'gateway', 'gateway (admin key)');
  assert.equal(key.status, 'down');
  assert.equal(key.detail, `gateway unreachable at ${d.fleet.inventory.gateway.baseUrl}: ECONNREFUSED`);
  assert.equal(aliases(second).filter((f) => f.status === 'down').length, 30);
  assert.equal(decide(['ana'], summarize(d.fleet, second, ['ana'])).runbook, 'gateway-down');
});

test('seed 002: fv-ml1 dark behind a working gateway — 19 aliases down on the backend, not the gateway', LIMIT, async (t) => {
  const fvSeats = inventoryFleet.seatsAt('fv').map((s) => s.name);
  const d = await drill(t, { seatsDown: fvSeats });
  const findings = await probe(d, {}, ['fv']);
  const summary = summarize(d.fleet, findings);
  assert.equal(summary.aliases.down, 19);
  assert.deepEqual(summary.aliases.downByRoute.map((r) => r.route), ['fv-ml1']);
  const gen = one(findings, 'alias', 'gen');
  assert.match(gen.detail, /; gateway OK, backend gen@fv-ml1 unreachable \(ECONNREFUSED\) → the backend is down, not the gateway$/);
  const seat = one(findings, 'seat', 'gen@fv-ml1');
  assert.equal(seat.status, 'down');
  assert.match(seat.detail, /^unreachable at http:\/\/127\.0\.1\.10:\d+: ECONNREFUSED$/);
  assert.equal(one(findings, 'gateway', 'gateway (shared key)').status, 'up');
});

test('a rejected key is named and its value never shown', LIMIT, async (t) => {
  const d = await drill(t);
  const wrong = 'sk-wrong-key-value-QzWx';
  const findings = await probe(d, {}, ['ana'], { ...d.env, LITELLM_SHARED_KEY: wrong });
  const key = one(findings, 'gateway', 'gateway (shared key)');
  assert.equal(key.status, 'down');
  assert.match(key.detail, /^key rejected \(HTTP 401: Authentication Error, Invalid proxy server token passed\./);
  const gen = one(findings, 'alias', 'gen');
  assert.equal(gen.status, 'degraded');
  assert.equal(gen.detail, 'chat ok for admin; key rejected (HTTP 401) for shared');
  const text = JSON.stringify(findings);
  assert.ok(!text.includes(wrong), 'the bad key is not in any finding');
  assert.ok(!text.includes('QzWx'), 'not even the tail LiteLLM echoes back (letters: a port number can hold any four digits)');
  assert.ok(!text.includes(secret(d, 'admin')), 'nor the good key');
  assert.ok(d.gateway.requests.every((r) => r.model === null || r.key !== null), 'no request sent with a key the listing rejected');
});

test('a gateway that echoes a whole key in an error body does not get it into a finding', LIMIT, async (t) => {
  const d = await drill(t);
  d.gateway.set('gen', { mode: 'error', status: 502, body: { error: { message: `upstream refused ${d.keys.admin} and ${d.keys.shared}`, code: '502' } } });
  const findings = await probe(d);
  const gen = one(findings, 'alias', 'gen');
  assert.match(gen.detail, /^HTTP 502 through the gateway: upstream refused \[redacted\] and \[redacted\]/);
  const text = JSON.stringify(findings);
  for (const secret of Object.values(d.keys)) assert.ok(!text.includes(secret));
  for (const task of planGatewayTasks(d.fleet, { sites: ['ana'] }, probeEnv(d.env))) {
    assert.ok(!JSON.stringify(task.onTimeout(1000)).includes(secret(d, 'admin')));
  }
});

test('a key variable that is not set is named, without any value, and that key is not measured', LIMIT, async (t) => {
  const d = await drill(t);
  const findings = await probe(d, {}, ['ana'], { LITELLM_ADMIN_KEY: d.keys.admin });
  const key = one(findings, 'gateway', 'gateway (shared key)');
  assert.equal(key.status, 'unknown');
  assert.equal(key.detail, 'LITELLM_SHARED_KEY is not set');
  const gen = one(findings, 'alias', 'gen');
  assert.equal(gen.status, 'up');
  assert.equal(gen.detail, 'chat ok for admin; shared not measured (LITELLM_SHARED_KEY is not set)');
  assert.equal(d.gateway.requests.filter((r) => r.key === 'shared').length, 0);
  assert.ok(!JSON.stringify(findings).includes(secret(d, 'shared')));
});

test('an alias the gateway lists but the inventory lacks is reported, not exercised', LIMIT, async (t) => {
  const d = await drill(t);
  d.gateway.set('stray-model', { mode: 'ok', keys: ['admin'] });
  const findings = await probe(d);
  const stray = one(findings, 'alias', 'stray-model');
  assert.equal(stray.status, 'unknown');
  assert.match(stray.detail, /^listed by the gateway but not in the inventory; not exercised/);
  assert.equal(d.gateway.requests.filter((r) => r.model === 'stray-model').length, 0);
  assert.equal(aliases(findings).length, 31);
});

test('an inventory alias the gateway lists for no key is down', LIMIT, async (t) => {
  const d = await drill(t);
  d.gateway.remove('coder');
  const coder = one(await probe(d), 'alias', 'coder');
  assert.equal(coder.status, 'down');
  assert.equal(coder.detail, 'not registered for admin, shared: the gateway does not list it');
});

test('a hanging alias costs its timeout and does not hold back the others (through the runner)', LIMIT, async (t) => {
  const d = await drill(t);
  d.gateway.set('coder', { mode: 'hang' });
  const timeoutMs = 1000;
  const tasks = planGatewayTasks(d.fleet, { sites: ['ana'] }, probeEnv(d.env, { timeoutMs }));
  const finishedAt = new Map<string, number>();
  const t0 = performance.now();
  const result = await runTasks(tasks, {
    concurrency: 64,
    deadlineMs: 10_000,
    onEvent: (e) => {
      if (e.type === 'task') finishedAt.set(e.task.target, performance.now() - t0);
    },
  });
  const coderAt = finishedAt.get('coder')!;
  assert.ok(coderAt >= timeoutMs - 50 && coderAt < timeoutMs + 1000, `coder ended at ${coderAt} ms`);
  assert.ok(finishedAt.get('gen')! < 800, `gen ended at ${finishedAt.get('gen')} ms, not held back`);
  const coder = one(result.findings, 'alias', 'coder');
  assert.equal(coder.status, 'down');
  assert.equal(coder.detail, 'no answer through the gateway within 1000 ms; backend coder@fv-ml1 answers /health 200 → gateway-side fault');
  assert.deepEqual(result.timedOut, [], 'the task’s own finding (with attribution) beat the runner’s hard stop');
});

test('3 of 30 aliases hanging: all alias tasks together end within one timeout', LIMIT, async (t) => {
  const d = await drill(t);
  const hung = ['gen', 'summarizer', 'qwen3-rerank'];
  for (const a of hung) d.gateway.set(a, { mode: 'hang' });
  const tasks = planGatewayTasks(d.fleet, { sites: ['fv', 'ana', 'irv'] }, probeEnv(d.env, { timeoutMs: 1000 })).filter((x) => x.probe === 'alias');
  assert.equal(tasks.length, 30);
  const t0 = performance.now();
  const findings = await runAll(tasks);
  const elapsed = performance.now() - t0;
  assert.ok(elapsed < 2500, `30 alias tasks took ${elapsed} ms`);
  for (const a of hung) {
    const f = one(findings, 'alias', a);
    assert.equal(f.status, 'down');
    assert.match(f.detail, /^no answer through the gateway within 1000 ms; backend \S+ answers \/health 200 → gateway-side fault$/);
  }
  assert.deepEqual(statusOf(findings), { up: 25, down: 4, degraded: 1 });
});

test('a backend that hangs is named as the one not answering', LIMIT, async (t) => {
  const d = await drill(t, { seats: { 'rerank-ana': { health: 'hang' } } });
  const findings = await probe(d, { timeoutMs: 800 });
  const r = one(findings, 'alias', 'qwen3-rerank');
  assert.equal(r.status, 'down');
  assert.match(r.detail, /gateway OK, backend rerank-ana@ana-ml2 gave no \/health answer within 800 ms → the backend is down, not the gateway$/);
  assert.equal(one(findings, 'seat', 'rerank-ana@ana-ml2').detail, `no answer from ${d.fleet.seats.get('rerank-ana')!.url}/health within 800 ms`);
});

test('the runner’s stop reaches every request: nothing keeps running after an abort', LIMIT, async (t) => {
  const d = await drill(t);
  d.gateway.set('gen', { mode: 'hang' });
  const [task] = planGatewayTasks(d.fleet, { sites: [] }, probeEnv(d.env, { timeoutMs: 5000 })).filter((x) => x.target === 'gen');
  const ctl = new AbortController();
  const t0 = performance.now();
  const running = task!.run(ctl.signal);
  setTimeout(() => ctl.abort(), 100);
  const [f] = await running;
  assert.ok(performance.now() - t0 < 1000, 'an abort ends the task at once, not at its 5 s timeout');
  assert.match(f!.detail, /stopped through the gateway/);
});

test('an alias measured in one turn and worded in a later one (a big fleet) is the same finding, observed when measured', LIMIT, async (t) => {
  const d = await drill(t);
  let now = Date.parse('2026-12-03T03:00:00.000Z');
  const tasks = planGatewayTasks(d.fleet, { sites: ['ana'] }, probeEnv(d.env, { clock: () => new Date(now) }));
  const alias = tasks.find((x) => x.probe === 'alias' && x.target === 'qwen3-embed')!;
  assert.ok(alias.measure, 'alias tasks measure and word apart');
  const judge = await alias.measure(new AbortController().signal);
  const measuredAt = new Date(now).toISOString();
  now += 2500; // worded 2.5 s later, as the runner does once the whole fleet is asked
  const [late] = judge();
  now -= 2500;
  const [direct] = await alias.run(new AbortController().signal);
  assert.equal(late!.observedAt, measuredAt);
  assert.deepEqual({ ...late!, latencyMs: 0, data: { ...late!.data, keys: [] } }, { ...direct!, latencyMs: 0, data: { ...direct!.data, keys: [] } });
  assert.equal(late!.status, 'down', 'the seed-000 alias: its seat crashed');
});
