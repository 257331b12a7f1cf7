// A machine without `ping`: what could not be started is not measured (tool_missing), never down, on
// every path — ping not on PATH, and ping inside `ip netns exec` or a stand-in script that cannot start
// it. Another site's control check then goes by TCP to its configured ports, and says so. The GPU
// query behind the ssh stand-in holds the same line (guards: that path was already right).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { randomBytes } from 'node:crypto';
import { freePort } from '../../drills/net.ts';
import { Fleet } from '../../src/inventory/fleet.ts';
import { parseInventory } from '../../src/inventory/load.ts';
import { planGpuTasks } from '../../src/probes/gpu.ts';
import { planPowerTasks } from '../../src/probes/power.ts';
import type { Finding, ProbeEnv } from '../../src/probes/types.ts';
import { pathWithoutPing, type NoPingPath } from '../helpers/no-ping-path.ts';
import { runAll, testProbeEnv } from '../helpers/probe-env.ts';

let path: NoPingPath;
let server: Server;
let openPort: number;
let closedPort: number;
before(async () => {
  path = pathWithoutPing();
  server = createServer((s) => s.end());
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  openPort = (server.address() as { port: number }).port;
  closedPort = await freePort();
});
after(async () => {
  path.remove();
  await new Promise((resolve) => server.close(resolve));
});

function fleet(): Fleet {
  const r = parseInventory(
    `gateway: { baseUrl: http://127.0.0.1:1, keys: { admin: { env: K } } }
sites:
  fv:
    hosts: { fv-ml1: { address: 127.0.1.10 } }
    bmc: { fv-ml1-bmc: { address: 127.0.0.1, tcpPorts: [${closedPort}] } }
  ana:
    hosts: { ana-ml2: { address: 127.0.2.20 } }
    firewall: { address: 127.0.0.1, tcpPorts: [${openPort}] }
  irv:
    hosts: { irv-ml1: { address: 127.0.3.30 } }
    firewall: { address: 127.0.0.1, tcpPorts: [${closedPort}] }
`,
    'test',
  );
  assert.ok(r.ok, r.ok ? '' : r.errors.join('\n'));
  return new Fleet(r.value);
}

function env(extra: Partial<ProbeEnv> = {}): ProbeEnv {
  return testProbeEnv({ env: { ...process.env, PATH: path.dir }, timeoutMs: 1000, ...extra });
}

const by = (findings: Finding[], target: string): Finding => {
  const f = findings.find((x) => x.target === target);
  assert.ok(f, `no finding for ${target}: ${findings.map((x) => x.target).join(', ')}`);
  return f;
};

/** What every path must hold: nothing is down for a tool that could not start; the host is not measured. */
function assertNotMeasured(findings: Finding[], why: RegExp): void {
  for (const f of findings) assert.ok(!(f.status === 'down' && f.reason === 'tool_missing'), `${f.target}: ${f.detail}`);
  const host = by(findings, 'fv-ml1');
  assert.equal(host.status, 'unknown', host.detail);
  assert.equal(host.reason, 'tool_missing');
  assert.match(host.detail, why);
  assert.doesNotMatch(host.detail, /no ICMP reply/);
  // A port that was measured still counts: the BMC's refused port is a measured failure.
  const bmc = by(findings, 'fv-ml1-bmc');
  assert.equal(bmc.status, 'down', bmc.detail);
  assert.equal(bmc.reason, 'tcp_failed');
  // The control checks of the other sites go by TCP to their firewall's ports, and say so.
  const ana = by(findings, 'ana firewall (control)');
  assert.equal(ana.status, 'up', ana.detail);
  assert.match(ana.detail, new RegExp(`checked by TCP instead: tcp/${openPort} open`));
  assert.deepEqual(ana.provenance, { kind: 'measured', via: [{ how: 'tcp', host: '127.0.0.1', port: openPort }] });
  assert.equal(ana.measuredBy, `tcp connect 127.0.0.1:${openPort}`);
  const irv = by(findings, 'irv firewall (control)');
  assert.equal(irv.status, 'down', irv.detail);
  assert.equal(irv.reason, 'tcp_failed', 'a refused port is a measured failure');
}

