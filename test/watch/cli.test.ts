// `seat watch gpus` in the terminal: the drill's ana-ml2 (seed 000's GPU0 at 42,113 MiB free) through
// the GPU probe's own code behind the drill's ssh and nvidia-smi stand-ins; virtual time where the
// window is long, and Ctrl-C as the process would get it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { DRILL_BIN, DRILL_INVENTORY } from '../../drills/drill.ts';
import { watchGpusCli } from '../../src/cli/watch.ts';
import { runCli, type CliIo } from '../../src/cli/run.ts';
import { planProbe } from '../../src/commands/probe.ts';
import type { WatchGpusCommand } from '../../src/commands/table.ts';
import { Fleet } from '../../src/inventory/fleet.ts';
import { parseInventory } from '../../src/inventory/load.ts';
import { gpuSampler, type Sampler } from '../../src/watch/sample.ts';
import { FakeTime } from '../helpers/clock.ts';

const env = { PATH: process.env.PATH ?? '/usr/bin:/bin' };

async function drillFleet(): Promise<Fleet> {
  const r = parseInventory(await readFile(DRILL_INVENTORY, 'utf8'));
  if (!r.ok) throw new Error(r.errors.join('\n'));
  return new Fleet(r.value);
}

function io(onWrite: (s: string) => void = () => {}): CliIo & { out(): string; err(): string } {
  let out = '';
  let err = '';
  return {
    stdout: { write: (s: string) => ((out += s), onWrite(s), true) },
    stderr: { write: (s: string) => ((err += s), true) },
    env,
    probeDeps: { env, pathPrefix: [DRILL_BIN] },
    out: () => out,
    err: () => err,
  };
}

const cmd = (o: Partial<WatchGpusCommand> = {}): WatchGpusCommand => ({ verb: 'watch gpus', host: 'ana-ml2', forMs: 360_000, everyMs: 10_000, ...o });

test('one sample through the GPU probe itself: ana-ml2 GPU0 42,113 MiB free with mog-sec on it, GPU1 216', async () => {
  const fleet = await drillFleet();
  const task = planProbe(fleet, { site: 'ana', only: ['gpus'], timeoutMs: null, paid: false }, { env, pathPrefix: [DRILL_BIN] }).tasks.find((t) => t.id === 'gpu:ana-ml2')!;
  const readings = await gpuSampler(task, new Map([['gen', 'gen']]))(new AbortController().signal);
  assert.deepEqual(readings, [
    { index: 0, totalMiB: 97_887, freeMiB: 42_113, seatsMiB: { 'mog-sec': 55_126 }, reason: null },
    { index: 1, totalMiB: 97_887, freeMiB: 216, seatsMiB: { 'vllm-embed': 3_482, 'rerank-ana': 5_310 }, reason: 'under_floor' },
  ]);
});

test('seed 000, gen at 0.43 onto ana-ml2 GPU0 over 6 minutes of virtual time: min/median/max, then REFUSE on the measured margin', async () => {
  const fleet = await drillFleet();
  const time = new FakeTime();
  const free = [42_113, 42_300, 42_500];
  let n = 0;
  const sampler: Sampler = () => Promise.resolve([{ index: 0, totalMiB: 97_887, freeMiB: free[n++ % 3]!, seatsMiB: { 'mog-sec': 55_126 }, reason: null }]);
  const o = io();
  const done = watchGpusCli(cmd({ seat: 'gen', gpu: 0, util: 0.43 }), fleet, o, { now: () => time.now, setTimer: time.setTimer, signal: new AbortController().signal, sampler });
  await time.advance(360_000);
  assert.equal(await done, 1);
  const lines = o.out().split('\n');
  assert.equal(lines[0], 'watching ana-ml2: 37 samples, every 10s for 6m (Ctrl-C stops and prints what was measured)');
  assert.equal(lines[1], 'sample 1/37 at 0s: GPU0 42,113 MiB free');
  assert.equal(lines[37], 'sample 37/37 at 6m: GPU0 42,113 MiB free');
  assert.deepEqual(lines.slice(39), [
    'ana-ml2 GPU free memory — 37 samples, every 10s over 6m:',
    '  GPU0  min 42,113 · median 42,300 · max 42,500 MiB free of 97,887 (37 samples)',
    'sizing gen on GPU0 at --gpu-memory-utilization 0.43:',
    '  declared budget   42,091 MiB (0.43 × 97,887 total)',
    '  measured free     42,113 MiB (the least over the window)',
    '  declared margin   22 MiB (measured free − declared budget) — the verdict rests on this, against the 4,096 MiB floor',
    '  measured margin   not measured: gen does not run on GPU0 yet, so what it really takes there is unknown (the runtime allocates on top of the budget)',
    'REFUSE: under the floor: not safe, by the declared margin alone, and the runtime takes more than the budget',
    'OOM fallbacks (FlashInfer autotuner) are not counted here: read them with seat diagnose --seat gen',
    '',
  ]);
});

