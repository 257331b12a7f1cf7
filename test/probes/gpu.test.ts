// The GPU probe against stand-in nvidia-smi / xpu-smi / ssh executables put first on PATH.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { execa } from 'execa';
import { Fleet } from '../../src/inventory/fleet.ts';
import { parseInventory } from '../../src/inventory/load.ts';
import { planGpuTasks } from '../../src/probes/gpu.ts';
import type { Finding, GpuMemory, ProbeEnv } from '../../src/probes/types.ts';
import { testProbeEnv } from '../helpers/probe-env.ts';

const FIXTURES = fileURLToPath(new URL('../fixtures/gpu/', import.meta.url));
const DRILLS = fileURLToPath(new URL('../../drills/', import.meta.url));

const GPU_QUERY = 'nvidia-smi --query-gpu=index,uuid,name,memory.total,memory.used,memory.free --format=csv,nounits';
const APPS_QUERY = 'nvidia-smi --query-compute-apps=gpu_uuid,pid,process_name,used_memory --format=csv,nounits';

/** Seed 000 on ana-ml2 (GPU0 after the move, GPU1 before it), brutus from seed 004, a GPU-less host. */
const INVENTORY = `
gateway: { baseUrl: http://127.0.0.1:14000, keys: { admin: { env: LITELLM_ADMIN_KEY } } }
sites:
  ana:
    hosts:
      ana-ml2: { address: 127.0.2.20, ssh: local, gpus: [{ index: 0 }, { index: 1 }] }
      ana-docker: { address: 127.0.2.40, gpuVendor: none }
  irv:
    hosts:
      brutus: { address: 127.0.3.35, gpuVendor: intel, gpus: [{ index: 0 }] }
      spare: { address: 127.0.3.36 }
seats:
  mog-sec:    { host: ana-ml2, gpus: [0], port: 8010, container: vllm-mog-sec, gpuMemoryUtilization: 0.52, process: mog-sec }
  gen:        { host: ana-ml2, gpus: [0], port: 8000, container: vllm-gen, gpuMemoryUtilization: 0.41, maxModelLen: 262144, process: gen }
  vllm-embed: { host: ana-ml2, gpus: [1], port: 8011, container: vllm-embed, gpuMemoryUtilization: 0.035, process: vllm-embed }
  rerank-ana: { host: ana-ml2, gpus: [1], port: 8012, container: vllm-rerank, gpuMemoryUtilization: 0.05, process: rerank }
  ocr-batch:  { host: ana-ml2, gpus: [1], port: 8013, container: ocr-batch, kvCacheMemoryBytes: 4294967296 }
  xpu-chat:      { host: brutus, gpus: [0], port: 8040, container: vllm-xpu-chat, gpuMemoryUtilization: 0.75 }
  xpu-embedding: { host: brutus, gpus: [0], port: 8041, container: vllm-xpu-embedding, gpuMemoryUtilization: 0.07 }
  xpu-stt:       { host: brutus, gpus: [0], port: 8042, container: vllm-xpu-stt, gpuMemoryUtilization: 0.07 }
`;

function fleetOf(yaml: string): Fleet {
  const r = parseInventory(yaml);
  if (!r.ok) assert.fail(r.errors.join('\n'));
  return new Fleet(r.value);
}

function probeEnv(dirs: string[], over: Partial<ProbeEnv> = {}, vars: Record<string, string> = {}): ProbeEnv {
  return testProbeEnv({
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin', ...vars },
    // The ssh-check fixture reads what the test expects; a child sees only the variables it is given.
    passEnv: Object.keys(vars),
    pathPrefix: dirs.map((d) => (d.startsWith('/') ? d : FIXTURES + d)),
    timeoutMs: 3000,
    ...over,
  });
}

async function probe(fleet: Fleet, host: string, env: ProbeEnv): Promise<Finding[]> {
  const task = planGpuTasks(fleet, { sites: fleet.siteNames }, env).find((t) => t.host === host);
  assert.ok(task, `a GPU task for ${host}`);
  return task.run(new AbortController().signal);
}

