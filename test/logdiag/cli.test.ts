// `seat diagnose` through the terminal front end: stdin through the real program, files and pasted
// text in-process, and --seat reaching a container's log through the drill's ssh stand-in and a
// docker stand-in of this folder's fixtures (test/fixtures/logdiag/bin/docker).
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { createReadStream } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { runCli, type CliIo } from '../../src/cli/run.ts';
import { DRILL_BIN } from '../../drills/drill.ts';
import { fixture, FIXTURES } from './fixtures.ts';

const MAIN = fileURLToPath(new URL('../../src/cli/main.ts', import.meta.url));
const REPO = fileURLToPath(new URL('../../', import.meta.url));

const INVENTORY = `gateway: { baseUrl: http://127.0.0.1:9, keys: { admin: { env: SEAT_TEST_UNSET_KEY } } }
sites:
  irv:
    hosts:
      brutus: { address: 127.0.3.35, ssh: drill@127.0.3.35, gpuVendor: intel, gpus: [{ index: 0 }] }
      lab: { address: 127.0.0.1, ssh: local, gpus: [{ index: 0 }] }
      elsewhere: { address: 127.0.9.9, ssh: ops@127.0.9.9, gpus: [{ index: 0 }] }
  ana:
    hosts:
      ana-ml2: { address: 127.0.2.20, ssh: drill@127.0.2.20, gpus: [{ index: 0 }, { index: 1 }] }
seats:
  xpu-chat: { host: brutus, gpus: [0], port: 8040, gpuMemoryUtilization: 0.75, container: vllm-xpu-chat }
  xpu-stt: { host: brutus, gpus: [0], port: 8042, gpuMemoryUtilization: 0.07 }
  xpu-gone: { host: brutus, gpus: [0], port: 8043, gpuMemoryUtilization: 0.07, container: vllm-xpu-gone }
  lab-seat: { host: lab, gpus: [0], port: 8000, gpuMemoryUtilization: 0.5, container: vllm-lab }
  far: { host: elsewhere, gpus: [0], port: 8000, gpuMemoryUtilization: 0.5, container: vllm-far }
  gen: { host: ana-ml2, gpus: [0], port: 8000, gpuMemoryUtilization: 0.41, container: vllm-gen }
aliases: {}
`;

let dir: string;
let inventory: string;

before(async () => {
  dir = await mkdtemp(join(tmpdir(), 'seat-diagnose-'));
  inventory = join(dir, 'fleet.yaml');
  await writeFile(inventory, INVENTORY);
});

after(async () => {
  await rm(dir, { recursive: true, force: true });
});

function io(stdin?: NodeJS.ReadableStream): CliIo & { out: () => string; err: () => string } {
  let out = '';
  let err = '';
  const env = { PATH: process.env.PATH ?? '/usr/bin:/bin' };
  return {
    stdout: { write: (s: string) => (out += s) },
    stderr: { write: (s: string) => (err += s) },
    env,
    // The docker stand-in first, then the drill's ssh: ssh runs the remote command here, on this PATH.
    probeDeps: { env, pathPrefix: [`${FIXTURES}bin`, DRILL_BIN] },
    ...(stdin ? { stdin } : {}),
    out: () => out,
    err: () => err,
  };
}

function runMain(args: string[], input: NodeJS.ReadableStream): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const env: NodeJS.ProcessEnv = { ...process.env };
    delete env.SEAT_INVENTORY;
    const child = spawn(process.execPath, ['--import', 'tsx', MAIN, ...args], { cwd: REPO, env, stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
    input.pipe(child.stdin);
  });
}

test('stdin through the real program: seed 004 read, its numbers and options printed, exit 1', { timeout: 60_000 }, async () => {
  const r = await runMain(['diagnose', '-'], createReadStream(fixture('brutus-xpu-chat-boot.txt')));
  assert.equal(r.code, 1, r.stderr);
  assert.match(r.stdout, /^seat diagnose: 2 problems in 25 lines of stdin/);
  assert.match(r.stdout, /PROBLEM {2}kv_cache_insufficient {2}line 16 \(09-13 06:56\), 2 times \(last: line 21\)/);
  assert.match(r.stdout, /3\.36 GiB of KV cache needed for max seq len 131,072, 2\.13 GiB available \(1\.23 GiB short\); vLLM estimates max model len 46,528/);
  assert.match(r.stdout, /1\. Serial start ordering/);
  assert.match(r.stdout, /2\. Absolute KV budgets/);
  assert.match(r.stdout, /3\. Chat first only/);
  assert.match(r.stdout, /runbook: seat runbook start kv-cache-boot-race/);
  assert.match(r.stdout, /PROBLEM {2}engine_init_failed {2}line 25/);
  assert.match(r.stdout, /info {5}kv_cache_memory {2}2\.13 GiB available for the KV cache, line 9/);
  assert.equal(r.stderr, '');
});

