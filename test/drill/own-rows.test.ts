// Issue 29, items 6–9, on the rows: a report's GPU and seat rows say what the facts say, in the terminal,
// in --json and in the Slack blocks alike, and a probe of one site proposes for that site only. Real
// drills on loopback (the stand-ins' nvidia-smi/xpu-smi behind their ssh), the CLI run in-process.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { ANA_GPU_OOM } from '../../drills/scenarios/ana-gpu-oom.ts';
import { BRUTUS_KV_BOOT } from '../../drills/scenarios/brutus-kv-boot.ts';
import { startScenario, type RunningDrill, type Scenario } from '../../drills/scenarios/index.ts';
import type { ProbeReport } from '../../src/commands/probe.ts';
import { runCli, type CliIo } from '../../src/cli/run.ts';
import { renderReport as slackReport } from '../../src/slack/blocks.ts';

const GPUS = fileURLToPath(new URL('../../drills/gpus/', import.meta.url));
const gpuFile = (name: string): string => readFileSync(`${GPUS}${name}`, 'utf8');

/** fv-ml1 GPU2: flash-next answers, but nvidia-smi lists no process on the card (it runs on another GPU than declared).
 * ana-ml2 GPU0: memory `[N/A]`, no process listed, and mog-sec accepts and never answers. */
const ROWS: Scenario = {
  ...BRUTUS_KV_BOOT,
  id: 'own-rows',
  site: 'fv',
  fleet: { seats: { 'mog-sec': { health: 'hang' } } },
  containers: {},
  files: [],
  gpus: {
    'fv-ml1.apps.csv': gpuFile('fv-ml1.apps.csv').split('\n').filter((l) => !l.includes('flash-next')).join('\n'),
    'ana-ml2.gpu.csv': gpuFile('ana-ml2.gpu.csv').replace(/^0, (GPU-[^,]+), ([^,]+), 97887, 55240, 42113$/m, '0, $1, $2, [N/A], [N/A], [N/A]'),
    'ana-ml2.apps.csv': gpuFile('ana-ml2.apps.csv').split('\n').filter((l) => !l.includes('mog-sec')).join('\n'),
  },
};

interface Json {
  findings: { probe: string; target: string; status: string; reason?: string; detail: string; data: { kind: string; seat?: string } }[];
  verdict: { status: string; headline: string; runbook: string | null; proposal: { sites: string[]; runbook: string | null } | null; elsewhere: { runbook: string | null; sites: string[] }[] };
}

let rows: RunningDrill;
let brutus: RunningDrill;
before(async () => {
  rows = await startScenario(ROWS);
  brutus = await startScenario(BRUTUS_KV_BOOT);
});
after(async () => {
  await rows?.stop();
  await brutus?.stop();
});

