// `seat check` adds up the declared budgets of the seats sharing one card (seed 000's static half:
// two seats at 0.43 + 0.41 of one card), and a card declared past its whole memory is told as a
// warning, as the loader's other warnings are: the inventory is still valid (exit 0).
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runCli, type CliIo } from '../../src/cli/run.ts';

let dir: string;
before(async () => {
  dir = await mkdtemp(join(tmpdir(), 'seatbelt-check-budgets-'));
});
after(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function check(seats: string): Promise<{ code: number; out: string; err: string }> {
  const file = join(dir, `fleet-${Math.random().toString(36).slice(2)}.yaml`);
  await writeFile(
    file,
    `gateway: { baseUrl: http://127.0.0.1:14000, keys: { admin: { env: LITELLM_ADMIN_KEY } } }
sites:
  ana:
    hosts:
      ana-ml2: { address: 127.0.2.20, ssh: drill@127.0.2.20, gpus: [{ index: 0 }, { index: 1 }] }
seats:
${seats}`,
  );
  let out = '';
  let err = '';
  const io: CliIo = { stdout: { write: (s: string) => (out += s), isTTY: false }, stderr: { write: (s: string) => (err += s) }, env: { SEAT_PROBE_MEMORY: 'off' } };
  const code = await runCli(['check', '--inventory', file], io);
  return { code, out, err };
}

test('seed 000’s static half: two seats at 0.43 + 0.41 of one card add up to 0.84 of it, said by seat check', async () => {
  const r = await check(`  gen:     { host: ana-ml2, gpus: [0], port: 8000, gpuMemoryUtilization: 0.43 }
  mog-sec: { host: ana-ml2, gpus: [0], port: 8010, gpuMemoryUtilization: 0.41 }
  embed:   { host: ana-ml2, gpus: [1], port: 8011, gpuMemoryUtilization: 0.035 }
`);
  assert.equal(r.code, 0, r.err);
  assert.match(r.out, /^ {2}ana-ml2 GPU0 +gen 0\.43 \+ mog-sec 0\.41 = 0\.84 of the card's total memory$/m);
  assert.match(r.out, /the card's size is measured by seat probe, not declared/);
  assert.ok(!/ana-ml2 GPU1/.test(r.out), 'a card one seat has is not a shared card');
  assert.equal(r.err, '', 'under the whole card: no warning');
});

test('seats declaring more than the whole card: a warning naming the card and the sum, the inventory still valid', async () => {
  const r = await check(`  gen:     { host: ana-ml2, gpus: [0], port: 8000, gpuMemoryUtilization: 0.52 }
  mog-sec: { host: ana-ml2, gpus: [0], port: 8010, gpuMemoryUtilization: 0.43 }
  flash:   { host: ana-ml2, gpus: [0], port: 8012, gpuMemoryUtilization: 0.1 }
`);
  assert.equal(r.code, 0);
  assert.match(r.out, /ana-ml2 GPU0 +gen 0\.52 \+ mog-sec 0\.43 \+ flash 0\.1 = 1\.05 of the card's total memory — OVER the whole card: they cannot all start/);
  assert.match(r.err, /^seat: warning: ana-ml2 GPU0: the seats sharing it declare more than the whole card \(gen 0\.52 \+ mog-sec 0\.43 \+ flash 0\.1 = 1\.05 of the card's total memory\): they cannot all start$/m);
});

test('seat check names a systemd seat’s unit (its runtime), defaulting to <seat>.service', async () => {
  const r = await check(`  xpu-chat: { host: ana-ml2, gpus: [0], port: 8040, runtime: systemd, unit: vllm-xpu-chat.service, gpuMemoryUtilization: 0.75 }
  xpu-stt:  { host: ana-ml2, gpus: [1], port: 8042, runtime: systemd, gpuMemoryUtilization: 0.07 }
`);
  assert.equal(r.code, 0, r.err);
  assert.match(r.out, /xpu-chat .*systemd unit vllm-xpu-chat\.service$/m);
  assert.match(r.out, /xpu-stt .*systemd unit xpu-stt\.service$/m);
});