test('ping not on PATH: the host is not measured, the BMC is judged by its port, the controls by TCP', async () => {
  const findings = await runAll(planPowerTasks(fleet(), { sites: ['fv'] }, env()));
  assertNotMeasured(findings, /^ping not run \(ping not found on PATH\)$/);
});

test('a stand-in that cannot start ping (its shell exits 127): not measured, not "no ICMP reply"', async () => {
  const bin = mkdtempSync(join(tmpdir(), 'seatbelt-pingwrap-'));
  try {
    writeFileSync(join(bin, 'ping-wrapper'), '#!/bin/bash\nexec ping "$@"\n');
    chmodSync(join(bin, 'ping-wrapper'), 0o755);
    const findings = await runAll(planPowerTasks(fleet(), { sites: ['fv'] }, env({ pingCommand: [join(bin, 'ping-wrapper')] })));
    assertNotMeasured(findings, /^ping not run \(ping could not be started: .*ping: not found\)$/);
  } finally {
    rmSync(bin, { recursive: true, force: true });
  }
});

describe('ping inside a network namespace this test makes, on a PATH without ping', () => {
  const ns = `seatbelt-noping-${randomBytes(4).toString('hex')}`;
  let skip: string | null = null;
  before(() => {
    if (process.getuid?.() !== 0) skip = 'not root: cannot create a network namespace';
    else if (spawnSync('ip', ['netns', 'add', ns], { timeout: 5000 }).status !== 0) skip = 'ip netns add failed here';
    else spawnSync('ip', ['-n', ns, 'link', 'set', 'lo', 'up'], { timeout: 5000 });
  });
  after(() => {
    if (!skip) spawnSync('ip', ['netns', 'delete', ns], { timeout: 5000 });
  });

  test('`exec of "ping" failed` is tool_missing, not a failed ping (ip netns exec exits 1 as a lost ping does)', async (t) => {
    if (skip) {
      t.skip(skip);
      return;
    }
    const findings = await runAll(planPowerTasks(fleet(), { sites: ['fv'] }, env({ pingCommand: ['ip', 'netns', 'exec', ns, 'ping'] })));
    assertNotMeasured(findings, /^ping not run \(ping could not be started: exec of "ping" failed: No such file or directory\)$/);
  });
});

describe('the GPU query behind the drill’s ssh stand-in, on a PATH without nvidia-smi', () => {
  const DRILL_SSH = fileURLToPath(new URL('../../drills/bin/ssh', import.meta.url));
  const gpuFleet = (): Fleet => {
    const r = parseInventory(`gateway: { baseUrl: http://127.0.0.1:1, keys: { admin: { env: K } } }
sites:
  ana: { hosts: { ana-ml2: { address: 127.0.2.20, ssh: drill@127.0.2.20, gpus: [{ index: 0 }] } } }
`);
    assert.ok(r.ok, r.ok ? '' : r.errors.join('\n'));
    return new Fleet(r.value);
  };

  test('the stand-in’s `exec nvidia-smi` cannot start it (exit 127): not measured, tool_missing, not down', async () => {
    const bin = mkdtempSync(join(tmpdir(), 'seatbelt-sshwrap-'));
    try {
      // Only the ssh stand-in: its `exec "$@"` finds no nvidia-smi on this PATH.
      writeFileSync(join(bin, 'ssh'), readFileSync(DRILL_SSH));
      chmodSync(join(bin, 'ssh'), 0o755);
      const findings = await runAll(planGpuTasks(gpuFleet(), { sites: ['ana'] }, env({ pathPrefix: [bin] })));
      assert.ok(findings.length > 0);
      for (const f of findings) {
        assert.equal(f.status, 'unknown', f.detail);
        assert.equal(f.reason, 'tool_missing');
        assert.match(f.detail, /nvidia-smi not found on PATH on ana-ml2/);
      }
    } finally {
      rmSync(bin, { recursive: true, force: true });
    }
  });

  test('no ssh at all: tool_missing, "ssh not found on PATH", not an unreachable host', async () => {
    const findings = await runAll(planGpuTasks(gpuFleet(), { sites: ['ana'] }, env()));
    assert.ok(findings.length > 0);
    for (const f of findings) {
      assert.equal(f.status, 'unknown', f.detail);
      assert.equal(f.reason, 'tool_missing');
      assert.match(f.detail, /^ssh not found on PATH/);
    }
  });
});