async function seat(drill: RunningDrill, args: string[], tty = false): Promise<string> {
  let out = '';
  const env: NodeJS.ProcessEnv = { ...process.env, SEAT_PROBE_MEMORY: 'off', NO_COLOR: '1', ...drill.env };
  delete env.SEAT_INVENTORY;
  const io: CliIo = { stdout: { write: (s: string | Uint8Array) => (out += typeof s === 'string' ? s : Buffer.from(s).toString()), isTTY: tty }, stderr: { write: () => true }, env, probeDeps: { env, ...drill.probe } };
  await runCli(['--inventory', drill.inventoryPath, ...args], io);
  return out.replace(/\x1b\[[0-9;?]*[A-Za-z]|\r/g, '\n');
}

const json = async (drill: RunningDrill, site: string): Promise<Json & ProbeReport> => JSON.parse(await seat(drill, ['probe', site, '--timeout', '1500', '--json'])) as Json & ProbeReport;
const slackText = (r: ProbeReport): string => JSON.stringify(slackReport(r, { site: r.site, only: ['power', 'gpus', 'aliases'], timeoutMs: null, paid: false }).blocks);

test('item 7: a seat that answers with no process on its declared GPU: the row says so and which GPU to check, not DOWN, not "not running"', { timeout: 60_000 }, async () => {
  const r = await json(rows, 'fv');
  const row = r.findings.find((f) => f.data.kind === 'gpu-seat' && f.data.seat === 'flash-next');
  assert.ok(row, 'a row for flash-next on its card');
  assert.equal(row.status, 'degraded', row.detail);
  assert.equal(row.reason, 'answers_no_process');
  assert.match(row.detail, /^flash-next answers \/health 200 but no process holds memory on fv-ml1 GPU2\b.*check which GPU it really uses \(CUDA_VISIBLE_DEVICES, the inventory's index\)$/);
  const terminal = await seat(rows, ['probe', 'fv', '--timeout', '1500'], true);
  const line = terminal.split('\n').find((l) => l.includes('flash-next@fv-ml1 GPU2'));
  assert.ok(line, terminal);
  assert.doesNotMatch(line, /DOWN|not running/);
  assert.match(line, /answers \/health 200 but no process holds memory on fv-ml1 GPU2/);
  const piped = (await seat(rows, ['probe', 'fv', '--timeout', '1500'])).split('\n').filter((l) => l.includes('flash-next@fv-ml1 GPU2'));
  assert.equal(piped.length, 1, 'streamed once, as the report has it');
  assert.match(piped[0]!, /^WARN gpu +flash-next@fv-ml1 GPU2 +flash-next answers \/health 200/);
  const slack = slackText(r);
  assert.match(slack, /flash-next answers \/health 200 but no process holds memory on fv-ml1 GPU2/);
  assert.doesNotMatch(slack, /its engine is not running/);
  assert.notEqual(r.verdict.proposal?.runbook, 'backend-down');
});

test('item 8: on a card whose memory is [N/A] the row is unknown and concludes nothing from the empty process list', { timeout: 60_000 }, async () => {
  const r = await json(rows, 'ana');
  assert.ok(!r.findings.some((f) => f.data.kind === 'gpu-seat' && f.data.seat === 'mog-sec'), 'no "engine not running" row for mog-sec');
  const card = r.findings.find((f) => f.target === 'ana-ml2 GPU0')!;
  assert.equal(card.status, 'unknown', card.detail);
  assert.equal(card.reason, 'not_reported');
  assert.doesNotMatch(card.detail, /not running|no process on the card/);
  assert.match(card.detail, /mog-sec declared \? \/ measured \? \(memory not reported\)/);
  const terminal = await seat(rows, ['probe', 'ana', '--timeout', '1500', '--all'], true);
  for (const l of terminal.split('\n').filter((x) => x.includes('mog-sec'))) assert.doesNotMatch(l, /not running/, l);
});

test('item 9: the brutus card row is not ok: the down chat seat’s declared budget does not fit its measured free memory', { timeout: 60_000 }, async () => {
  const r = await json(brutus, 'irv');
  const card = r.findings.find((f) => f.target === 'brutus GPU0')!;
  assert.equal(card.status, 'degraded', card.detail);
  assert.equal(card.reason, 'no_room');
  assert.match(card.detail, /xpu-chat is down and its declared 18,360 MiB \(inventory: gpu-memory-utilization 0\.75 × 24,480 MiB\) cannot fit the 4,608 MiB free \(measured by xpu-smi\)/);
  const gpu = (card.data as { gpu?: { seats: { seat: string; cannotFit?: true }[] } }).gpu!;
  assert.deepEqual(gpu.seats.filter((s) => s.cannotFit).map((s) => s.seat), ['xpu-chat']);
  const terminal = await seat(brutus, ['probe', 'irv', '--timeout', '1500'], true);
  const line = terminal.split('\n').find((l) => / brutus GPU0 /.test(l));
  assert.ok(line, terminal);
  assert.doesNotMatch(line, /^\s*ok /);
  assert.match(line, /xpu-chat is down and its declared 18,360 MiB .*cannot fit the 4,608 MiB free/);
  assert.match(slackText(r), /xpu-chat \(down\) declared 18,360 MiB \(inventory\) cannot fit the 4,608 MiB free \(measured\)/);
});

test('item 6: a probe of one site proposes for it only; another site’s fault is one elsewhere: line with its own --site; --json agrees with next:', { timeout: 60_000 }, async () => {
  for (const site of ['irv', 'ana']) {
    const r = await json(rows, site);
    const text = await seat(rows, ['probe', site, '--timeout', '1500']);
    const lines = text.split('\n');
    const next = lines.find((l) => l.startsWith('next:'))!;
    assert.ok(next, text);
    for (const s of r.verdict.proposal?.sites ?? []) assert.equal(s, site, `a probe of ${site} proposes for ${s}`);
    const onNext = /--site (\S+)/.exec(next)?.[1];
    if (r.verdict.runbook) assert.equal(onNext, site, next);
    else assert.equal(onNext, undefined, next);
    for (const p of r.verdict.elsewhere) {
      assert.notEqual(p.sites[0], site);
      const own = lines.filter((l) => l.includes(`seat runbook start ${p.runbook} --site ${p.sites[0]}`));
      assert.equal(own.length, 1, text);
      assert.match(own[0]!, /^elsewhere: /);
      // Only the gateway saw that site's fault: the line says its hosts were not probed, and how to probe them.
      assert.ok(own[0]!.includes(`as the gateway sees it: its own hosts were not probed here, \`seat probe ${p.sites[0]}\` says whether the site is up`), own[0]);
      assert.ok(slackText(r).includes(`\`/seat probe ${p.sites[0]}\` says whether the site is up`), 'Slack says it too');
      const slack = slackText(r).split(`/seat runbook start ${p.runbook} --site ${p.sites[0]}`).length - 1;
      assert.equal(slack, 1, `Slack says ${p.sites[0]}'s fault once, with its own command`);
    }
    const slackNext = /:arrow_right: \*Next:\*[^"]*/.exec(slackText(r))?.[0] ?? '';
    assert.ok(slackNext, 'Slack has a Next line');
    for (const p of r.verdict.elsewhere) assert.ok(!slackNext.includes(`*${p.sites[0]}*`), slackNext);
    if (site === 'irv') assert.ok(r.verdict.elsewhere.some((p) => p.sites[0] === 'ana'), 'ana’s silent seat is seen from irv as elsewhere');
  }
});

test('a probe of fv whose only down alias is routed to ana’s seat: not DOWN fv — degraded, the fault an elsewhere: line (the exit code still 1)', { timeout: 60_000 }, async () => {
  const oom = await startScenario(ANA_GPU_OOM);
  try {
    const r = await json(oom, 'fv');
    const downAway = r.findings.filter((f) => f.probe === 'alias' && f.status === 'down');
    assert.ok(downAway.length > 0, 'the drill has an alias down (routed to ana)');
    assert.equal(r.verdict.status, 'degraded', r.verdict.headline);
    assert.doesNotMatch(r.verdict.headline, /^DOWN/);
    const text = await seat(oom, ['probe', 'fv', '--timeout', '1500']);
    assert.doesNotMatch(text, /^DOWN fv/m, 'the headline does not call fv down for ana’s fault');
    assert.match(text, /elsewhere: .*site ana/);
  } finally {
    await oom.stop();
  }
});
