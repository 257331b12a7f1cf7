// Power and out-of-band probes against real peers: Debian's upsd with dummy-ups, real `ping`,
// loopback TCP listeners, and an unreachable address inside a network namespace this test creates.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { execa } from 'execa';
import { parseInventory } from '../../src/inventory/load.ts';
import { Fleet } from '../../src/inventory/fleet.ts';
import { judgeUps, planPowerTasks } from '../../src/probes/power.ts';
import { runTasks } from '../../src/probes/runner.ts';
import type { Finding, ProbeEnv, ProbeTask } from '../../src/probes/types.ts';
import { freePort, startUpsd, upsdUnavailableReason, type Upsd } from '../../drills/upsd.ts';
import { testProbeEnv } from '../helpers/probe-env.ts';

const TIMEOUT_MS = 1000;

function fleetFrom(yaml: string): Fleet {
  const r = parseInventory(`gateway: { baseUrl: http://127.0.0.1:1, keys: { admin: { env: K } } }\n${yaml}`, 'test');
  assert.ok(r.ok, r.ok ? '' : r.errors.join('\n'));
  return new Fleet(r.value);
}

function probeEnv(extra: Partial<ProbeEnv> = {}): ProbeEnv {
  return testProbeEnv({ env: process.env, timeoutMs: TIMEOUT_MS, ...extra });
}

async function run(task: ProbeTask): Promise<Finding> {
  const findings = await task.run(new AbortController().signal);
  assert.equal(findings.length, 1);
  return findings[0]!;
}

function tasksFor(fleet: Fleet, sites: string[], env = probeEnv()): ProbeTask[] {
  return planPowerTasks(fleet, { sites }, env);
}

function upsTaskAt(port: number, opts: { name?: string; ratedW?: number | null; warnPct?: number } = {}): ProbeTask {
  const rated = opts.ratedW === null ? '' : `, ratedW: ${opts.ratedW ?? 900}`;
  const fleet = fleetFrom(`
settings: { upsLoadWarnPct: ${opts.warnPct ?? 80} }
sites:
  fv:
    hosts: {}
    ups: { host: 127.0.0.1, port: ${port}, name: ${opts.name ?? 'fvups'}, ratedVA: 1500${rated} }
`);
  const tasks = tasksFor(fleet, ['fv']);
  assert.equal(tasks.length, 1);
  return tasks[0]!;
}

