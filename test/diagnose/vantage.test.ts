// Vantage points on loopback: two real `seat probe fv --json --only power` runs, each from its own
// vantage (SEAT_VANTAGE), each with its own view of the network — inside a network namespace this test
// makes (root and iproute2) where fv's addresses have no route, else behind a ping stand-in that never
// answers for them — merged (mergeVantages) and diagnosed. fv dark from both → site dark; from one
// only → "unreachable from hq only", no runbook; one vantage → "from one vantage point". And the drill
// fleet probed from two vantages, one of which lost the gateway: each alias, GPU and seat counts once.
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse, stringify } from 'yaml';
import { DRILL_BIN } from '../../drills/drill.ts';
import { darken, type DarkNetwork } from '../../drills/scenarios/dark.ts';
import { runCli, type CliIo } from '../../src/cli/run.ts';
import { Fleet } from '../../src/inventory/fleet.ts';
import { parseInventory } from '../../src/inventory/load.ts';
import { decide, summarize } from '../../src/diagnose/verdict.ts';
import { mergeVantages, type VantageReport } from '../../src/diagnose/vantage.ts';
import { SCHEMA_VERSION } from '../../src/probes/canonical.ts';
import type { ProbeReport } from '../../src/commands/probe.ts';
import { countLine } from '../../src/render/report.ts';
import { startCliDrill } from '../helpers/cli-drill.ts';

const FV = ['127.0.1.1', '127.0.1.10', '127.0.1.11'];

function inventory(bmc: string): string {
  return `fleet: vantage-test
settings: { probeTimeoutMs: 1500, deadlineMs: 5000 }
gateway: { baseUrl: 'http://127.0.0.1:9', keys: { admin: { env: LITELLM_ADMIN_KEY } } }
sites:
  fv:
    hosts: { fv-ml1: { address: 127.0.1.10, gpuVendor: none } }
    bmc: { fv-ml1-bmc: ${bmc} }
    firewall: { address: 127.0.1.1 }
  ana:
    hosts: { ana-ml2: { address: 127.0.2.20, gpuVendor: none } }
    firewall: { address: 127.0.2.17 }
  irv:
    hosts: { irv-ml1: { address: 127.0.3.30, gpuVendor: none } }
    firewall: { address: 127.0.3.25 }
`;
}
const RIDES_FIREWALL = inventory('{ address: 127.0.1.11 }');
// The LTE router is on loopback too, outside every namespace's dark routes: it answers while fv is dark.
const SEPARATE = inventory('{ address: 127.0.1.11, via: separate, path: { name: lte-router, address: 127.0.4.50 } }');

const cleanup: (() => Promise<void>)[] = [];
after(async () => {
  for (const c of cleanup.reverse()) await c();
});

/** A bin folder for one vantage, with fv dark to it (`dark`) or not: ping's argv or a stand-in on its PATH. */
async function view(dark: boolean): Promise<{ bin: string; net: DarkNetwork }> {
  const bin = mkdtempSync(join(tmpdir(), 'seat-vantage-'));
  writeFileSync(join(bin, 'ssh'), '#!/bin/sh\nexit 255\n'); // darken wraps the drill's ssh stand-in
  chmodSync(join(bin, 'ssh'), 0o755);
  const net = await darken(dark ? FV : [], bin);
  cleanup.push(async () => {
    await net.stop();
    rmSync(bin, { recursive: true, force: true });
  });
  return { bin, net };
}

interface Json extends VantageReport {
  vantages: string[];
  verdict: { headline: string; lines: string[]; runbook: string | null; proposal: { rule: string; sites: string[] } | null };
}