function gpuOf(f: Finding | undefined): GpuMemory {
  assert.equal(f?.data?.kind, 'gpu', `finding ${f?.target} carries GPU data`);
  if (f?.data?.kind !== 'gpu') throw new Error('unreachable');
  return f.data.gpu;
}

function byTarget(findings: Finding[]): Record<string, Finding> {
  return Object.fromEntries(findings.map((f) => [f.target, f]));
}

test('one task per GPU host at the scope\'s sites; hosts without GPUs get none', () => {
  const fleet = fleetOf(INVENTORY);
  const env = probeEnv([]);
  assert.deepEqual(planGpuTasks(fleet, { sites: ['ana'] }, env).map((t) => t.id), ['gpu:ana-ml2']);
  const all = planGpuTasks(fleet, { sites: ['ana', 'irv'] }, env);
  // The runner's hard stop is the timeout plus the grace (250 ms at 3 s): the tool's own kill reports first.
  assert.deepEqual(all.map((t) => [t.host, t.site, t.group, t.probe, t.timeoutMs]), [
    ['ana-ml2', 'ana', 'gpus', 'gpu', 3250],
    ['brutus', 'irv', 'gpus', 'gpu', 3250],
    ['spare', 'irv', 'gpus', 'gpu', 3250],
  ]);
  assert.deepEqual(planGpuTasks(fleet, { sites: ['nowhere'] }, env), []);
});

test('seed 000: GPU0 holds mog-sec 55,126 + gen 34,558 MiB; each seat declared beside measured', async () => {
  const findings = await probe(fleetOf(INVENTORY), 'ana-ml2', probeEnv(['seed-000']));
  assert.deepEqual(findings.map((f) => [f.target, f.status]), [['ana-ml2 GPU0', 'up'], ['ana-ml2 GPU1', 'degraded']]);
  const g0 = gpuOf(findings[0]);
  assert.equal(g0.totalMiB, 97_887);
  assert.equal(g0.usedMiB, 89_701);
  assert.equal(g0.freeMiB, 7_652, 'free is read from nvidia-smi, not computed as total − used (8,186)');
  assert.equal(g0.marginMiB, 7_652 - 4_096);
  assert.equal(g0.uuid, 'GPU-5f1c2a9e-3b7d-4e8a-9c61-0d2e4f6a8b10');
  assert.equal(g0.name, 'NVIDIA RTX PRO 6000 Blackwell Server Edition');
  assert.deepEqual(g0.seats, [
    { seat: 'mog-sec', declaredMiB: 50_901, declaredBy: 'gpu-memory-utilization 0.52 × 97,887 MiB', measuredMiB: 55_126 },
    { seat: 'gen', declaredMiB: 40_134, declaredBy: 'gpu-memory-utilization 0.41 × 97,887 MiB', measuredMiB: 34_558 },
  ]);
  // matched by UUID: the compute-apps list interleaves both GPUs
  assert.deepEqual(g0.processes.map((p) => p.pid), [48211, 61877]);
  assert.equal(
    findings[0]?.detail,
    '7,652 MiB free of 97,887 (floor 4,096): margin 3,556 MiB — seats on it: mog-sec declared 50,901 / measured 55,126 MiB, gen declared 40,134 / measured 34,558 MiB',
  );
  assert.equal(findings[0]?.measuredBy, `${GPU_QUERY}; ${APPS_QUERY}`);
  assert.equal(findings[0]?.site, 'ana');
  assert.equal(findings[0]?.host, 'ana-ml2');
  assert.ok(typeof findings[0]?.latencyMs === 'number' && findings[0].latencyMs >= 0);
});

