// The terminal front end, in-process, against the drill fleet's stand-ins on ephemeral loopback ports.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { runCli, type CliIo } from '../../src/cli/run.ts';
import type { DrillFleet } from '../../drills/litellm.ts';
import { startCliDrill, type CliDrill } from '../helpers/cli-drill.ts';
import { DRILL_BIN, DRILL_INVENTORY } from '../../drills/drill.ts';

let cli: CliDrill;
let drill: DrillFleet;
let inventory: string;
let dir: string;

before(async () => {
  cli = await startCliDrill('seatbelt-cli-');
  drill = cli.drill;
  inventory = cli.inventory;
  dir = cli.dir;
});

after(async () => {
  await cli.stop();
});

function io(tty = false): CliIo & { out: () => string; err: () => string } {
  let out = '';
  let err = '';
  const env = { ...drill.env, PATH: process.env.PATH };
  return {
    stdout: { write: (s: string) => (out += s), isTTY: tty },
    stderr: { write: (s: string) => (err += s) },
    env,
    probeDeps: { env, pathPrefix: [DRILL_BIN] },
    out: () => out,
    err: () => err,
  };
}

test('seat probe ana --json: one object with the named fields, seed 000 measured, exit 1', async () => {
  const o = io();
  const code = await runCli(['--inventory', inventory, 'probe', 'ana', '--only', 'aliases,gpus', '--json'], o);
  assert.equal(code, 1);
  const report = JSON.parse(o.out()) as Record<string, unknown> & { findings: Record<string, unknown>[]; verdict: { runbook: string; headline: string } };
  assert.deepEqual(Object.keys(report).slice(0, 7), ['site', 'startedAt', 'finishedAt', 'durationMs', 'findings', 'summary', 'verdict']);
  assert.equal(report.site, 'ana');
  assert.equal(report.fleet, 'drill');
  assert.equal(report.drill, true, 'a drill report says so in --json too');
  for (const f of report.findings) {
    for (const k of ['probe', 'target', 'status', 'detail', 'measuredBy', 'latencyMs']) assert.ok(k in f, `finding lacks ${k}`);
    assert.ok(['up', 'down', 'degraded', 'unknown'].includes(String(f.status)));
  }
  const embed = report.findings.find((f) => f.target === 'qwen3-embed');
  assert.equal(embed?.status, 'down');
  assert.match(String(embed?.detail), /gateway OK, backend vllm-embed@ana-ml2 \/health 503 → the backend is down, not the gateway/);
  const gpu1 = report.findings.find((f) => f.target === 'ana-ml2 GPU1');
  assert.equal(gpu1?.status, 'degraded');
  assert.match(String(gpu1?.detail), /^216 MiB free of 97,887/);
  assert.match(String(gpu1?.measuredBy), /^ssh -o BatchMode=yes -o ConnectTimeout=1 drill@127\.0\.2\.20 nvidia-smi --query-gpu=/);
  assert.equal(report.verdict.runbook, 'gpu-oom-cotenant');
  assert.equal(report.verdict.headline, '1 of 30 aliases down, all routed to ana-ml2', 'the headline as diagnose words it (test/diagnose/verdict.test.ts)');
  assert.ok(!o.out().includes(drill.keys.admin!) && !o.out().includes(drill.keys.shared!), 'no key value in the output');
});

test('piped output streams plain lines, then the report with how it was measured', async () => {
  const o = io(false);
  await runCli(['--inventory', inventory, 'probe', 'fv', '--only', 'gpus'], o);
  const text = o.out();
  assert.ok(!text.includes('\x1b['), 'no escape codes when piped');
  assert.match(text, /^ok {3}gpu {6}fv-ml1 GPU\d/m);
  assert.match(text, /^DRILL fleet "drill": every figure in this report comes from loopback stand-ins, not from the real fleet\nOK fv: all 12 checks up$/m);
  assert.match(text, /12 findings: 12 up, 0 down, 0 degraded, 0 unknown — measured in \d+ ms/);
  assert.equal(text.match(/fv-ml1 GPU0 /g)?.length, 1, 'each finding once when piped');
});

test('--all reaches the report: on a TTY the up GPUs are rows with bars, not one folded count', async () => {
  const folded = io(true);
  assert.equal(await runCli(['--inventory', inventory, 'probe', 'fv', '--only', 'gpus'], folded), 0, folded.err());
  assert.match(folded.out(), /^ {2}4 GPUs ok$/m);
  const all = io(true);
  assert.equal(await runCli(['--inventory', inventory, 'probe', 'fv', '--only', 'gpus', '--all'], all), 0, all.err());
  assert.doesNotMatch(all.out(), /^ {2}4 GPUs ok$/m);
  assert.match(all.out(), /fv-ml1 GPU0/);
});