/** One real `seat probe fv --json --only power` from `vantage`, fv dark to it or not. */
async function probeFrom(vantage: string, dark: boolean, inventoryText: string): Promise<Json> {
  const { bin, net } = await view(dark);
  const file = join(bin, 'fleet.yaml');
  writeFileSync(file, inventoryText);
  let out = '';
  let err = '';
  const env: NodeJS.ProcessEnv = { PATH: process.env.PATH, SEAT_PROBE_MEMORY: 'off', SEAT_VANTAGE: vantage, SEAT_JOURNAL: join(bin, 'journal.sqlite') };
  const io: CliIo = {
    stdout: { write: (s: string | Uint8Array) => (out += typeof s === 'string' ? s : Buffer.from(s).toString()), isTTY: false },
    stderr: { write: (s: string) => (err += s) },
    env,
    probeDeps: { env, pathPrefix: [bin], ...(net.pingCommand ? { pingCommand: net.pingCommand } : {}) },
  };
  const code = await runCli(['--inventory', file, 'probe', 'fv', '--json', '--only', 'power'], io);
  assert.ok(code === 0 || code === 1, `probe from ${vantage}: exit ${code}: ${err}`);
  return JSON.parse(out) as Json;
}

/** One real `seat probe fv --json` of the drill fleet from `vantage`, on the inventory `file`. */
async function drillProbe(file: string, vantage: string, drillEnv: Record<string, string>, dir: string): Promise<Json> {
  let out = '';
  let err = '';
  const env: NodeJS.ProcessEnv = { PATH: process.env.PATH, SEAT_PROBE_MEMORY: 'off', SEAT_VANTAGE: vantage, SEAT_JOURNAL: join(dir, `${vantage}.sqlite`), ...drillEnv };
  const io: CliIo = {
    stdout: { write: (s: string | Uint8Array) => (out += typeof s === 'string' ? s : Buffer.from(s).toString()), isTTY: false },
    stderr: { write: (s: string) => (err += s) },
    env,
    probeDeps: { env, pathPrefix: [DRILL_BIN] },
  };
  const code = await runCli(['--inventory', file, 'probe', 'fv', '--json'], io);
  assert.ok(code === 0 || code === 1, `probe from ${vantage}: exit ${code}: ${err}`);
  return JSON.parse(out) as Json;
}

function fleetOf(text: string): Fleet {
  const r = parseInventory(text);
  if (!r.ok) throw new Error(r.errors.join('\n'));
  return new Fleet(r.value);
}

function merged(text: string, reports: Json[]): ReturnType<typeof decide> {
  const m = mergeVantages(reports);
  assert.ok(m.ok, m.ok ? '' : m.error);
  const fleet = fleetOf(text);
  return decide(m.report.sites, summarize(fleet, m.report.findings, m.report.sites));
}

