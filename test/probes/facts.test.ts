// The facts a finding carries (status, reason, data), through the real planners against the drill
// stand-ins and fixture executables: what the diagnosis and a person reading the report rely on.
import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { parseInventory } from '../../src/inventory/load.ts';
import { Fleet } from '../../src/inventory/fleet.ts';
import { planGatewayTasks } from '../../src/probes/gateway.ts';
import { planGpuTasks } from '../../src/probes/gpu.ts';
import { exitCodeFor, runProbe } from '../../src/commands/probe.ts';
import { crossCheck, decide, summarize } from '../../src/diagnose/verdict.ts';
import type { Finding, GpuMemory, ProbeEnv } from '../../src/probes/types.ts';
import { SEED_000, startDrillFleet, startGateway, type DrillFleet, type DrillScenario } from '../../drills/litellm.ts';
import { get, post } from '../drills/fetch.ts';
import { aliasData, one, runAll, testProbeEnv } from '../helpers/probe-env.ts';

const LIMIT = { timeout: 20_000 };
const FIXTURES = fileURLToPath(new URL('../fixtures/gpu/', import.meta.url));
const DRILL_YAML = await readFile(new URL('../../drills/fleet.yaml', import.meta.url), 'utf8');

function fleetOf(yaml: string): Fleet {
  const r = parseInventory(yaml);
  if (!r.ok) assert.fail(r.errors.join('\n'));
  return new Fleet(r.value);
}

async function drill(t: TestContext, scenario: DrillScenario, yaml = DRILL_YAML): Promise<DrillFleet> {
  const d = await startDrillFleet(fleetOf(yaml), scenario, { ephemeralPorts: true, env: {} });
  t.after(() => d.stop());
  return d;
}

function gatewayProbe(d: DrillFleet, o: Partial<ProbeEnv> = {}): Promise<Finding[]> {
  return runAll(planGatewayTasks(d.fleet, { sites: ['fv'] }, testProbeEnv({ env: d.env, ...o })));
}

function gpuOf(f: Finding | undefined): GpuMemory {
  assert.equal(f?.data.kind, 'gpu', `finding ${f?.target} carries GPU data`);
  if (f?.data.kind !== 'gpu') throw new Error('unreachable');
  return f.data.gpu;
}

const CHAT = { model: 'gen', messages: [{ role: 'user', content: 'ping' }], max_tokens: 1 };

test('a seat that answers /health 200 but fails every request: gen is down on its backend, not on the gateway', LIMIT, async (t) => {
  const d = await drill(t, { ...SEED_000, seats: { ...SEED_000.seats, gen: { mode: 'healthy-but-failing' } } });
  // The problem as the stand-ins serve it: healthy to /health, failing to work, the gateway's 500 naming it.
  const seatUrl = d.fleet.seats.get('gen')!.url;
  assert.equal((await get(`${seatUrl}/health`)).status, 200);
  assert.equal((await post(`${d.fleet.inventory.gateway.baseUrl}/v1/chat/completions`, d.keys.shared!, CHAT)).status, 500);

  const findings = await gatewayProbe(d);
  const gen = one(findings, 'alias', 'gen');
  assert.equal(gen.status, 'down');
  assert.equal(gen.reason, 'backend_failing');
  assert.equal(aliasData(gen).attribution, 'backend-failing');
  assert.equal(aliasData(gen).exercised, true);
  assert.match(aliasData(gen).backendError ?? '', /CUDA out of memory/);
  assert.doesNotMatch(gen.detail, /gateway-side/);
  assert.match(gen.detail, /^HTTP 500 through the gateway: litellm\.InternalServerError: Hosted_vllmException - CUDA out of memory/);
  assert.match(gen.detail, /backend gen@fv-ml1 answers \/health 200 but fails requests/);
  // gen-fast rides the same seat: the same judgement, not a guess per alias.
  assert.equal(one(findings, 'alias', 'gen-fast').reason, 'backend_failing');
  // The seat's own check still passes: that is exactly why /health alone never tells.
  assert.equal(one(findings, 'seat', 'gen@fv-ml1').status, 'up');
  // Another alias on a healthy seat of the same host is untouched.
  assert.equal(one(findings, 'alias', 'coder').status, 'up');
});

