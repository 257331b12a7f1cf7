// `seat probe` as a person runs it, a process from a shell: the start-up (node, modules, the inventory)
// is spent of each target's timeout, so the command takes the timeout and not the timeout plus start-up,
// and the report says so; what cost its timeout is remembered in the state directory and asked first
// the next time. A hanging alias on a loopback LiteLLM stand-in; nothing here is timed.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startGateway } from '../../drills/litellm.ts';
import { waitAfterStartup } from '../../src/commands/probe.ts';

const MAIN = fileURLToPath(new URL('../../src/cli/main.ts', import.meta.url));
const KEY = 'sk-memory-test-0123456789';
const TIMEOUT_MS = 2000;

interface Report {
  timeoutMs: number;
  startupMs: number;
  askedFirst: number;
  durationMs: number;
  findings: { probe: string; target: string; status: string; reason?: string; detail: string }[];
}

function seat(args: string[], env: NodeJS.ProcessEnv): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['--import', 'tsx', MAIN, ...args], { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

test('seat probe spends its start-up from the timeout, says so, and asks what hung last time first', { timeout: 90_000 }, async () => {
  const gateway = await startGateway({ keys: { admin: KEY }, aliases: { 'chat-ok': { mode: 'slow', delayMs: 5 }, 'chat-hang': { mode: 'hang' } } });
  const dir = await mkdtemp(join(tmpdir(), 'seat-memory-'));
  try {
    const inv = join(dir, 'fleet.yaml');
    await writeFile(
      inv,
      `fleet: memtest
settings: { probeTimeoutMs: ${TIMEOUT_MS} }
gateway: { baseUrl: ${gateway.url}, keys: { admin: { env: SEAT_MEM_KEY } } }
sites: { lab: { hosts: { lab-1: { address: 127.0.0.1, gpuVendor: none } } } }
aliases:
  chat-ok: { kind: chat, backend: { name: local, paid: false } }
  chat-hang: { kind: chat, backend: { name: local, paid: false } }
`,
    );
    const state = join(dir, 'state');
    const env: NodeJS.ProcessEnv = { ...process.env, SEAT_MEM_KEY: KEY, XDG_STATE_HOME: state };
    delete env.SEAT_PROBE_MEMORY;
    delete env.SEAT_INVENTORY;
    const args = ['probe', 'lab', '--only', 'aliases', '--json', '--inventory', inv];

    const first = await seat(args, env);
    const r1 = JSON.parse(first.stdout) as Report;
    assert.equal(r1.timeoutMs, TIMEOUT_MS, 'the report keeps the timeout asked for');
    assert.ok(r1.startupMs > 0, 'a process has a start-up, and the report says how long');
    assert.ok(r1.durationMs >= r1.startupMs, 'the duration counts from the command start');
    const hung = r1.findings.find((f) => f.target === 'chat-hang')!;
    assert.equal(hung.status, 'down');
    assert.equal(hung.reason, 'timeout');
    // What the request really waited, not the timeout as if start-up were free.
    assert.match(hung.detail, new RegExp(`within ${waitAfterStartup(TIMEOUT_MS, r1.startupMs)} ms`), hung.detail);
    assert.equal(r1.findings.find((f) => f.target === 'chat-ok')?.status, 'up');
    assert.equal(r1.askedFirst, 0, 'nothing remembered yet');
    const files = await readdir(join(state, 'seatbelt', 'probe-memory'));
    assert.equal(files.length, 1);
    assert.match(await readFile(join(state, 'seatbelt', 'probe-memory', files[0]!), 'utf8'), /alias:chat-hang/);

    // The next run asks the alias that hung first, and the text report says so.
    const text = await seat(args.filter((a) => a !== '--json'), env);
    assert.equal(text.code, 1, text.stderr);
    // On a busy machine the start-up can take over half the timeout: the report then says the other thing.
    assert.match(
      text.stdout,
      /each target (?:waited at most [\d,]+ ms|still waited [\d,]+ ms \(half the timeout\) and the command took longer); 1 target that cost the timeout last time asked first/,
    );

    // A memory file that is not ours is an empty memory, never a failed probe; it is written afresh.
    await writeFile(join(state, 'seatbelt', 'probe-memory', files[0]!), '{"v":1,"slow":[1,2,{}],"restarts":"x"}\u0000garbage');
    const garbled = JSON.parse((await seat(args, env)).stdout) as Report;
    assert.equal(garbled.askedFirst, 0);
    assert.equal(garbled.findings.find((f) => f.target === 'chat-hang')?.status, 'down');
    assert.match(await readFile(join(state, 'seatbelt', 'probe-memory', files[0]!), 'utf8'), /^\{"v":1,"slow":\["alias:chat-hang"\]/);

    // Turned off, with a memory there: it is neither read nor written.
    const memFile = join(state, 'seatbelt', 'probe-memory', files[0]!);
    const kept = await readFile(memFile, 'utf8');
    const off = JSON.parse((await seat(args, { ...env, SEAT_PROBE_MEMORY: 'off' })).stdout) as Report;
    assert.equal(off.askedFirst, 0, 'not read');
    assert.equal(await readFile(memFile, 'utf8'), kept, 'not written');

    // A FIFO in its place is not waited on (the probe ends, nothing remembered), and is replaced by the save.
    await rm(memFile);
    spawnSync('mkfifo', [memFile]);
    const fifo = await seat(args, env);
    assert.equal((JSON.parse(fifo.stdout) as Report).askedFirst, 0, fifo.stderr);
    assert.match(await readFile(memFile, 'utf8'), /alias:chat-hang/);
  } finally {
    await gateway.stop();
    await rm(dir, { recursive: true, force: true });
  }
});
