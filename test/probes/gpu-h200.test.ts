// The GPU probe on what a real NVIDIA H200 answered (driver 580.159.04; test/fixtures/gpu/h200):
// the probe's own two queries, replayed verbatim, idle, under a 40 GiB PyTorch process, and the
// tool's real refusals. Everything asserted here is a figure or a word from that capture.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { fileURLToPath } from 'node:url';
import { Fleet } from '../../src/inventory/fleet.ts';
import { parseInventory } from '../../src/inventory/load.ts';
import { planGpuTasks } from '../../src/probes/gpu.ts';
import type { Finding, GpuMemory } from '../../src/probes/types.ts';
import { testProbeEnv } from '../helpers/probe-env.ts';

const FIXTURES = fileURLToPath(new URL('../fixtures/gpu/', import.meta.url));

/** One seat alone on the card: it owns whatever process is there (the name is the bare `python3`). */
const INVENTORY = `
gateway: { baseUrl: http://127.0.0.1:14000, keys: { admin: { env: LITELLM_ADMIN_KEY } } }
sites:
  lab:
    hosts:
      h200: { address: 127.0.2.60, ssh: local, gpus: [{ index: 0, uuid: GPU-bec51b55-bb6f-5612-d41f-b88ced4de17f }] }
seats:
  chat: { host: h200, gpus: [0], port: 8000, container: vllm-chat, gpuMemoryUtilization: 0.30, process: chat }
`;

async function probeH200(state: string): Promise<Finding[]> {
  const r = parseInventory(INVENTORY);
  if (!r.ok) assert.fail(r.errors.join('\n'));
  const fleet = new Fleet(r.value);
  const env = testProbeEnv({ env: { PATH: process.env.PATH ?? '/usr/bin:/bin' }, passEnv: [], pathPrefix: [`${FIXTURES}h200-${state}`], timeoutMs: 3000 });
  const [task] = planGpuTasks(fleet, { sites: ['lab'] }, env);
  assert.ok(task, 'a GPU task for h200');
  return task.run(new AbortController().signal);
}

function card(findings: Finding[]): { finding: Finding; gpu: GpuMemory } {
  const finding = findings.find((f) => f.target === 'h200 GPU0');
  assert.ok(finding, 'a finding for h200 GPU0');
  assert.equal(finding.data?.kind, 'gpu');
  if (finding.data?.kind !== 'gpu') throw new Error('unreachable');
  return { finding, gpu: finding.data.gpu };
}

test('idle H200: 143,156 of 143,771 MiB free (the driver keeps 615), no process, so the seat is not running', async () => {
  const findings = await probeH200('idle');
  const { finding, gpu } = card(findings);
  assert.equal(finding.status, 'up');
  assert.deepEqual([gpu.name, gpu.uuid, gpu.totalMiB, gpu.usedMiB, gpu.freeMiB], ['NVIDIA H200', 'GPU-bec51b55-bb6f-5612-d41f-b88ced4de17f', 143_771, 0, 143_156]);
  // Margin is what is free over the floor, from the reported free figure, not total − used.
  assert.equal(gpu.marginMiB, 143_156 - gpu.floorMiB);
  assert.deepEqual(gpu.processes, [], 'the apps query printed its header and nothing else');
  assert.deepEqual(gpu.seats.map((s) => [s.seat, s.declaredMiB, s.measuredMiB, s.unmeasuredWhy]), [['chat', Math.round(0.3 * 143_771), null, 'no_process']]);
  const seat = findings.find((f) => f.target === 'chat@h200 GPU0');
  assert.deepEqual([seat?.status, seat?.reason], ['down', 'engine_not_running']);
});

test('busy H200: the 42,090 MiB python3 process is read from the used_gpu_memory column and put on the seat alone there', async () => {
  const findings = await probeH200('busy');
  const { finding, gpu } = card(findings);
  assert.equal(finding.status, 'up');
  assert.deepEqual([gpu.usedMiB, gpu.freeMiB], [42_099, 101_058]);
  assert.deepEqual(gpu.processes.map((p) => [p.pid, p.name, p.usedMiB]), [[525, 'python3', 42_090]]);
  assert.deepEqual(gpu.seats.map((s) => [s.seat, s.measuredMiB]), [['chat', 42_090]]);
  assert.match(finding.detail, /101,058 MiB free of 143,771/);
  assert.equal(findings.length, 1, 'a running seat within its budget adds no finding of its own');
});

test("the real tool's refusals, said on stdout, reach the finding in its own words and with the right reason", async () => {
  const cases: [string, string, string, RegExp][] = [
    // An unknown field: exit 2.
    ['bad-field', 'unknown', 'tool_failed', /refused the query as a bad argument \(Field "bogus_field" is not a valid field to query\)/],
    // No such GPU: exit 6.
    ['bad-index', 'down', 'no_gpu', /no GPU found \(No devices were found\)/],
    // An unknown option: exit 255, which nvidia-smi also uses for driver errors. Not the driver.
    ['bad-flag', 'unknown', 'tool_failed', /does not take the probe's query.*\(ERROR: Option --no-such-flag is not recognized\)/],
  ];
  for (const [state, status, reason, words] of cases) {
    const { finding } = card(await probeH200(state));
    assert.deepEqual([finding.status, finding.reason], [status, reason], state);
    assert.match(finding.detail, words, state);
  }
});