test('a fleet that is not a drill gets no DRILL mark', async () => {
  const inv = structuredClone(drill.fleet.inventory);
  inv.settings.probeTimeoutMs = 1500;
  inv.fleet = 'prod';
  inv.drill = false;
  const file = join(dir, 'prod.yaml');
  await writeFile(file, stringify(inv));
  const o = io(false);
  await runCli(['--inventory', file, 'probe', 'fv', '--only', 'gpus'], o);
  assert.doesNotMatch(o.out(), /DRILL/);
  assert.match(o.out(), /^OK fv: all 12 checks up$/m);
  const j = io(false);
  await runCli(['--inventory', file, 'probe', 'fv', '--only', 'gpus', '--json'], j);
  assert.equal((JSON.parse(j.out()) as { drill: boolean }).drill, false);
});

test('a scope with nothing to probe says so and is not "all up"', async () => {
  const o = io();
  const code = await runCli(['--inventory', inventory, 'probe', 'ana', '--only', 'gpus', '--json'], o);
  assert.equal(code, 1);
  const none = io();
  // ana-docker has no GPUs, but ana-ml2 does: use a site whose hosts have none.
  const inv = (await readFile(inventory, 'utf8')).replace(/gpuVendor: nvidia/g, 'gpuVendor: none').replace(/gpuVendor: intel/g, 'gpuVendor: none');
  const path = join(dir, 'no-gpus.yaml');
  await writeFile(path, inv);
  assert.equal(await runCli(['--inventory', path, 'probe', 'fv', '--only', 'gpus'], none), 1);
  assert.match(none.out(), /^DEGRADED fv: nothing to probe: no target in this scope$/m);
});

test('on a TTY a progress line is rewritten under the streamed findings', async () => {
  const o = io(true);
  // --all: up rows are folded into counts otherwise, and these bars belong to GPUs that are up.
  await runCli(['--inventory', inventory, 'probe', 'fv', '--only', 'gpus', '--all'], o);
  assert.match(o.out(), /probing fv: 0 of 2 done/);
  assert.match(o.out(), /\r\x1b\[2Kprobing fv: 2 of 2 done|probing fv: 2 of 2 done/);
  // The full report on a TTY draws a bar per GPU; flash-next's KV-cache budget has its weights on top.
  assert.match(o.out(), /\] used 78,\d{3} · declared 14,336 \+ weights · free 18,943 MiB/);
  assert.match(o.out(), /\] used [\d,]+ · declared 88,098 · free 8,641 MiB/, 'gen 0.45 + coder 0.45 of 97,887 add up');
});

test('bad usage: one line naming what was wrong, exit 2, nothing probed', async () => {
  for (const argv of [['probe', 'mars'], ['probe', 'fv;', 'rm', '-rf', '/'], ['probe', '$(id)'], ['launch'], ['probe', 'x'.repeat(10_000)]]) {
    const o = io();
    const code = await runCli(['--inventory', inventory, ...argv], o);
    assert.equal(code, 2, argv.join(' '));
    assert.match(o.err(), /^seat: .+\nusage: seat probe/);
    assert.equal(o.out(), '');
    assert.ok(!o.err().includes('    at '), 'no stack trace');
  }
});

test('a bad inventory: every problem on its own line with its YAML path, exit 2', async () => {
  const bad = join(dir, 'bad.yaml');
  const text = (await readFile(DRILL_INVENTORY, 'utf8')).replace('port: 13493', 'port: "abc"').replace('gpuVendor: intel', 'gpuVendor: amd');
  await writeFile(bad, text);
  const o = io();
  const code = await runCli(['--inventory', bad, 'probe', 'fv'], o);
  assert.equal(code, 2);
  assert.match(o.err(), /  sites\.fv\.ups\.port: expected a number 1-65535, got "abc"\n/);
  assert.match(o.err(), /  sites\.irv\.hosts\.brutus\.gpuVendor: /);
});

test('no inventory at all says how to give one; help needs none', async () => {
  const o = io();
  o.env.SEAT_INVENTORY = undefined;
  assert.equal(await runCli(['probe', 'fv'], o), 2);
  assert.match(o.err(), /no inventory: pass --inventory FILE or set SEAT_INVENTORY/);
  const h = io();
  assert.equal(await runCli(['help'], h), 0);
  assert.match(h.out(), /^usage: seat probe <site\|all>/);
});

test('seat bot without tokens is a clear start-up error and a non-zero exit', async () => {
  const o = io();
  const code = await runCli(['--inventory', inventory, 'bot'], o);
  assert.equal(code, 2);
  assert.match(o.err(), /seat bot: cannot start:\n {2}SLACK_BOT_TOKEN is not set/);
  const bad = io();
  bad.env.SLACK_BOT_TOKEN = 'xoxp-a-user-token';
  bad.env.SLACK_APP_TOKEN = 'nope';
  assert.equal(await runCli(['--inventory', inventory, 'bot'], bad), 2);
  assert.match(bad.err(), /SLACK_BOT_TOKEN does not look like a bot token: expected xoxb-/);
  assert.match(bad.err(), /SLACK_APP_TOKEN does not look like an app-level token/);
  assert.ok(!bad.err().includes('xoxp-a-user-token'), 'a token is never echoed');
});