/** A loopback listener: `silent` accepts and never answers; otherwise it answers each line with `reply`. */
async function listener(reply?: (line: string) => string): Promise<{ server: Server; port: number; sockets: Set<Socket>; closed: () => number }> {
  const sockets = new Set<Socket>();
  let closed = 0;
  const server = createServer((s) => {
    sockets.add(s);
    s.on('error', () => {});
    s.on('close', () => {
      closed += 1;
      sockets.delete(s);
    });
    // Read even when silent: an unread socket never sees the peer's FIN, so it would never close.
    s.on('data', (d) => {
      if (reply) s.write(reply(String(d)));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const a = server.address();
  assert.ok(a && typeof a === 'object');
  return { server, port: a.port, sockets, closed: () => closed };
}

function closeServer(server: Server, sockets?: Set<Socket>): Promise<void> {
  for (const s of sockets ?? []) s.destroy();
  return new Promise((resolve) => server.close(() => resolve()));
}

// ---- planning ----------------------------------------------------------------------------------

test('a site probe plans its UPS, BMCs, firewall and hosts, plus one control ping per other site', async () => {
  const { loadInventory } = await import('../../src/inventory/load.ts');
  const r = await loadInventory(new URL('../../drills/fleet.yaml', import.meta.url).pathname);
  assert.ok(r.ok);
  const tasks = tasksFor(new Fleet(r.value), ['fv']);
  assert.deepEqual(
    tasks.map((t) => [t.probe, t.target, t.site]),
    [
      ['ups', 'fvups@127.0.0.1:13493', 'fv'],
      ['bmc', 'fv-ml1-bmc', 'fv'],
      ['firewall', 'fv firewall', 'fv'],
      ['host', 'fv-ml1', 'fv'],
      ['firewall', 'ana firewall (control)', 'ana'],
      ['firewall', 'irv firewall (control)', 'irv'],
    ],
  );
  assert.ok(tasks.every((t) => t.group === 'power' && t.timeoutMs === TIMEOUT_MS));
  assert.equal(new Set(tasks.map((t) => t.id)).size, tasks.length, 'task ids are unique');
  const onTimeout = tasks[1]!.onTimeout(TIMEOUT_MS);
  assert.equal(onTimeout[0]?.status, 'down');
  assert.match(onTimeout[0]!.detail, /no answer within 1000 ms/);
});

test('a site without a firewall is controlled by its first host; every site in scope gets no control', () => {
  const fleet = fleetFrom(`
sites:
  fv: { hosts: { fv-ml1: { address: 127.0.0.1 } } }
  irv: { hosts: { irv-ml1: { address: 127.0.3.30 }, brutus: { address: 127.0.3.35 } } }
`);
  assert.deepEqual(
    tasksFor(fleet, ['fv']).map((t) => [t.probe, t.target, t.site]),
    [
      ['host', 'fv-ml1', 'fv'],
      ['firewall', 'irv-ml1 (control)', 'irv'],
    ],
  );
  assert.ok(tasksFor(fleet, ['fv', 'irv']).every((t) => !t.target.endsWith('(control)')));
});

// ---- the UPS, read from a real upsd ------------------------------------------------------------

const EATON_OL = { 'ups.status': 'OL', 'ups.load': '34', 'ups.power.nominal': '1500', 'battery.charge': '100', 'battery.runtime': '1540' };
const noUpsd = upsdUnavailableReason();

describe('UPS through a real upsd with dummy-ups', { skip: noUpsd ? `skipped: ${noUpsd}` : false }, () => {
  let eaton: Upsd; // OL, Eaton 1500 VA: no ups.realpower.nominal
  let goesOnBattery: Upsd; // dummy-loop: starts OL, the test switches it to OB LB
  let overloaded: Upsd; // OL OVER at 86%, reports its own 1000 W rating
  let noDriver: Upsd;
  let stale: Upsd;
  let metered: Upsd; // reports ups.realpower: what it draws, not an estimate

  before(async () => {
    const ports = await Promise.all([1, 2, 3, 4, 5, 6].map(() => freePort()));
    [eaton, goesOnBattery, overloaded, noDriver, stale, metered] = await Promise.all([
      startUpsd({ upsName: 'fvups', port: ports[0]!, dev: EATON_OL }),
      startUpsd({ upsName: 'fvups', port: ports[1]!, dev: EATON_OL, mode: 'dummy-loop' }),
      startUpsd({ upsName: 'fvups', port: ports[2]!, dev: { 'ups.status': 'OL OVER', 'ups.load': '86', 'ups.realpower.nominal': '1000', 'battery.charge': '100', 'battery.runtime': '300' } }),
      startUpsd({ upsName: 'fvups', port: ports[3]!, dev: EATON_OL }),
      startUpsd({ upsName: 'fvups', port: ports[4]!, dev: EATON_OL, maxAgeS: 1 }),
      startUpsd({ upsName: 'fvups', port: ports[5]!, dev: { ...EATON_OL, 'ups.load': '52', 'ups.realpower': '761' } }),
    ]);
  });
  after(async () => {
    await Promise.all([eaton, goesOnBattery, overloaded, noDriver, stale, metered].map((u) => u?.stop()));
  });

  test('OL on an Eaton 1500 VA unit: up, watts from the inventory rating since upsd has no realpower.nominal', async () => {
    const f = await run(upsTaskAt(eaton.port));
    assert.equal(f.status, 'up', f.detail);
    assert.equal(f.detail, 'OL, load 34 % (≈306 W of the 900 W rating, from load % × rating), battery 100 %, runtime 1,540 s');
    assert.equal(f.target, `fvups@127.0.0.1:${eaton.port}`);
    assert.equal(f.measuredBy, `NUT LIST VAR fvups @127.0.0.1:${eaton.port}`);
    assert.equal(f.site, 'fv');
    assert.ok(f.data?.kind === 'ups');
    assert.deepEqual(
      { status: f.data.ups.status, loadPct: f.data.ups.loadPct, loadW: f.data.ups.loadW, loadWFrom: f.data.ups.loadWFrom, ratedW: f.data.ups.ratedW, chargePct: f.data.ups.chargePct, runtimeS: f.data.ups.runtimeS },
      { status: ['OL'], loadPct: 34, loadW: 306, loadWFrom: 'load×rating', ratedW: 900, chargePct: 100, runtimeS: 1540 },
    );
    assert.equal(f.data.ups.vars['ups.power.nominal'], '1500');
    assert.equal(f.data.ups.vars['driver.name'], 'dummy-ups', 'the figures came from the real driver');
  });

  test('a UPS that meters its output: its watts are believed over load % × rating, and 761 W of 900 W is flagged', async () => {
    const f = await run(upsTaskAt(metered.port));
    assert.equal(f.status, 'degraded', f.detail);
    // Like with like: metered watts against the watt rating, never a percentage against watts.
    assert.match(f.detail, /^OL, 761 W metered of the 900 W rating \(85 %\)/);
    assert.match(f.detail, /761 W metered, above 80 % of the 900 W rating \(720 W\)/);
    assert.equal(f.reason, 'overload');
    assert.ok(f.data?.kind === 'ups');
    assert.equal(f.data.ups.loadW, 761);
    assert.equal(f.data.ups.loadWFrom, 'ups.realpower');
  });

  test('no rating anywhere: the load is shown and the missing ratedW is named', async () => {
    const f = await run(upsTaskAt(eaton.port, { ratedW: null }));
    assert.equal(f.status, 'up');
    assert.match(f.detail, /load 34 % \(no watt rating: set ratedW in the inventory\)/);
  });

  test('the UPS goes on battery and low: up, then down with what OB and LB mean', async () => {
    const task = upsTaskAt(goesOnBattery.port);
    assert.equal((await run(task)).status, 'up');
    await goesOnBattery.setState({ 'ups.status': 'OB LB', 'ups.load': '41', 'battery.charge': '8', 'battery.runtime': '95' });
    const f = await run(task);
    assert.equal(f.status, 'down', f.detail);
    assert.match(f.detail, /^OB LB, load 41 % \(≈369 W of the 900 W rating, from load % × rating\), battery 8 %, runtime 95 s — /);
    assert.equal(f.reason, 'low_battery');
    assert.match(f.detail, /LB: battery low/);
    assert.match(f.detail, /OB: on battery: mains power is lost/);
  });

  test('OL OVER at 86%: degraded, the overload flagged with the lesson in words, no write-up named', async () => {
    const f = await run(upsTaskAt(overloaded.port));
    assert.equal(f.status, 'degraded', f.detail);
    assert.match(f.detail, /^OL OVER, load 86 % \(≈860 W of the 1,000 W rating, from load % × rating\)/);
    assert.match(f.detail, /OVER: the UPS reports an overload/);
    assert.match(f.detail, /load 86 %, above the 80 % warning threshold — an overloaded UPS is the first device to give/);
    assert.doesNotMatch(f.detail, /seed|\d{3}_/, 'a user never sees our write-ups’ file names');
    assert.equal(f.reason, 'overload');
  });

  test('a UPS name upsd does not know: unknown, pointing at the inventory', async () => {
    const f = await run(upsTaskAt(eaton.port, { name: 'nosuchups' }));
    assert.equal(f.status, 'unknown');
    assert.match(f.detail, /no UPS named nosuchups.*ERR UNKNOWN-UPS/);
    assert.equal(f.measuredBy, `NUT LIST VAR nosuchups @127.0.0.1:${eaton.port}`);
  });

  test('the driver is gone: upsd answers DRIVER-NOT-CONNECTED, reported down', async () => {
    await noDriver.stopDriver();
    const f = await run(upsTaskAt(noDriver.port));
    assert.equal(f.status, 'down');
    assert.match(f.detail, /no driver is connected .*nothing is reading the UPS \(ERR DRIVER-NOT-CONNECTED\)/);
  });

  test('the driver stops talking: after MAXAGE upsd answers DATA-STALE, reported down', async () => {
    stale.freezeDriver();
    try {
      let f: Finding | undefined;
      for (let i = 0; i < 40; i++) {
        f = await run(upsTaskAt(stale.port));
        if (f.status !== 'up') break;
        await new Promise((res) => setTimeout(res, 100));
      }
      assert.equal(f?.status, 'down', f?.detail);
      assert.match(f!.detail, /stale data .*driver lost contact with the UPS hardware \(ERR DATA-STALE\)/);
    } finally {
      stale.thawDriver();
    }
  });

  test('the harness: a port already in use is a clear error; stop() is idempotent and really stops upsd', async () => {
    const held = await listener();
    try {
      await assert.rejects(startUpsd({ upsName: 'fvups', port: held.port, dev: EATON_OL }), /127\.0\.0\.1:\d+: the port is already in use/);
    } finally {
      await closeServer(held.server, held.sockets);
    }
    const port = await freePort();
    const u = await startUpsd({ upsName: 'fvups', port, dev: 'ups.status: OL\nups.load: 12\n' });
    assert.equal((await run(upsTaskAt(port))).status, 'up');
    await Promise.all([u.stop(), u.stop()]);
    await u.stop();
    const f = await run(upsTaskAt(port));
    assert.equal(f.status, 'down');
    assert.match(f.detail, /refused/);
  });
});

// ---- the UPS when upsd is not there or does not behave -----------------------------------------

test('nothing listening on the upsd port: down, "upsd unreachable ... refused"', async () => {
  const port = await freePort();
  const f = await run(upsTaskAt(port));
  assert.equal(f.status, 'down');
  assert.match(f.detail, new RegExp(`^upsd unreachable at 127\\.0\\.0\\.1:${port}: connection refused`));
  assert.equal(f.reason, 'refused');
  assert.ok(f.data.kind === 'ups' && f.data.ups.ups === 'fvups' && f.data.ups.loadPct === null, 'a failed UPS query still says which UPS, with no figure invented');
});

test('a peer that accepts and never answers costs the timeout, not more, and is let go', async () => {
  const slow = await listener();
  try {
    const task = upsTaskAt(slow.port);
    // How long it held is measured in the bench; here: it ends, says why, and lets the peer go.
    const { findings } = await runTasks([task], { concurrency: 1, deadlineMs: 60_000 });
    assert.equal(findings.length, 1);
    assert.equal(findings[0]!.reason, 'timeout');
    assert.equal(findings[0]!.status, 'unknown');
    assert.match(findings[0]!.detail, /accepted the connection but sent no answer/);
    for (let i = 0; i < 50 && slow.closed() === 0; i++) await new Promise((res) => setTimeout(res, 10));
    assert.equal(slow.closed(), 1, 'the probe closed its connection');
  } finally {
    await closeServer(slow.server, slow.sockets);
  }
});

test('ERR ACCESS-DENIED from upsd: unknown, pointing at upsd.conf/upsd.users', async () => {
  const peer = await listener((line) => (line.startsWith('LIST VAR') ? 'ERR ACCESS-DENIED\n' : 'OK Goodbye\n'));
  try {
    const f = await run(upsTaskAt(peer.port));
    assert.equal(f.status, 'unknown');
    assert.match(f.detail, /refused to list fvups .*ERR ACCESS-DENIED/);
  } finally {
    await closeServer(peer.server, peer.sockets);
  }
});

test('judgeUps: the warning threshold comes from the settings; LB/FSD/OFF are down; no OL is unknown', () => {
  const ups = { host: '127.0.0.1', port: 3493, name: 'fvups', ratedW: 900 };
  assert.equal(judgeUps({ 'ups.status': 'OL', 'ups.load': '86' }, ups, 90).status, 'up');
  assert.equal(judgeUps({ 'ups.status': 'OL', 'ups.load': '80' }, ups, 80).status, 'up', '80% is at, not above, the threshold');
  const over = judgeUps({ 'ups.status': 'OL', 'ups.load': '81' }, ups, 80);
  assert.equal(over.status, 'degraded');
  assert.match(over.detail, /load 81 %, above the 80 % warning threshold/);
  assert.equal(judgeUps({ 'ups.status': 'OB' }, ups, 80).status, 'degraded');
  assert.equal(judgeUps({ 'ups.status': 'OL FSD' }, ups, 80).status, 'down');
  assert.equal(judgeUps({ 'ups.status': 'OFF' }, ups, 80).status, 'down');
  const metered = judgeUps({ 'ups.status': 'OL', 'ups.realpower': '400' }, ups, 80);
  assert.equal(metered.status, 'up');
  assert.match(metered.detail, /^OL, 400 W metered of the 900 W rating \(44 %\)$/, 'watts without ups.load are still shown');
  const unrated = judgeUps({ 'ups.status': 'OL', 'ups.load': '20', 'ups.realpower': '150' }, { ...ups, ratedW: undefined }, 80);
  assert.match(unrated.detail, /^OL, 150 W metered \(no watt rating: set ratedW in the inventory\)/, 'metered watts need no rating');
  const over1010 = judgeUps({ 'ups.status': 'OL', 'ups.load': '112', 'ups.realpower': '1010' }, ups, 80);
  assert.match(over1010.detail, /1,010 W metered, above the 900 W rating \(112 %\)/, 'watts compared with watts');
  assert.equal(judgeUps({ 'ups.status': 'OL', 'ups.load': '20', 'ups.realpower': '721' }, ups, 80).status, 'degraded');
  const none = judgeUps({ 'ups.load': '10' }, ups, 80);
  assert.equal(none.status, 'unknown');
  assert.match(none.detail, /^no ups.status, load 10 %/);
});

test('judgeUps believes only plain numbers in range: no hex, no exponent, no negative watts, no rating of 0', () => {
  const ups = { host: '127.0.0.1', port: 3493, name: 'fvups', ratedW: 900 };
  // 0x64 is not 100 %: no load is known, and nothing is overloaded.
  const hex = judgeUps({ 'ups.status': 'OL', 'ups.load': '0x64' }, ups, 80);
  assert.equal(hex.status, 'up');
  assert.equal(hex.reading.loadPct, null);
  // Negative metered watts are not a reading: the load % × rating (855 W of 900) still tells the overload.
  const negative = judgeUps({ 'ups.status': 'OL', 'ups.load': '95', 'ups.realpower': '-5000' }, ups, 80);
  assert.equal(negative.status, 'degraded');
  assert.equal(negative.reason, 'overload');
  assert.equal(negative.reading.loadWFrom, 'load×rating');
  // A nominal rating of 0 (or -1) says nothing: the inventory's 900 W stands.
  for (const nominal of ['0', '-1']) {
    const r = judgeUps({ 'ups.status': 'OL', 'ups.realpower': '100', 'ups.realpower.nominal': nominal }, ups, 80);
    assert.equal(r.status, 'up', nominal);
    assert.equal(r.reading.ratedW, 900, nominal);
  }
  const huge = judgeUps({ 'ups.status': 'OL', 'ups.load': '1e300', 'battery.charge': '250' }, ups, 80);
  assert.equal(huge.reading.loadPct, null);
  assert.equal(huge.reading.chargePct, null, 'a charge over 100 % is not one');
  assert.ok(huge.detail.length < 100, huge.detail);
  // What is not a flag is not read as one, and a flood of words stays a handful.
  const flood = judgeUps({ 'ups.status': `OB ${'X '.repeat(1000)}lowercase \u009b2J` }, ups, 80);
  assert.equal(flood.status, 'degraded');
  assert.ok(flood.reading.status.length <= 16 && flood.detail.length < 400, flood.detail.slice(0, 120));
});

// ---- BMC, firewall, hosts: real ping and TCP connect -------------------------------------------

describe('out-of-band reachability on loopback', () => {
  let open: Awaited<ReturnType<typeof listener>>;
  let closedPort: number;
  before(async () => {
    open = await listener();
    closedPort = await freePort();
  });
  after(async () => {
    await closeServer(open.server, open.sockets);
  });

  test('a host that answers ping: up, with the round trip and the command', async () => {
    const fleet = fleetFrom('sites:\n  fv: { hosts: { fv-ml1: { address: 127.0.0.1 } } }\n');
    const f = await run(tasksFor(fleet, ['fv'])[0]!);
    assert.equal(f.status, 'up', f.detail);
    assert.match(f.detail, /^ping [\d.]+ ms$/);
    assert.equal(f.measuredBy, 'ping -c 1 -W 1 127.0.0.1');
    assert.equal(f.host, 'fv-ml1');
    assert.deepEqual(f.data, { kind: 'oob', ping: 'ok', tcp: [] });
    assert.ok(f.latencyMs !== null && f.latencyMs < 100);
  });

  test('a firewall with its port open: up; a BMC with one port open and one refused: degraded', async () => {
    const fleet = fleetFrom(`
sites:
  fv:
    hosts: {}
    bmc: { fv-ml1-bmc: { address: 127.0.0.1, tcpPorts: [${open.port}, ${closedPort}] } }
    firewall: { address: 127.0.0.1, tcpPorts: [${open.port}] }
`);
    const [bmc, fw] = await Promise.all(tasksFor(fleet, ['fv']).map(run));
    assert.equal(fw!.status, 'up', fw!.detail);
    assert.match(fw!.detail, new RegExp(`^ping [\\d.]+ ms; tcp/${open.port} open$`));
    assert.equal(fw!.measuredBy, `ping -c 1 -W 1 127.0.0.1; tcp connect 127.0.0.1:${open.port}`);
    assert.equal(fw!.target, 'fv firewall');

    assert.equal(bmc!.status, 'degraded', bmc!.detail);
    assert.match(bmc!.detail, new RegExp(`tcp/${open.port} open; tcp/${closedPort} refused$`));
    assert.equal(bmc!.measuredBy, `ping -c 1 -W 1 127.0.0.1; tcp connect 127.0.0.1:${open.port}; tcp connect 127.0.0.1:${closedPort}`);
    assert.deepEqual(bmc!.data, { kind: 'oob', ping: 'ok', tcp: [{ port: open.port, ok: true }, { port: closedPort, ok: false, error: 'refused' }] });
  });

  test('nothing answers (a ping on PATH that gets no reply, a refused port): down', async () => {
    const bin = mkdtempSync(join(tmpdir(), 'seatbelt-ping-'));
    try {
      // Exit 1 with the summary line is what iputils ping does when the request goes out and nothing comes back.
      writeFileSync(join(bin, 'ping'), '#!/bin/sh\necho "1 packets transmitted, 0 received, 100% packet loss, time 0ms"\nexit 1\n');
      chmodSync(join(bin, 'ping'), 0o755);
      const fleet = fleetFrom(`sites:\n  fv: { hosts: {}, bmc: { fv-ml1-bmc: { address: 127.0.0.1, tcpPorts: [${closedPort}] } } }\n`);
      const f = await run(tasksFor(fleet, ['fv'], probeEnv({ pathPrefix: [bin] }))[0]!);
      assert.equal(f.status, 'down', f.detail);
      assert.equal(f.detail, `no ICMP reply; tcp/${closedPort} refused`);
      assert.deepEqual(f.data, { kind: 'oob', ping: 'failed', tcp: [{ port: closedPort, ok: false, error: 'refused' }] });
    } finally {
      rmSync(bin, { recursive: true, force: true });
    }
  });

  test('the control ping of another site goes to its firewall, by ping only', async () => {
    const fleet = fleetFrom(`
sites:
  fv: { hosts: {} }
  ana: { hosts: { ana-ml2: { address: 127.0.2.20 } }, firewall: { address: 127.0.0.1, tcpPorts: [${closedPort}] } }
`);
    const tasks = tasksFor(fleet, ['fv']);
    assert.equal(tasks.length, 1);
    const f = await run(tasks[0]!);
    assert.equal(f.probe, 'firewall');
    assert.equal(f.target, 'ana firewall (control)');
    assert.equal(f.site, 'ana');
    assert.equal(f.status, 'up', f.detail);
    assert.equal(f.measuredBy, 'ping -c 1 -W 1 127.0.0.1');
  });
});

// ---- an unreachable host, inside a namespace this test makes ----------------------------------

async function netnsUnavailable(): Promise<string | null> {
  if (process.getuid?.() !== 0) return 'not root: cannot create a network namespace';
  const r = await execa('ip', ['netns', 'list'], { reject: false });
  return r.exitCode === 0 ? null : `ip netns unavailable: ${r.stderr || r.shortMessage}`;
}

describe('an unreachable host, pinged from inside a fresh network namespace', () => {
  const ns = `seatbelt-test-${randomBytes(4).toString('hex')}`;
  let created = false;
  let skipReason: string | null = null;

  before(async () => {
    skipReason = await netnsUnavailable();
    if (skipReason) return;
    await execa('ip', ['netns', 'add', ns]);
    created = true;
    await execa('ip', ['netns', 'exec', ns, 'ip', 'link', 'set', 'lo', 'up']);
    // Only loopback in there and no route out: 198.51.100.7 cannot be reached, by construction.
    const routes = await execa('ip', ['netns', 'exec', ns, 'ip', '-4', 'route', 'show']);
    const links = await execa('ip', ['netns', 'exec', ns, 'ip', '-o', 'link', 'show']);
    assert.equal(routes.stdout.trim(), '', `the namespace has routes: ${routes.stdout}`);
    assert.deepEqual(links.stdout.trim().split('\n').map((l) => l.split(':')[1]?.trim()), ['lo']);
  });
  after(async () => {
    if (created) await execa('ip', ['netns', 'delete', ns]);
  });

  test('no route to 198.51.100.7: down, "no ICMP reply", while another site’s control ping answers', async (t) => {
    if (skipReason) {
      t.skip(skipReason);
      return;
    }
    const fleet = fleetFrom(`
sites:
  fv: { hosts: { fv-ml1: { address: 198.51.100.7 } } }
  ana: { hosts: {}, firewall: { address: 127.0.0.1 } }
`);
    const env = probeEnv({ pingCommand: ['ip', 'netns', 'exec', ns, 'ping'] });
    const [host, control] = await Promise.all(tasksFor(fleet, ['fv'], env).map(run));
    assert.equal(host!.target, 'fv-ml1');
    assert.equal(host!.status, 'down', host!.detail);
    assert.match(host!.detail, /^no ICMP reply \(.*unreachable.*\)$/i);
    assert.equal(host!.measuredBy, `ip netns exec ${ns} ping -c 1 -W 1 198.51.100.7`);
    assert.deepEqual(host!.data, { kind: 'oob', ping: 'failed', tcp: [] });

    assert.equal(control!.target, 'ana firewall (control)');
    assert.equal(control!.status, 'up', control!.detail);
  });
});
