// A dark site on loopback, both ways: inside a network namespace the drill makes (root and iproute2)
// the dark addresses have no route while the rest of 127/8 answers; without one, a ping stand-in never
// answers for them and pings the rest for real. The ssh stand-in finds no route to a dark host.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { darken } from '../../drills/scenarios/dark.ts';

function binWithSsh(): string {
  const bin = mkdtempSync(join(tmpdir(), 'seat-dark-'));
  // The drill's ssh stand-in, as far as this test needs it: say who was asked for.
  writeFileSync(join(bin, 'ssh'), '#!/bin/bash\necho "drill ssh reached ${@: -2:1}"\n');
  chmodSync(join(bin, 'ssh'), 0o755);
  return bin;
}

function sh(argv: string[], bin: string): { code: number | null; out: string } {
  const r = spawnSync(argv[0]!, argv.slice(1), { encoding: 'utf8', timeout: 10_000, env: { ...process.env, PATH: `${bin}:${process.env.PATH ?? '/usr/bin:/bin'}` } });
  return { code: r.status, out: `${r.stdout}${r.stderr}` };
}

test('without a namespace: the ping stand-in never answers a dark address and pings the others for real; ssh finds no route', { timeout: 30_000 }, async () => {
  const bin = binWithSsh();
  try {
    const dark = await darken(['127.0.1.10', '127.0.1.11'], bin, { namespace: false });
    assert.equal(dark.pingCommand, undefined, 'ping is found on PATH');
    assert.match(dark.how, /ping stand-in never answers for 127\.0\.1\.10, 127\.0\.1\.11/);
    const silent = sh(['ping', '-c', '1', '-W', '1', '127.0.1.11'], bin);
    assert.equal(silent.code, 1);
    assert.match(silent.out, /1 packets transmitted, 0 received, 100% packet loss/);
    const control = sh(['ping', '-c', '1', '-W', '1', '127.0.2.21'], bin);
    assert.ok(control.code === 0 || /not permitted|denied/i.test(control.out), control.out);
    const ssh = sh(['ssh', '-o', 'BatchMode=yes', '-o', 'ConnectTimeout=2', 'drill@127.0.1.10', 'nvidia-smi'], bin);
    assert.equal(ssh.code, 255);
    assert.match(ssh.out, /ssh: connect to host 127\.0\.1\.10 port 22: No route to host/);
    assert.match(sh(['ssh', '-o', 'BatchMode=yes', 'drill@127.0.2.20', 'nvidia-smi'], bin).out, /drill ssh reached drill@127\.0\.2\.20/);
    await dark.stop();
  } finally {
    rmSync(bin, { recursive: true, force: true });
  }
});

test('inside a network namespace: no route to the dark addresses, the rest of loopback answers, and stop removes it', { timeout: 30_000 }, async (t) => {
  if (process.getuid?.() !== 0 || spawnSync('ip', ['netns', 'list']).status !== 0) {
    t.skip('not root, or no ip netns here');
    return;
  }
  const bin = binWithSsh();
  try {
    const dark = await darken(['127.0.1.1'], bin);
    assert.ok(dark.pingCommand, dark.how);
    const ns = dark.pingCommand[3]!;
    const pinged = (a: string): { code: number | null; out: string } => sh([...dark.pingCommand!, '-c', '1', '-W', '1', a], bin);
    const gone = pinged('127.0.1.1');
    assert.equal(gone.code, 2, gone.out);
    assert.match(gone.out, /No route to host|unreachable/i);
    assert.equal(pinged('127.0.2.17').code, 0);
    await dark.stop();
    assert.doesNotMatch(execFileSync('ip', ['netns', 'list'], { encoding: 'utf8' }), new RegExp(ns));
  } finally {
    rmSync(bin, { recursive: true, force: true });
  }
});

test('without a namespace and without a real ping: no stand-in plays ICMP, so no address fails a ping never sent', { timeout: 30_000 }, async () => {
  const bin = binWithSsh();
  try {
    const dark = await darken(['127.0.1.10'], bin, { namespace: false, ping: false });
    assert.equal(dark.pingCommand, undefined);
    assert.match(dark.how, /no ping here: ICMP is not measured/);
    assert.ok(!existsSync(join(bin, 'ping')), 'no ping stand-in was written');
    await dark.stop();
  } finally {
    rmSync(bin, { recursive: true, force: true });
  }
});