test('seed 000: GPU1 at 216 MiB free of 97,887 is flagged under the floor, seats named', async () => {
  const [, f1] = await probe(fleetOf(INVENTORY), 'ana-ml2', probeEnv(['seed-000']));
  const g1 = gpuOf(f1);
  assert.equal(f1?.status, 'degraded');
  assert.equal(g1.freeMiB, 216);
  assert.equal(g1.marginMiB, 216 - 4096);
  assert.equal(g1.floorMiB, 4096);
  assert.equal(
    f1?.detail,
    '216 MiB free of 97,887 (floor 4,096): under the margin floor — seats on it: vllm-embed declared 3,426 / measured 3,482 MiB, ' +
      'rerank-ana declared 4,894 / measured 5,310 MiB, ocr-batch declared 4,096 KV cache + weights / measured ? (shared card, no process pattern)',
  );
  assert.deepEqual(g1.seats[2], { seat: 'ocr-batch', declaredMiB: 4096, declaredBy: 'kv-cache-memory-bytes 4,294,967,296 (weights not included)', kvCacheOnly: true, measuredMiB: null, unmeasuredWhy: 'no_pattern' });
  assert.equal(g1.processes.length, 4, 'the processes of other tenants are listed too');
  assert.equal(g1.processes.reduce((s, p) => s + (p.usedMiB ?? 0), 0), 97_137);
});

test('seat budgets are Math.round(util × total): 0.43 → 42,091 MiB, 0.41 → 40,134 MiB', async () => {
  const at043 = fleetOf(INVENTORY.replace('gpuMemoryUtilization: 0.41', 'gpuMemoryUtilization: 0.43'));
  const gen = gpuOf((await probe(at043, 'ana-ml2', probeEnv(['seed-000'])))[0]).seats.find((s) => s.seat === 'gen');
  assert.equal(gen?.declaredMiB, 42_091); // 42,091.41
  assert.equal(gen?.declaredBy, 'gpu-memory-utilization 0.43 × 97,887 MiB');
  const at041 = gpuOf((await probe(fleetOf(INVENTORY), 'ana-ml2', probeEnv(['seed-000'])))[0]).seats.find((s) => s.seat === 'gen');
  assert.equal(at041?.declaredMiB, 40_134); // 40,133.67 rounds up
});

test('the margin floor: 1,979 MiB free is flagged under 4,096, 4,466 is not', async () => {
  const findings = byTarget(await probe(fleetOf(INVENTORY), 'ana-ml2', probeEnv(['margins'])));
  assert.equal(findings['ana-ml2 GPU0']?.status, 'degraded');
  assert.equal(gpuOf(findings['ana-ml2 GPU0']).marginMiB, 1_979 - 4_096);
  assert.match(findings['ana-ml2 GPU0']!.detail, /^1,979 MiB free of 97,887 \(floor 4,096\): under the margin floor/);
  assert.equal(findings['ana-ml2 GPU1']?.status, 'up');
  assert.equal(gpuOf(findings['ana-ml2 GPU1']).marginMiB, 370);
  assert.match(findings['ana-ml2 GPU1']!.detail, /^4,466 MiB free of 97,887 \(floor 4,096\): margin 370 MiB/);
  // the floor is the inventory's, not a constant
  const lower = byTarget(await probe(fleetOf(INVENTORY), 'ana-ml2', probeEnv(['margins'], { marginFloorMiB: 1024 })));
  assert.equal(lower['ana-ml2 GPU0']?.status, 'up');
});

test('a field-order-swapped header gives the same readings', async () => {
  const fleet = fleetOf(INVENTORY);
  const straight = await probe(fleet, 'ana-ml2', probeEnv(['seed-000']));
  const swapped = await probe(fleet, 'ana-ml2', probeEnv(['swapped']));
  assert.deepEqual(swapped.map((f) => f.data), straight.map((f) => f.data));
  assert.deepEqual(swapped.map((f) => f.detail), straight.map((f) => f.detail));
});

test('[N/A] memory: status unknown, no figure invented; a GPU the tool does not list is down', async () => {
  const findings = byTarget(await probe(fleetOf(INVENTORY), 'ana-ml2', probeEnv(['na-memory'])));
  const f0 = findings['ana-ml2 GPU0'];
  const g0 = gpuOf(f0);
  assert.equal(f0?.status, 'unknown');
  assert.deepEqual([g0.totalMiB, g0.usedMiB, g0.freeMiB, g0.marginMiB], [null, null, null, null]);
  assert.match(f0!.detail, /^free memory not reported by nvidia-smi \(total not reported either\)/);
  assert.deepEqual(g0.seats.find((s) => s.seat === 'gen'), {
    seat: 'gen',
    declaredMiB: null,
    declaredBy: 'gpu-memory-utilization 0.41 × ? (total not reported)',
    measuredMiB: null,
    unmeasuredWhy: 'not_reported',
  });
  assert.deepEqual(g0.processes, [{ pid: 3121, name: '/opt/venvs/gen/bin/python3', usedMiB: null }]);
  const f1 = findings['ana-ml2 GPU1'];
  assert.equal(f1?.status, 'down');
  assert.equal(f1?.detail, 'GPU1 listed in the inventory but not reported by nvidia-smi');
});