test('stdin of noise through the real program: nothing recognised, exit 0', { timeout: 60_000 }, async () => {
  const r = await runMain(['diagnose', '-'], createReadStream(fixture('noise.txt')));
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stdout, /^seat diagnose: nothing recognised in 21 lines of stdin/);
});

test('a file: seed 000 fallbacks per minute, the worst minute, the figures, exit 1', async () => {
  const o = io();
  const code = await runCli(['diagnose', fixture('gen-flashinfer-util041.txt')], o);
  assert.equal(code, 1, o.err());
  const out = o.out();
  assert.match(out, /PROBLEM {2}flashinfer_oom_fallback {2}lines 4-111/);
  assert.match(out, /56 FlashInfer autotuner OOM-fallbacks in 3 minutes \(09-04 16:45-16:47\), 18\.7 a minute, worst minute 09-04 16:46 with 21/);
  assert.match(out, /per minute: 09-04 16:45 17 · 09-04 16:46 21 · 09-04 16:47 18/);
  assert.match(out, /note {5}max_concurrency {2}line 3 \(09-04 16:44\)\n {2}1\.02x at 262,144 tokens per request/);
  assert.match(out, /info {5}kv_cache_size {2}268,205 tokens, line 2/);
});

test('after the fix: six minutes, no fallback, exit 0', async () => {
  const o = io();
  assert.equal(await runCli(['diagnose', fixture('gen-flashinfer-util038.txt')], o), 0);
  assert.match(o.out(), /^seat diagnose: no problem in 73 lines/);
});

test('seed 002: the allocator OOM in bytes and MiB, the pinned budget noted, exit 1', async () => {
  const o = io();
  assert.equal(await runCli(['diagnose', fixture('flash-next-16g.txt')], o), 1);
  assert.match(o.out(), /allocation failed on device 0: 488,636,416 bytes \(466 MiB\) wanted, 422,117,376 bytes \(403 MiB\) free \(vLLM allocator\)/);
  assert.match(o.out(), /note {5}profiling_skipped {2}line 3 .*\n {2}KV budget pinned at 16\.00 GiB/);
});

test('pasted text as the argument is the log; the command line turns its line breaks into spaces, the records are found again', async () => {
  const text = await readFile(fixture('kv-seed-paste.txt'), 'utf8');
  const o = io();
  assert.equal(await runCli(['diagnose', text], o), 1, o.err());
  assert.match(o.out(), /^seat diagnose: 1 problem in 2 lines of the pasted text/);
  assert.match(o.out(), /3\.36 GiB of KV cache needed for max seq len 131,072, 2\.13 GiB available \(1\.23 GiB short\); vLLM estimates max model len 46,528/);
  const fallbacks = [
    '(EngineCore_DP0 pid=88) WARNING 09-04 16:45:07 [autotuner.py:469] [Autotuner]: OOM detected, falling back to default tactic',
    '(EngineCore_DP0 pid=88) WARNING 09-04 16:45:31 [autotuner.py:469] [Autotuner]: OOM detected, falling back to default tactic',
    '(EngineCore_DP0 pid=88) WARNING 09-04 16:46:02 [autotuner.py:469] [Autotuner]: OOM detected, falling back to default tactic',
  ].join('\n');
  const f = io();
  assert.equal(await runCli(['diagnose', fallbacks], f), 1, f.err());
  assert.match(f.out(), /in 3 lines of the pasted text/, 'three records, one line as the command line gave it');
  assert.match(f.out(), /3 FlashInfer autotuner OOM-fallbacks in 2 minutes \(09-04 16:45-16:46\), 1\.5 a minute, worst minute 09-04 16:45 with 2/);
  // As a shell splits an unquoted paste into words.
  const w = io();
  assert.equal(await runCli(['diagnose', ...'GPU KV cache size: 560,654 tokens'.split(' ')], w), 0);
  assert.match(w.out(), /kv_cache_size {2}560,654 tokens, line 1/);
});