test('a traceback whose first line names nobody, with CUDA out of memory further down, is still the backend failing', LIMIT, async (t) => {
  const d = await drill(t, SEED_000);
  const message = 'Traceback (most recent call last):\n  File "/opt/vllm/engine.py", line 212, in step\ntorch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB';
  d.gateway.set('gen', { mode: 'error', status: 500, body: { error: { message, code: '500' } } });
  const gen = one(await gatewayProbe(d), 'alias', 'gen');
  assert.match(gen.detail, /^HTTP 500 through the gateway: Traceback \(most recent call last\):/, 'the line shown is the first');
  assert.equal(gen.reason, 'backend_failing', gen.detail);
  assert.equal(aliasData(gen).attribution, 'backend-failing');
});

test('an alias meant for admin only (aliases.<a>.keys) is up when only admin lists it; one meant for both stays degraded', LIMIT, async (t) => {
  const yaml = DRILL_YAML.replace('gen-large:    { kind: chat, seats: [flash-next] }', 'gen-large:    { kind: chat, seats: [flash-next], keys: [admin] }');
  assert.notEqual(yaml, DRILL_YAML, 'the inventory says gen-large is for admin only');
  // SEED_000 registers gen-large for admin only; coder too, though the inventory means it for both keys.
  const d = await drill(t, { ...SEED_000, aliases: { ...SEED_000.aliases, coder: { keys: ['admin'] } } }, yaml);
  const sharedList = (await get(`${d.fleet.inventory.gateway.baseUrl}/v1/models`, d.keys.shared!)).body as { data: { id: string }[] };
  assert.ok(!sharedList.data.some((m) => m.id === 'gen-large' || m.id === 'coder'), 'the shared key lists neither');

  const findings = await gatewayProbe(d);
  const large = one(findings, 'alias', 'gen-large');
  assert.equal(large.status, 'up', large.detail);
  assert.equal(large.reason, undefined);
  assert.deepEqual(
    aliasData(large).keys.map((k) => [k.key, k.intended, k.outcome, k.registered]),
    [
      ['admin', true, 'ok', true],
      ['shared', false, 'not-intended', false],
    ],
  );
  assert.match(large.detail, /^chat ok for admin; not meant for shared$/);

  const coder = one(findings, 'alias', 'coder');
  assert.equal(coder.status, 'degraded');
  assert.equal(coder.reason, 'not_registered');
  assert.deepEqual(
    aliasData(coder).keys.map((k) => [k.key, k.intended, k.outcome]),
    [
      ['admin', true, 'ok'],
      ['shared', true, 'not-registered'],
    ],
  );
  assert.match(coder.detail, /registered for admin, not for shared/);
});

test('a paid alias only listed (no --paid) is up, not exercised, and a fleet of only that alias exits 0', LIMIT, async (t) => {
  const keys = { admin: 'sk-paid-admin-00000000000000001', shared: 'sk-paid-shared-0000000000000002' };
  const gw = await startGateway({ keys, aliases: { 'paid-gen': { mode: 'ok', kind: 'chat' } } });
  t.after(() => gw.stop());
  const fleet = fleetOf(`
gateway: { baseUrl: ${gw.url}, keys: { admin: { env: SEAT_T_ADMIN }, shared: { env: SEAT_T_SHARED } } }
sites: { lab: { hosts: {} } }
aliases:
  paid-gen: { kind: chat, backend: { name: openrouter, paid: true }, optIn: true }
`);
  const report = await runProbe(fleet, { site: 'lab', only: ['aliases'], timeoutMs: 3000, paid: false }, { env: { SEAT_T_ADMIN: keys.admin, SEAT_T_SHARED: keys.shared } });
  // Both keys did list it: it was there to be called.
  assert.equal(gw.requests.filter((r) => r.path === '/v1/models').length, 2);
  assert.equal(gw.requests.filter((r) => r.model === 'paid-gen').length, 0, 'no billable request without --paid');

  const paid = one(report.findings, 'alias', 'paid-gen');
  assert.equal(paid.status, 'up');
  assert.equal(aliasData(paid).exercised, false);
  assert.equal(aliasData(paid).paid, true);
  assert.deepEqual(aliasData(paid).keys.map((k) => k.outcome), ['listed-only', 'listed-only']);
  assert.match(paid.detail, /not called .*--paid to exercise/);
  assert.deepEqual(report.findings.map((f) => [f.target, f.status]), [
    ['gateway (admin key)', 'up'],
    ['gateway (shared key)', 'up'],
    ['paid-gen', 'up'],
  ]);
  assert.equal(exitCodeFor(report), 0);
  assert.equal(report.verdict.status, 'ok');
});