test('[Not Supported] and [Unknown Error]: judged on free memory where it is there, unknown where not', async () => {
  const findings = byTarget(await probe(fleetOf(INVENTORY), 'ana-ml2', probeEnv(['not-supported'])));
  const g0 = gpuOf(findings['ana-ml2 GPU0']);
  assert.equal(findings['ana-ml2 GPU0']?.status, 'up');
  assert.equal(g0.usedMiB, null);
  assert.equal(g0.freeMiB, 46_467);
  assert.equal(g0.seats.find((s) => s.seat === 'gen')?.declaredMiB, 20_147); // 0.41 × 49,140
  assert.equal(g0.seats.find((s) => s.seat === 'gen')?.measuredMiB, null, 'no process listed: nothing attributable');
  const g1 = gpuOf(findings['ana-ml2 GPU1']);
  assert.equal(findings['ana-ml2 GPU1']?.status, 'unknown');
  assert.equal(g1.uuid, null);
  assert.equal(g1.freeMiB, null);
});

test('an empty compute-apps output: no processes, measured unknown, memory still judged', async () => {
  const fleet = fleetOf(`
gateway: { baseUrl: http://127.0.0.1:14000, keys: { admin: { env: LITELLM_ADMIN_KEY } } }
sites:
  irv: { hosts: { irv-ml1: { address: 127.0.3.30, gpus: [{ index: 0 }] } } }
seats:
  clipper: { host: irv-ml1, gpus: [0], port: 8030, container: clipper, engine: other, process: clipper }
`);
  const [f] = await probe(fleet, 'irv-ml1', probeEnv(['empty-apps']));
  const g = gpuOf(f);
  assert.equal(f?.status, 'up');
  assert.deepEqual(g.processes, []);
  assert.deepEqual(g.seats, [{ seat: 'clipper', declaredMiB: null, declaredBy: 'no budget declared (engine other)', measuredMiB: null, unmeasuredWhy: 'no_process' }]);
  assert.equal(f?.detail, '46,467 MiB free of 49,140 (floor 4,096): margin 42,371 MiB — seats on it: clipper declared ? / measured ? (no process on the card)');
});

test('driver not loaded (exit 9): every inventory GPU of the host is down, with nvidia-smi\'s words', async () => {
  const fleet = fleetOf(INVENTORY);
  const findings = await probe(fleet, 'ana-ml2', probeEnv(['driver-failure']));
  assert.deepEqual(findings.map((f) => [f.target, f.status]), [['ana-ml2 GPU0', 'down'], ['ana-ml2 GPU1', 'down']]);
  assert.equal(findings[0]?.detail, "driver not loaded (NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver)");
  assert.equal(findings[0]?.measuredBy, `${GPU_QUERY}; ${APPS_QUERY}`);
  // a host whose inventory lists no GPU still gets one finding, for the host
  const spare = await probe(fleet, 'spare', probeEnv(['driver-failure']));
  assert.deepEqual(spare.map((f) => [f.target, f.status, f.site]), [['spare', 'down', 'irv']]);
});

test('a GPU fallen off the bus (exit 15) is down, naming the lost device', async () => {
  const findings = await probe(fleetOf(INVENTORY), 'ana-ml2', probeEnv(['fallen-off']));
  assert.equal(findings.length, 2);
  for (const f of findings) {
    assert.equal(f.status, 'down');
    assert.equal(f.detail, 'GPU has fallen off the bus (Unable to determine the device handle for GPU0000:41:00.0: GPU is lost)');
  }
});