test('bad input: exit 2 with one plain line', async () => {
  const cases: [string[], RegExp][] = [
    [['diagnose'], /needs a log: a file, - \(stdin\), pasted log lines, or --seat SEAT/],
    [['diagnose', join(dir, 'missing.txt')], /no such file: .*missing\.txt \(give a file, - for stdin, or paste the log lines\)/],
    [['diagnose', dir], /is not a file/],
    [['diagnose', '--since', '10m', fixture('noise.txt')], /--since goes with --seat/],
    [['diagnose', fixture('noise.txt'), '--since', '10m'], /--since goes with --seat/], // a flag is a flag wherever it stands
  ];
  for (const [argv, re] of cases) {
    const o = io();
    assert.equal(await runCli(argv, o), 2, argv.join(' '));
    assert.match(o.err(), re);
    assert.equal(o.out(), '');
  }
});

test('--seat: the seat\'s docker logs over the drill ssh, both streams merged in time order, exit 1', { timeout: 60_000 }, async () => {
  const o = io();
  const code = await runCli(['--inventory', inventory, 'diagnose', '--seat', 'xpu-chat'], o);
  assert.equal(code, 1, o.err());
  const out = o.out();
  assert.match(out, /^seat diagnose: 2 problems in 10 lines of docker logs of xpu-chat \(vllm-xpu-chat on brutus, last 30m\)/);
  // Line 6 is the logged error (stdout), line 9 the raw traceback's (stderr), line 10 the front end's last word.
  assert.match(out, /kv_cache_insufficient {2}line 6 \(09-13 06:56\), 2 times \(last: line 9\)/);
  assert.match(out, /engine_init_failed {2}line 10/);
  assert.match(out, /3\.36 GiB of KV cache needed for max seq len 131,072, 2\.13 GiB available/);
  assert.equal(o.err(), '');
});

test('--seat gen --since 10m: fallbacks on stderr counted per minute of docker\'s clock', { timeout: 60_000 }, async () => {
  const o = io();
  assert.equal(await runCli(['--inventory', inventory, 'diagnose', '--seat', 'gen', '--since', '10m'], o), 1, o.err());
  assert.match(o.out(), /last 10m/);
  assert.match(o.out(), /56 FlashInfer autotuner OOM-fallbacks in 3 minutes \(09-04 23:45-23:47\), 18\.7 a minute, worst minute 09-04 23:46 with 21/);
});

test('--seat that cannot be read: no container, a local host, no such container, ssh refused, unknown seat, no inventory: exit 2', { timeout: 60_000 }, async () => {
  const cases: [string[], RegExp][] = [
    [['--inventory', inventory, 'diagnose', '--seat', 'xpu-stt'], /seat xpu-stt has no container in the inventory: add container: NAME to its entry, or run `docker logs --timestamps --since 30m --tail 20000 CONTAINER 2>&1 \| seat diagnose -` on brutus/],
    [['--inventory', inventory, 'diagnose', '--seat', 'lab-seat'], /host lab has no ssh destination in the inventory \(ssh: local\)/],
    [['--inventory', inventory, 'diagnose', '--seat', 'xpu-gone'], /docker logs vllm-xpu-gone on brutus failed \(exit 1\): Error response from daemon: No such container: vllm-xpu-gone/],
    [['--inventory', inventory, 'diagnose', '--seat', 'far'], /ssh to ops@127\.0\.9\.9 failed: ssh: connect to host ops@127\.0\.9\.9 port 22/],
    [['--inventory', inventory, 'diagnose', '--seat', 'nope'], /no seat nope in the inventory \(seats: xpu-chat, xpu-stt/],
    [['--inventory', inventory, 'diagnose', '--seat', 'xpu-chat', fixture('noise.txt')], /give a log \(a file, - or pasted lines\) or --seat SEAT, not both/],
    [['--inventory', inventory, 'diagnose', fixture('noise.txt'), '--seat', 'xpu-chat'], /give a log \(a file, - or pasted lines\) or --seat SEAT, not both/],
  ];
  for (const [argv, re] of cases) {
    const o = io();
    assert.equal(await runCli(argv, o), 2, argv.join(' '));
    assert.match(o.err(), re);
    assert.equal(o.out(), '');
  }
  const none = io();
  assert.equal(await runCli(['diagnose', '--seat', 'xpu-chat'], none), 2);
  assert.match(none.err(), /no inventory/);
});
