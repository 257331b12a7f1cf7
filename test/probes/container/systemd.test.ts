// Seats run as systemd units (NixOS, as brutus): read with `systemctl show` over the drill's ssh
// stand-in, a fake `systemctl` first on PATH in a temp folder answering from files written per test;
// and a `local` GPU host's containers asked here, a fake `docker` standing in, as nvidia-smi is.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { chmod, mkdtemp, mkdir, rm, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DRILL_BIN } from '../../../drills/drill.ts';
import { closeServer, listen } from '../../../drills/net.ts';
import { Fleet } from '../../../src/inventory/fleet.ts';
import { parseInventory } from '../../../src/inventory/load.ts';
import { planContainerTasks } from '../../../src/probes/container/plan.ts';
import type { Finding, UnitState } from '../../../src/probes/types.ts';
import { runAll, testProbeEnv } from '../../helpers/probe-env.ts';

const ADDRESS = '127.0.3.35'; // brutus to the drill's ssh stand-in

let dir: string;
let server: Server;
let listening: number;
let n = 0;

before(async () => {
  dir = await mkdtemp(join(tmpdir(), 'seat-units-'));
  server = createServer((s) => s.end());
  listening = await listen(server, 0, ADDRESS);
});

after(async () => {
  await closeServer(server);
  await rm(dir, { recursive: true, force: true });
});

/** systemctl as it answers `show -p P UNIT...`: each unit's block from <unit>.show, else systemd's not-found block. */
const FAKE_SYSTEMCTL = `#!/bin/bash
[[ "$1" == show && "$2" == -p ]] || { echo "fake systemctl: expected show -p, got: $*" >&2; exit 2; }
shift 3
first=1
for u in "$@"; do
  [[ $first == 1 ]] || echo
  first=0
  if [[ -f "$FAKE_DIR/$u.show" ]]; then
    while IFS= read -r line || [[ -n "$line" ]]; do printf '%s\\n' "$line"; done < "$FAKE_DIR/$u.show"
  else
    printf 'Id=%s\\nLoadState=not-found\\nActiveState=inactive\\nSubState=dead\\nNRestarts=0\\nExecMainStartTimestamp=\\n' "$u"
  fi
done
`;

async function fakeBin(files: Record<string, string>): Promise<string> {
  const bin = join(dir, `case-${n++}`);
  await mkdir(bin, { recursive: true });
  for (const [name, text] of Object.entries(files)) {
    await writeFile(join(bin, name), text);
    if (!name.includes('.')) await chmod(join(bin, name), 0o755);
  }
  return bin;
}

function envWith(bin: string, path = process.env.PATH ?? '/usr/bin:/bin', prefix = [bin, DRILL_BIN]) {
  return testProbeEnv({ env: { PATH: path, FAKE_DIR: bin }, passEnv: ['FAKE_DIR'], pathPrefix: prefix, timeoutMs: 3000 });
}

function fleetOf(seats: string): Fleet {
  const r = parseInventory(`
gateway: { baseUrl: http://127.0.0.1:14000, keys: { admin: { env: LITELLM_ADMIN_KEY } } }
sites:
  irv:
    hosts:
      brutus: { address: ${ADDRESS}, ssh: drill@${ADDRESS}, gpuVendor: intel, gpus: [{ index: 0 }] }
seats:
${seats}`);
  if (!r.ok) assert.fail(r.errors.join('\n'));
  return new Fleet(r.value);
}

function unitOf(f: Finding): UnitState {
  assert.equal(f.data.kind, 'unit', `${f.target} carries unit data`);
  if (f.data.kind !== 'unit') throw new Error('unreachable');
  return f.data.unit;
}

const BRUTUS = () => `
  xpu-chat:  { host: brutus, gpus: [0], port: ${listening}, runtime: systemd, unit: vllm-xpu-chat.service, gpuMemoryUtilization: 0.75 }
  xpu-stt:   { host: brutus, gpus: [0], port: 8042, runtime: systemd, gpuMemoryUtilization: 0.07 }
`;

test('a systemd seat is read with systemctl show over ssh: no false "docker has no container" rows, its state as data', async () => {
  const bin = await fakeBin({
    systemctl: FAKE_SYSTEMCTL,
    'vllm-xpu-chat.service.show': 'Id=vllm-xpu-chat.service\nLoadState=loaded\nActiveState=active\nSubState=running\nNRestarts=0\nExecMainStartTimestamp=Mon 2026-12-07 04:10:00 UTC\x1b[2J\n',
    'xpu-stt.service.show': 'Id=xpu-stt.service\nLoadState=loaded\nActiveState=failed\nSubState=failed\nNRestarts=5\nExecMainStartTimestamp=Mon 2026-12-07 04:11:00 UTC\n',
  });
  const fleet = fleetOf(BRUTUS());
  const tasks = planContainerTasks(fleet, { sites: ['irv'] }, envWith(bin));
  assert.deepEqual(tasks.map((t) => [t.id, t.group, t.probe]), [['units:brutus', 'gpus', 'container']], 'one systemctl task, no docker task');
  const findings = await runAll(tasks);
  assert.ok(!findings.some((f) => f.reason === 'no_container'), 'no "docker has no container" row');
  assert.deepEqual(findings.map((f) => [f.target, f.status, f.reason ?? null]), [
    [`vllm-xpu-chat.service@brutus`, 'up', null],
    [`xpu-stt.service@brutus`, 'down', 'not_running'],
  ]);
  const chat = unitOf(findings[0]!);
  assert.deepEqual(chat, {
    host: 'brutus',
    seat: 'xpu-chat',
    unit: 'vllm-xpu-chat.service',
    port: listening,
    loadState: 'loaded',
    activeState: 'active',
    subState: 'running',
    restarts: 0,
    startedAt: 'Mon 2026-12-07 04:10:00 UTC',
    answering: true,
  });
  assert.ok(!findings[0]!.detail.includes('\x1b'), 'control characters stripped');
  assert.equal(unitOf(findings[1]!).restarts, 5);
  assert.equal(unitOf(findings[1]!).activeState, 'failed');
  assert.equal(
    findings[0]!.measuredBy,
    `ssh -o BatchMode=yes -o ConnectTimeout=2 drill@${ADDRESS} systemctl show -p Id,LoadState,ActiveState,SubState,NRestarts,ExecMainStartTimestamp vllm-xpu-chat.service xpu-stt.service; tcp connect ${ADDRESS}:${listening}`,
  );
});