test('a hanging nvidia-smi is killed at the timeout and the task answers at once', async () => {
  const fleet = fleetOf(INVENTORY);
  const env = probeEnv(['hang'], { timeoutMs: 500 });
  const task = planGpuTasks(fleet, { sites: ['ana'] }, env)[0]!;
  const t0 = performance.now();
  const findings = await task.run(new AbortController().signal);
  const elapsed = performance.now() - t0;
  assert.ok(elapsed >= 450 && elapsed < 500 + 1500, `answered after ${Math.round(elapsed)} ms for a 500 ms timeout`);
  assert.deepEqual(findings.map((f) => [f.target, f.status, f.detail]), [
    ['ana-ml2 GPU0', 'unknown', 'no answer within 500 ms (killed)'],
    ['ana-ml2 GPU1', 'unknown', 'no answer within 500 ms (killed)'],
  ]);
  // what the runner reports when it gives up first: the same per-GPU findings
  assert.deepEqual(task.onTimeout(500).map((f) => [f.target, f.status, f.detail, f.measuredBy]), [
    ['ana-ml2 GPU0', 'unknown', 'no answer within 500 ms (killed)', `${GPU_QUERY}; ${APPS_QUERY}`],
    ['ana-ml2 GPU1', 'unknown', 'no answer within 500 ms (killed)', `${GPU_QUERY}; ${APPS_QUERY}`],
  ]);
});

test('a hang in a child of the tool is killed with it: the task answers at the timeout', async () => {
  const task = planGpuTasks(fleetOf(INVENTORY), { sites: ['ana'] }, probeEnv(['hang-child'], { timeoutMs: 500 }))[0]!;
  const t0 = performance.now();
  const findings = await task.run(new AbortController().signal);
  const elapsed = performance.now() - t0;
  assert.ok(elapsed < 2000, `answered after ${Math.round(elapsed)} ms: a grandchild held its stdout`);
  assert.equal(findings[0]?.status, 'unknown');
});

test('an aborted signal stops the queries', async () => {
  const task = planGpuTasks(fleetOf(INVENTORY), { sites: ['ana'] }, probeEnv(['hang'], { timeoutMs: 10_000 }))[0]!;
  const stop = new AbortController();
  const t0 = performance.now();
  setTimeout(() => stop.abort(), 100);
  const findings = await task.run(stop.signal);
  assert.ok(performance.now() - t0 < 1500, 'returned soon after the abort');
  assert.equal(findings[0]?.detail, 'stopped before an answer (cancelled)');
});

test('garbage output is an unknown finding quoting its start', async () => {
  const findings = await probe(fleetOf(INVENTORY), 'ana-ml2', probeEnv(['garbage']));
  assert.equal(findings.length, 2);
  assert.equal(findings[0]?.status, 'unknown');
  assert.equal(findings[0]?.detail, 'unparseable nvidia-smi output: "<?xml version=\\"1.0\\" ?> <!DOCTYPE nvidia_smi_log SYSTEM \\"nvsm"'); // the first 60 characters
});

test('nvidia-smi missing from PATH', async () => {
  // a PATH holding only a directory without nvidia-smi
  const env = probeEnv([], {}, { PATH: FIXTURES + 'ssh-unreachable' });
  const findings = await probe(fleetOf(INVENTORY), 'ana-ml2', env);
  assert.deepEqual(findings.map((f) => [f.status, f.detail]), [
    ['unknown', 'nvidia-smi not found on PATH'],
    ['unknown', 'nvidia-smi not found on PATH'],
  ]);
});

const REMOTE = INVENTORY.replace('ssh: local', 'ssh: ops@127.0.9.20');

test('over ssh: BatchMode and ConnectTimeout passed, the remote command as separate words', async () => {
  const env = probeEnv(['ssh-check', 'seed-000'], { timeoutMs: 3500 }, { SEAT_EXPECT_TARGET: 'ops@127.0.9.20', SEAT_EXPECT_CONNECT_TIMEOUT: '3' });
  const findings = await probe(fleetOf(REMOTE), 'ana-ml2', env);
  assert.deepEqual(findings.map((f) => [f.target, f.status]), [['ana-ml2 GPU0', 'up'], ['ana-ml2 GPU1', 'degraded']]);
  assert.equal(gpuOf(findings[1]).freeMiB, 216);
  const ssh = 'ssh -o BatchMode=yes -o ConnectTimeout=3 ops@127.0.9.20';
  assert.equal(findings[0]?.measuredBy, `${ssh} ${GPU_QUERY}; ${ssh} ${APPS_QUERY}`);
});

