// A check that measured nothing (ping missing) is no failed reachability check: seed 002's night on a
// machine without `ping`, as the issue saw it — fv's ports closed, the control checks of ana and irv
// not measured, the gateway answering both keys and the seats elsewhere answering.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { decide, summarize } from '../../src/diagnose/verdict.ts';
import { makeFinding, measured } from '../../src/probes/finding.ts';
import { judgeOob } from '../../src/probes/power/plan.ts';
import type { AddressRole, Finding } from '../../src/probes/types.ts';
import { address, alias, clock, exampleFleet, gatewayKey, ok, seat, transport } from '../helpers/findings.ts';

const fleet = await exampleFleet();
const allAliases = [...fleet.aliases.keys()];

/** An address whose ping could not be started and that has no TCP port: not measured. */
function noPing(site: string, role: AddressRole, name: string, tcp: { port: number; ok: boolean }[] = []): Finding {
  const j = judgeOob({ result: 'skipped', reason: 'tool_missing', why: 'ping could not be started: exec of "ping" failed: No such file or directory' }, tcp.map((t) => ({ ...t, latencyMs: t.ok ? 0.3 : null, ...(t.ok ? {} : { error: 'refused' }) })));
  const probe = role === 'control' ? 'firewall' : role;
  return makeFinding(clock, { probe, target: name, subject: { kind: 'address', site, role, name }, site, provenance: measured({ how: 'icmp', argv: ['ip', 'netns', 'exec', 'ns', 'ping', name] }), ...j });
}

function diagnose(scope: string[], findings: Finding[]) {
  return decide(scope, summarize(fleet, findings, scope));
}

const fvAliasesDown = (): Finding[] => allAliases.map((a) => (fleet.aliasHosts(a).includes('fv-ml1') ? alias(fleet, a, transport('refused'), transport('refused')) : alias(fleet, a, 'ok')));
const otherSeatsUp = (): Finding[] => [...fleet.seats.values()].filter((s) => s.host.site !== 'fv').map((s) => seat(fleet, s.name, ok()));

test('judgeOob: a ping that could not be started is unknown for tool_missing, never down', () => {
  const f = noPing('ana', 'control', 'ana firewall');
  assert.equal(f.status, 'unknown');
  assert.equal(f.reason, 'tool_missing');
  assert.equal(f.data.kind === 'oob' && f.data.ping, 'skipped');
});

test('ping missing: fv dark by its closed ports, the controls not measured, the gateway and 7 seats answer → site-dark, not "this machine’s network"', () => {
  const findings = [
    ...fvAliasesDown(),
    gatewayKey(fleet, 'admin', 'ok'),
    gatewayKey(fleet, 'shared', 'ok'),
    ...otherSeatsUp(),
    noPing('fv', 'bmc', 'fv-ml1-bmc', [{ port: 443, ok: false }]),
    noPing('fv', 'firewall', 'fv firewall', [{ port: 443, ok: false }]),
    noPing('fv', 'host', 'fv-ml1'),
    noPing('ana', 'control', 'ana firewall'),
    noPing('irv', 'control', 'irv firewall'),
  ];
  const v = diagnose(['fv'], findings);
  assert.equal(v.proposal?.rule, 'site-dark');
  assert.equal(v.runbook, 'site-dark');
  assert.deepEqual(v.proposal?.sites, ['fv']);
  assert.match(v.headline, /^site fv dark: every measured address \(BMC included\) failed \(1 not measured\) while the gateway answers/);
  // Nothing is down for a reason that is a missing tool.
  assert.ok(findings.every((f) => !(f.status === 'down' && f.reason === 'tool_missing')));
});

test('the own-network verdict never fires while the gateway answered, nor while a seat answered', () => {
  const silentSites = [address('fv', 'bmc', 'fv-ml1-bmc', false), address('fv', 'host', 'fv-ml1', false), address('ana', 'control', 'ana firewall', false), address('irv', 'control', 'irv firewall', false)];
  const listingDown = allAliases.map((a) => alias(fleet, a, 'listing-down'));
  const nothing = diagnose(['fv'], [...silentSites, ...listingDown, gatewayKey(fleet, 'admin', transport('refused'))]);
  assert.equal(nothing.proposal?.rule, 'no-network', 'everything measured and failed: our own network');
  const gatewayUp = diagnose(['fv'], [...silentSites, ...listingDown, gatewayKey(fleet, 'admin', 'ok')]);
  assert.equal(gatewayUp.proposal?.rule, 'site-dark');
  const rejected = diagnose(['fv'], [...silentSites, ...listingDown, gatewayKey(fleet, 'admin', { ok: false, httpStatus: 401, code: 'http_status', latencyMs: 3 })]);
  assert.notEqual(rejected.proposal?.rule, 'no-network', 'a 401 is an answer: the gateway was reached');
  const seatUp = diagnose(['fv'], [...silentSites, ...listingDown, gatewayKey(fleet, 'admin', transport('refused')), seat(fleet, 'vllm-embed', ok())]);
  assert.equal(seatUp.proposal?.rule, 'site-dark');
});

test('nothing answered but the controls were not measured: no verdict claims this machine’s network', () => {
  const findings = [
    ...allAliases.map((a) => alias(fleet, a, 'listing-down')),
    gatewayKey(fleet, 'admin', transport('refused')),
    noPing('fv', 'bmc', 'fv-ml1-bmc', [{ port: 443, ok: false }]),
    noPing('ana', 'control', 'ana firewall'),
    noPing('irv', 'control', 'irv firewall'),
  ];
  const v = diagnose(['fv'], findings);
  assert.notEqual(v.proposal?.rule, 'no-network');
  assert.doesNotMatch(v.lines.join('\n'), /own network/);
});