test('--json carries each finding’s vantage and the new schemaVersion; one vantage says "from one vantage point"', { timeout: 60_000 }, async () => {
  const hq = await probeFrom('hq', true, RIDES_FIREWALL);
  assert.equal(SCHEMA_VERSION, 3);
  assert.equal(hq.schemaVersion, 3);
  assert.deepEqual(hq.vantages, ['hq']);
  assert.ok(hq.findings.length >= 5);
  for (const f of hq.findings) assert.equal(f.provenance.vantage, 'hq', `${f.target} names where it was measured from`);
  assert.equal(hq.verdict.proposal?.rule, 'site-dark');
  assert.match(hq.verdict.headline, /^site fv dark: every address \(BMC included\) failed while other sites answer \(from one vantage point: hq\) — do not poll it waiting/);
  // Why the BMC is dark too: it rides the site's own firewall.
  assert.ok(hq.verdict.lines.some((l) => /^fv: the BMC is dark too — fv-ml1-bmc rides the site's own firewall \(via: firewall\)/.test(l)), hq.verdict.lines.join('\n'));
});

test('fv dark from two vantages at other sites that reach the others: site dark, from 2 vantage points', { timeout: 60_000 }, async () => {
  const v = merged(RIDES_FIREWALL, [await probeFrom('hq', true, RIDES_FIREWALL), await probeFrom('irv', true, RIDES_FIREWALL)]);
  assert.equal(v.proposal?.rule, 'site-dark');
  assert.equal(v.runbook, 'site-dark');
  assert.equal(v.status, 'down');
  assert.match(v.headline, /^site fv dark: every address \(BMC included\) failed while other sites answer \(from 2 vantage points: hq, irv\)/);
});

test('fv dark from hq only while irv reaches it: "unreachable from hq only", never dark, no runbook', { timeout: 60_000 }, async () => {
  const v = merged(RIDES_FIREWALL, [await probeFrom('hq', true, RIDES_FIREWALL), await probeFrom('irv', false, RIDES_FIREWALL)]);
  assert.equal(v.proposal?.rule, 'unreachable-from');
  assert.deepEqual(v.proposal?.sites, ['fv']);
  assert.equal(v.runbook, null, 'no runbook for the site');
  assert.equal(v.status, 'degraded', 'the site answers: hq’s path is what failed');
  assert.match(v.headline, /^fv unreachable from hq only \(irv reaches it\): check hq's own path \(its firewall, its uplink\)/);
  for (const line of v.lines) assert.doesNotMatch(line, /dark:|do not poll/, line);
});

test('a via: separate path that answers while fv is dark: the verdict says fv is reachable out of band', { timeout: 60_000 }, async () => {
  const v = merged(SEPARATE, [await probeFrom('hq', true, SEPARATE), await probeFrom('irv', true, SEPARATE)]);
  assert.equal(v.proposal?.rule, 'site-dark', 'the separate path is not one of the site’s addresses: fv stays dark');
  assert.ok(v.lines.includes("fv is reachable out of band: fv-ml1-bmc's separate path lte-router answers (from hq and irv)"), v.lines.join('\n'));
  assert.ok(!v.lines.some((l) => /rides the site's own firewall/.test(l)), 'this BMC has a path of its own');
});

test('merged from two vantages, each alias, GPU, seat and container counts once: up from one vantage is up, down from every vantage is down', { timeout: 90_000 }, async () => {
  const d = await startCliDrill('seat-vantage-drill-');
  cleanup.push(() => d.stop());
  // hq has lost its path to the gateway (the same fleet, its gateway at a port where nothing listens):
  // every alias is down from there; irv reaches the gateway.
  const inv = parse(readFileSync(d.inventory, 'utf8')) as { gateway: { baseUrl: string } };
  inv.gateway.baseUrl = 'http://127.0.0.1:9';
  const lost = join(d.dir, 'hq-no-gateway.yaml');
  writeFileSync(lost, stringify(inv));
  const hq = await drillProbe(lost, 'hq', d.drill.env, d.dir);
  const irv = await drillProbe(d.inventory, 'irv', d.drill.env, d.dir);
  const aliasesOf = (r: Json): Json['findings'] => r.findings.filter((f) => f.subject.kind === 'alias');
  assert.equal(aliasesOf(hq).length, 30);
  assert.ok(aliasesOf(hq).every((f) => f.status === 'down'), 'from hq every alias is down');
  const downFromIrv = aliasesOf(irv).filter((f) => f.status === 'down');
  assert.equal(downFromIrv.length, 1, 'from irv one alias is down: its backend');

  const m = mergeVantages([hq, irv]);
  assert.ok(m.ok, m.ok ? '' : m.error);
  // Both measurements stay, each with its own vantage.
  assert.equal(m.report.findings.length, hq.findings.length + irv.findings.length);
  assert.equal(m.report.findings.filter((f) => f.subject.kind === 'alias' && f.provenance.vantage === 'hq' && f.status === 'down').length, 30);
  const fleet = d.drill.fleet;
  const s = summarize(fleet, m.report.findings, m.report.sites);
  const alone = summarize(fleet, irv.findings, irv.sites);
  // Counted once: 30 aliases, not 60; the 29 irv reached are up, the one down from both is down for its backend.
  assert.equal(s.aliases.total, 30);
  assert.deepEqual(s.aliases, alone.aliases);
  assert.deepEqual(s.aliases.failing.map((a) => [a.alias, a.reason]), [[downFromIrv[0]!.subject.kind === 'alias' ? downFromIrv[0]!.subject.name : '?', 'backend_down']]);
  assert.equal(s.gpus.total, alone.gpus.total);
  assert.equal(s.seats.total, alone.seats.total);
  assert.equal(s.containers.total, alone.containers.total);
  assert.deepEqual(s.counts, alone.counts, 'every subject once, as irv saw it: the gateway and its aliases up');
  assert.equal(s.gateway.unreachable, false, 'irv reached the gateway: not a gateway outage');

  const v = decide(m.report.sites, s);
  assert.ok(v.lines.includes('1 of 30 aliases degraded'), v.lines.join('\n'));
  assert.ok(v.lines.includes('elsewhere: 1 alias down routed to ana-ml2 (site ana)'), v.lines.join('\n'));
  for (const line of v.lines) assert.doesNotMatch(line, /of 60 aliases|2 aliases down/, line);
  assert.equal(v.status, decide(irv.sites, alone).status);

  // The report's count line: each subject once, the measurements said beside.
  const report = { ...irv, ...m.report, vantages: m.report.vantages, summary: s, verdict: v } as unknown as ProbeReport;
  const line = countLine(report);
  assert.match(line, new RegExp(`^${irv.findings.length} findings \\(${m.report.findings.length} measurements, each subject counted once\\): ${s.counts.up} up, `));
  assert.match(line, /: 2 gateway keys, 30 aliases, /);
  assert.match(line, /measured from 2 vantage points: hq, irv$/);
});

test('mergeVantages refuses what cannot be merged: no vantage, a vantage twice, another fleet, a vantage that is not a name', () => {
  const at = '2026-12-07T08:00:00.000Z';
  const finding = (vantage?: string): VantageReport['findings'][number] =>
    ({ probe: 'host', target: 'x', status: 'up', subject: { kind: 'address', site: 'fv', role: 'host', name: 'x' }, detail: '', measuredBy: '', provenance: { kind: 'measured', via: [], ...(vantage !== undefined ? { vantage } : {}) }, observedAt: at, latencyMs: 1, data: { kind: 'none' } }) as VantageReport['findings'][number];
  const report = (fleet: string, ...findings: VantageReport['findings']): VantageReport => ({ schemaVersion: 3, site: 'fv', fleet, drill: false, sites: ['fv'], startedAt: at, finishedAt: at, findings });
  const code = (r: ReturnType<typeof mergeVantages>): string => (r.ok ? 'ok' : r.code);
  assert.equal(code(mergeVantages([])), 'no_reports');
  assert.equal(code(mergeVantages([report('a', finding('hq')), report('a', finding())])), 'no_vantage');
  assert.equal(code(mergeVantages([report('a', finding('hq')), report('a', finding('hq'))])), 'vantage_twice');
  assert.equal(code(mergeVantages([report('a', finding('hq')), report('b', finding('irv'))])), 'fleet_differs');
  assert.equal(code(mergeVantages([report('a', finding('hq')), report('a', finding('irv\x1b[2J'))])), 'bad_vantage');
  const ok = mergeVantages([report('a', finding('hq')), report('a', finding('irv'))]);
  assert.ok(ok.ok);
  assert.deepEqual(ok.report.vantages, ['hq', 'irv']);
});

test('a bad SEAT_VANTAGE is told, never guessed at', async () => {
  const bin = mkdtempSync(join(tmpdir(), 'seat-vantage-'));
  cleanup.push(async () => rmSync(bin, { recursive: true, force: true }));
  const file = join(bin, 'fleet.yaml');
  writeFileSync(file, RIDES_FIREWALL);
  let err = '';
  const env = { PATH: process.env.PATH, SEAT_PROBE_MEMORY: 'off', SEAT_VANTAGE: 'hq; rm -rf /' };
  const code = await runCli(['--inventory', file, 'probe', 'fv', '--json', '--only', 'power'], { stdout: { write: () => true }, stderr: { write: (s: string) => (err += s) }, env });
  assert.equal(code, 2);
  assert.match(err, /^seat: SEAT_VANTAGE "hq; rm -rf \/" is not a vantage name: expected letters, digits/);
});