test('ConnectTimeout is half a second under the timeout, in whole seconds, at least 1', async () => {
  const env = probeEnv(['ssh-check', 'seed-000'], { timeoutMs: 400 }, { SEAT_EXPECT_TARGET: 'ops@127.0.9.20', SEAT_EXPECT_CONNECT_TIMEOUT: '1' });
  const [f] = await probe(fleetOf(REMOTE), 'ana-ml2', env);
  assert.equal(f?.status, 'up', f?.detail);
  assert.match(f!.measuredBy, /^ssh -o BatchMode=yes -o ConnectTimeout=1 ops@127\.0\.9\.20 nvidia-smi /);
});

test('the ssh stand-in really checks: a wrong target or a missing option is refused', async () => {
  const env = probeEnv(['ssh-check', 'seed-000'], {}, { SEAT_EXPECT_TARGET: 'ops@127.0.9.99' });
  const [f] = await probe(fleetOf(REMOTE), 'ana-ml2', env);
  assert.equal(f?.status, 'unknown');
  assert.match(f!.detail, /ssh stand-in: expected target ops@127\.0\.9\.99, got ops@127\.0\.9\.20/);
  const ssh = FIXTURES + 'ssh-check/ssh';
  const opts = { reject: false, env: { SEAT_EXPECT_TARGET: 'ops@h' } } as const;
  const noBatch = await execa(ssh, ['-o', 'ConnectTimeout=3', 'ops@h', 'true'], opts);
  assert.equal(noBatch.exitCode, 2);
  assert.match(noBatch.stderr, /-o BatchMode=yes missing/);
  const noTimeout = await execa(ssh, ['-o', 'BatchMode=yes', 'ops@h', 'true'], opts);
  assert.equal(noTimeout.exitCode, 2);
  assert.match(noTimeout.stderr, /-o ConnectTimeout=N missing/);
  const fine = await execa(ssh, ['-o', 'BatchMode=yes', '-o', 'ConnectTimeout=3', 'ops@h', 'echo', 'two words'], opts);
  assert.deepEqual([fine.exitCode, fine.stdout], [0, 'two words']);
});

test('an unreachable host (ssh exit 255) is down, with ssh\'s own words', async () => {
  const fleet = fleetOf(INVENTORY.replace('ssh: local', 'ssh: ops@127.0.9.10'));
  const findings = await probe(fleet, 'ana-ml2', probeEnv(['ssh-unreachable', 'seed-000']));
  assert.deepEqual(findings.map((f) => [f.target, f.status, f.detail]), [
    ['ana-ml2 GPU0', 'down', 'ssh to ops@127.0.9.10 failed: ssh: connect to host 127.0.9.10 port 22: Connection timed out'],
    ['ana-ml2 GPU1', 'down', 'ssh to ops@127.0.9.10 failed: ssh: connect to host 127.0.9.10 port 22: Connection timed out'],
  ]);
});

test('seed 004: brutus\'s XPU through xpu-smi, three vLLM seats on one card', async () => {
  const [f, ...rest] = await probe(fleetOf(INVENTORY), 'brutus', probeEnv(['xpu']));
  assert.equal(rest.length, 0);
  const g = gpuOf(f);
  assert.equal(f?.target, 'brutus GPU0');
  assert.equal(f?.status, 'up');
  assert.deepEqual([g.totalMiB, g.usedMiB, g.freeMiB, g.marginMiB], [24_480, 19_872, 4_608, 512]);
  assert.equal(g.name, 'Intel(R) Arc(TM) Pro B60 Graphics');
  assert.deepEqual(g.seats.map((s) => [s.seat, s.declaredMiB, s.measuredMiB]), [
    ['xpu-chat', 18_360, null],
    ['xpu-embedding', 1_714, null],
    ['xpu-stt', 1_714, null],
  ]);
  assert.deepEqual(g.processes.map((p) => p.usedMiB), [18_950, 452, 470]);
  assert.equal(
    f?.measuredBy,
    'xpu-smi --query-gpu=index,uuid,name,memory.total,memory.used,memory.free --format=csv,nounits; xpu-smi ps -j',
  );
});