test('end to end through runCli, real time: --for 200ms --every 100ms, gen at 0.41 refused on the drill', async () => {
  const o = io();
  const code = await runCli(['--inventory', DRILL_INVENTORY, 'watch', 'gpus', 'ana-ml2', '--for', '200ms', '--every', '100ms', '--seat', 'gen', '--gpu', '0', '--util', '0.41'], o);
  assert.equal(code, 1, o.err());
  assert.match(o.out(), /^watching ana-ml2: 3 samples, every 100ms for 200ms/);
  assert.match(o.out(), /^ {2}GPU0 {2}min 42,113 · median 42,113 · max 42,113 MiB free of 97,887 \(3 samples\)$/m);
  assert.match(o.out(), /^ {2}GPU1 {2}min 216 · median 216 · max 216 MiB free of 97,887 \(3 samples\) — under the 4,096 MiB floor$/m);
  assert.match(o.out(), /^ {2}declared margin {3}1,979 MiB/m);
  assert.match(o.out(), /^REFUSE: under the floor: not safe/m);
});

test('Ctrl-C during a six-minute watch prints what was measured so far, then gives Ctrl-C back', async () => {
  const before = process.rawListeners('SIGINT');
  let sent = false;
  const o = io((s) => {
    if (!sent && s.startsWith('sample 1/')) {
      sent = true;
      setImmediate(() => process.emit('SIGINT'));
    }
  });
  const t0 = performance.now();
  const code = await runCli(['--inventory', DRILL_INVENTORY, 'watch', 'gpus', 'ana-ml2', '--seat', 'mog-sec'], o);
  assert.ok(performance.now() - t0 < 8_000, 'it did not wait out the window');
  assert.equal(code, 1, 'cut short: a sizing that would allow is not decided');
  assert.match(o.out(), /^ana-ml2 GPU free memory — stopped after 1 of 37 samples \(0s of the 6m window\): what was measured so far:$/m);
  assert.match(o.out(), /^ {2}GPU0 {2}min 42,113 · median 42,113 · max 42,113 MiB free of 97,887 \(1 sample\)$/m);
  assert.match(o.out(), /^ {2}seat measured {5}55,126 MiB \(mog-sec already runs on GPU0/m);
  assert.match(o.out(), /^NOT DECIDED: the window was cut short/m);
  assert.deepEqual(process.rawListeners('SIGINT'), before, 'the SIGINT handlers are as they were');
});

test('what is wrong with the request is said before anything is sampled', async () => {
  const fleet = await drillFleet();
  const cases: [Partial<WatchGpusCommand>, RegExp][] = [
    [{ host: 'nowhere' }, /^seat: no host "nowhere" in the inventory \(hosts: fv-ml1, /],
    [{ host: 'ana-docker' }, /^seat: ana-docker has no GPU in the inventory/],
    [{ seat: 'gen' }, /^seat: gen runs on fv-ml1, not ana-ml2: say which GPU of ana-ml2 with --gpu N/],
    [{ seat: 'gen', gpu: 7 }, /^seat: ana-ml2 has no GPU7 in the inventory \(GPUs: 0, 1\)/],
    [{ seat: 'flash-next', gpu: 0 }, /^seat: flash-next declares no gpuMemoryUtilization: give the planned one with --util/],
    [{ util: 0.4 }, /^seat: --gpu and --util size a seat: name it with --seat SEAT/],
    [{ seat: 'nobody', gpu: 0, util: 0.4 }, /^seat: no seat "nobody" in the inventory/],
  ];
  for (const [c, message] of cases) {
    const o = io();
    const sampler: Sampler = () => assert.fail('nothing is sampled');
    assert.equal(await watchGpusCli(cmd(c), fleet, o, { sampler, signal: new AbortController().signal }), 2);
    assert.match(o.err(), message);
    assert.equal(o.out(), '');
  }
});