test('a unit systemd does not know is down no_unit; a crash-looping active unit is degraded', async () => {
  const bin = await fakeBin({
    systemctl: FAKE_SYSTEMCTL,
    'vllm-xpu-chat.service.show': 'Id=vllm-xpu-chat.service\nLoadState=loaded\nActiveState=active\nSubState=running\nNRestarts=9\nExecMainStartTimestamp=Mon 2026-12-07 04:10:00 UTC\n',
  });
  const findings = await runAll(planContainerTasks(fleetOf(BRUTUS()), { sites: ['irv'] }, envWith(bin)));
  assert.deepEqual(findings.map((f) => [f.status, f.reason]), [
    ['degraded', 'restarting'],
    ['down', 'no_unit'],
  ]);
});

test('no systemctl on the host: not measured (tool_missing), never down', async () => {
  const bin = await fakeBin({});
  // The remote PATH holds neither systemctl nor the system's: only the fake folder and the drill's bin.
  const findings = await runAll(planContainerTasks(fleetOf(BRUTUS()), { sites: ['irv'] }, envWith(bin, bin)));
  assert.deepEqual(findings.map((f) => [f.status, f.reason]), [
    ['unknown', 'tool_missing'],
    ['unknown', 'tool_missing'],
  ]);
  assert.match(findings[0]!.detail, /systemctl not found on PATH on brutus/);
});

test('an answer that is not one block per unit is unparseable, not a state', async () => {
  const bin = await fakeBin({ systemctl: '#!/bin/bash\necho "ActiveState=active"\n' });
  const findings = await runAll(planContainerTasks(fleetOf(BRUTUS()), { sites: ['irv'] }, envWith(bin)));
  assert.deepEqual(findings.map((f) => [f.status, f.reason]), [
    ['unknown', 'unparseable'],
    ['unknown', 'unparseable'],
  ]);
});

test('the inventory refuses a container on a systemd seat and a unit on a docker one, naming the field', () => {
  const bad = (seat: string): string => {
    const r = parseInventory(`
gateway: { baseUrl: http://127.0.0.1:14000, keys: { admin: { env: LITELLM_ADMIN_KEY } } }
sites: { irv: { hosts: { brutus: { address: ${ADDRESS}, ssh: drill@${ADDRESS} } } } }
seats:
  s: ${seat}
`);
    assert.ok(!r.ok);
    return r.errors.join('\n');
  };
  assert.match(bad('{ host: brutus, gpus: [0], port: 8040, runtime: systemd, container: vllm-chat }'), /container.*a systemd seat has no container/);
  assert.match(bad('{ host: brutus, gpus: [0], port: 8040, unit: vllm-chat.service }'), /unit.*only for runtime: systemd/);
  assert.match(bad('{ host: brutus, gpus: [0], port: 8040, runtime: podman }'), /runtime/);
});

test('a local GPU host: docker inspect runs here, as nvidia-smi does, and a missing docker says not measured', async () => {
  const inspect = JSON.stringify([
    { Name: '/local-seat', RestartCount: 0, State: { Status: 'running', OOMKilled: false, ExitCode: 0, Health: { Status: 'healthy', Log: [] } }, HostConfig: { NetworkMode: 'host' }, NetworkSettings: { Ports: {} } },
  ]);
  const r = parseInventory(`
gateway: { baseUrl: http://127.0.0.1:14000, keys: { admin: { env: LITELLM_ADMIN_KEY } } }
sites:
  lab:
    hosts:
      here: { address: ${ADDRESS}, gpus: [{ index: 0 }] }
seats:
  local-seat: { host: here, gpus: [0], port: ${listening}, container: local-seat, engine: other }
`);
  if (!r.ok) assert.fail(r.errors.join('\n'));
  const fleet = new Fleet(r.value);
  const bin = await fakeBin({ docker: `#!/bin/bash\n[[ "$*" == "inspect --type container local-seat" ]] || exit 2\nprintf '%s' '${inspect}'\n` });
  const tasks = planContainerTasks(fleet, { sites: ['lab'] }, envWith(bin));
  assert.deepEqual(tasks.map((t) => t.id), ['containers:here'], 'the local host is asked, not skipped');
  const [f] = await runAll(tasks);
  assert.equal(f?.status, 'up', f?.detail);
  assert.equal(f?.measuredBy, `docker inspect --type container local-seat; tcp connect ${ADDRESS}:${listening}`);
  const empty = await fakeBin({});
  const [missing] = await runAll(planContainerTasks(fleet, { sites: ['lab'] }, envWith(empty, empty, [empty])));
  assert.deepEqual([missing?.status, missing?.reason], ['unknown', 'tool_missing']);
  assert.match(missing?.detail ?? '', /docker not found on PATH/);
});