test('the drill fleet through drills/bin: every GPU measured, only ana-ml2 GPU1 flagged', async () => {
  const fleet = fleetOf(readFileSync(DRILLS + 'fleet.yaml', 'utf8'));
  const env = probeEnv([DRILLS + 'bin'], { marginFloorMiB: fleet.inventory.settings.marginFloorMiB });
  const tasks = planGpuTasks(fleet, { sites: fleet.siteNames }, env);
  assert.deepEqual(tasks.map((t) => t.host), ['fv-ml1', 'ana-ml2', 'irv-ml1', 'brutus']);
  const findings = (await Promise.all(tasks.map((t) => t.run(new AbortController().signal)))).flat();
  const all = byTarget(findings);
  assert.deepEqual(Object.keys(all), [
    'fv-ml1 GPU0', 'fv-ml1 GPU1', 'fv-ml1 GPU2', 'fv-ml1 GPU3', 'ana-ml2 GPU0', 'ana-ml2 GPU1', 'irv-ml1 GPU0', 'irv-ml1 GPU1', 'brutus GPU0',
  ]);
  assert.deepEqual(findings.filter((f) => f.status !== 'up').map((f) => [f.target, f.status]), [['ana-ml2 GPU1', 'degraded']]);
  for (const f of findings.filter((x) => x.host === 'fv-ml1')) {
    const g = gpuOf(f);
    assert.equal(g.totalMiB, 97_887);
    assert.ok((g.freeMiB ?? 0) > 4096, `${f.target} keeps more than 4 GiB free`);
    for (const s of g.seats) assert.ok(s.measuredMiB !== null && s.measuredMiB > 0, `${s.seat} is attributed its process`);
  }
  assert.equal(gpuOf(all['fv-ml1 GPU2']).seats[0]?.declaredBy, 'kv-cache-memory-bytes 15,032,385,536 (weights not included)');
  assert.equal(gpuOf(all['fv-ml1 GPU2']).seats[0]?.declaredMiB, 14_336);
  // seed 002: 14.00 GiB of KV cache pinned, 74 GiB of weights on top — the report must not read as a 5x overrun.
  assert.match(all['fv-ml1 GPU2']!.detail, /flash-next declared 14,336 KV cache \+ weights \/ measured 78,410 MiB/);
  assert.deepEqual(gpuOf(all['ana-ml2 GPU0']).seats.map((s) => [s.seat, s.measuredMiB]), [['mog-sec', 55_126]]);
  assert.deepEqual(gpuOf(all['ana-ml2 GPU1']).seats.map((s) => [s.seat, s.measuredMiB]), [['vllm-embed', 3_482], ['rerank-ana', 5_310]]);
  assert.equal(gpuOf(all['ana-ml2 GPU1']).freeMiB, 216);
  assert.deepEqual(gpuOf(all['irv-ml1 GPU1']).seats, [{ seat: 'clipper', declaredMiB: null, declaredBy: 'no budget declared (engine other)', measuredMiB: 2_210 }]);
  assert.equal(gpuOf(all['brutus GPU0']).totalMiB, 24_480);
  assert.match(all['fv-ml1 GPU0']!.measuredBy, /^ssh -o BatchMode=yes -o ConnectTimeout=2 drill@127\.0\.1\.10 nvidia-smi --query-gpu=/);
});

test('two GPUs reporting one UUID: a process on it is counted on neither card, and the cards say why', async () => {
  const findings = (await probe(fleetOf(INVENTORY), 'ana-ml2', probeEnv(['dup-uuid']))).filter((f) => f.subject.kind === 'gpu');
  assert.deepEqual(findings.map((f) => f.target), ['ana-ml2 GPU0', 'ana-ml2 GPU1']);
  for (const f of findings) {
    assert.deepEqual(gpuOf(f).processes, [], `${f.target}: no process put on it`);
    assert.match(f.detail, /not attributed/, f.target);
  }
  // The memory figures are still judged: GPU1 is under the floor.
  assert.equal(findings[1]?.status, 'degraded');
});