const GPU_INVENTORY = `
gateway: { baseUrl: http://127.0.0.1:14000, keys: { admin: { env: LITELLM_ADMIN_KEY } } }
sites:
  lab:
    hosts:
      lab-gpu: { address: 127.0.0.1, ssh: local, gpus: [{ index: 0 }, { index: 1 }] }
seats:
  alpha: { host: lab-gpu, gpus: [0], port: 8000, gpuMemoryUtilization: 0.45, process: alpha-seat }
  beta:  { host: lab-gpu, gpus: [0], port: 8001, gpuMemoryUtilization: 0.30, process: beta-seat }
  idle:  { host: lab-gpu, gpus: [1], port: 8002, gpuMemoryUtilization: 0.50, process: idle-seat }
`;

test('GPU: a pattern matching no process on a shared card is "?" with its reason, never 0 MiB; a budget on an empty card is an engine not running', LIMIT, async () => {
  const env = testProbeEnv({ env: { PATH: process.env.PATH ?? '/usr/bin:/bin' }, pathPrefix: [FIXTURES + 'no-match'], timeoutMs: 5000 });
  const tasks = planGpuTasks(fleetOf(GPU_INVENTORY), { sites: ['lab'] }, env);
  assert.equal(tasks.length, 1);
  const findings = await runAll(tasks);
  assert.deepEqual(findings.map((f) => [f.target, f.subject.kind, f.status, f.reason]), [
    ['lab-gpu GPU0', 'gpu', 'up', undefined],
    ['lab-gpu GPU1', 'gpu', 'up', undefined],
    ['idle@lab-gpu GPU1', 'seat', 'down', 'engine_not_running'],
  ]);

  const g0 = gpuOf(findings[0]);
  // The card has two processes; beta's pattern names neither.
  assert.equal(g0.processes.length, 2);
  assert.ok(!g0.processes.some((p) => p.name.includes('beta-seat')));
  const beta = g0.seats.find((s) => s.seat === 'beta');
  assert.equal(beta?.measuredMiB, null);
  assert.equal(beta?.unmeasuredWhy, 'no_match');
  assert.equal(g0.seats.find((s) => s.seat === 'alpha')?.measuredMiB, 41_210);
  assert.match(findings[0]!.detail, /beta declared 29,366 \/ measured \? \(no process matches its pattern\)/);
  assert.doesNotMatch(findings[0]!.detail, /beta declared [^,]*measured 0 MiB/);
  assert.doesNotMatch(findings[0]!.detail, /measured 0 MiB/);

  const engine = findings[2]!;
  assert.deepEqual(engine.subject, { kind: 'seat', name: 'idle', host: 'lab-gpu' });
  assert.deepEqual(engine.data, { kind: 'gpu-seat', seat: 'idle', host: 'lab-gpu', index: 1, declaredMiB: 48_944 });
  assert.match(engine.detail, /no process holds memory there: its engine is not running/);
  const g1 = gpuOf(findings[1]);
  assert.deepEqual(g1.processes, []);
  assert.equal(g1.seats[0]?.unmeasuredWhy, 'no_process');
  assert.match(findings[1]!.detail, /idle declared 48,944 \/ measured \? \(no process on the card\)/);
});

test('GPU only (`--only gpus`): an empty card under a budget says its engine is not running there, and that its /health was not probed, so another GPU is not ruled out', LIMIT, async () => {
  const env = testProbeEnv({ env: { PATH: process.env.PATH ?? '/usr/bin:/bin' }, pathPrefix: [FIXTURES + 'no-match'], timeoutMs: 5000 });
  const fleet = fleetOf(GPU_INVENTORY);
  const findings = await runAll(planGpuTasks(fleet, { sites: ['lab'] }, env));
  const row = crossCheck(fleet, findings).find((f) => f.reason === 'engine_not_running');
  assert.ok(row, 'the row stays: nothing runs where its budget is');
  assert.equal(row.status, 'down');
  assert.match(row.detail, /no process holds memory there: its engine is not running on that card; its own \/health was not probed in this run, so it may run on another GPU/);
  const v = decide(['lab'], summarize(fleet, findings, ['lab']));
  const line = v.lines.find((l) => l.startsWith('idle on lab-gpu GPU1'));
  assert.equal(line, 'idle on lab-gpu GPU1: a budget is declared but no process holds memory there — its engine is not running on that card (its own /health was not probed in this run: another GPU is not ruled out)');
});
