// The fv-site-dark drill on a machine without `ping` and without nut-server's upsd, as a newcomer's
// fresh Debian has it: the drill's first lines say what it found and what it did not; site-dark is
// still proposed for fv; nothing is down for a tool that is missing; the "check this machine's own
// network" verdict does not fire while the gateway and the seats answer. In-process: the drill's PATH
// and its NUT folder are its seams (as root, fv is dark inside a network namespace, and ping inside it
// cannot start: the path; else no ping stand-in plays ICMP).
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { FV_SITE_DARK } from '../../drills/scenarios/fv-site-dark.ts';
import { startScenario, type RunningDrill } from '../../drills/scenarios/index.ts';
import { runCli, type CliIo } from '../../src/cli/run.ts';
import { pathWithoutPing, type NoPingPath } from '../helpers/no-ping-path.ts';

interface JsonFinding {
  probe: string;
  target: string;
  status: string;
  reason?: string;
  detail: string;
  subject: { kind: string; role?: string; site?: string };
  provenance: { kind: string; via?: { how: string }[] };
}
interface Json {
  findings: JsonFinding[];
  verdict: { headline: string; runbook: string | null; proposal: { rule: string; sites: string[] } | null };
}

let path: NoPingPath;
let drill: RunningDrill;
before(async () => {
  path = pathWithoutPing();
  drill = await startScenario(FV_SITE_DARK, { env: { ...process.env, PATH: path.dir }, nutDir: '/nonexistent/nut' });
});
after(async () => {
  await drill?.stop();
  path.remove();
});

async function probe(site: string): Promise<{ code: number; json: Json; err: string }> {
  let out = '';
  let err = '';
  const env: NodeJS.ProcessEnv = { ...process.env, PATH: path.dir, SEAT_PROBE_MEMORY: 'off', ...drill.env };
  delete env.SEAT_INVENTORY;
  const io: CliIo = { stdout: { write: (s: string | Uint8Array) => (out += typeof s === 'string' ? s : Buffer.from(s).toString()), isTTY: false }, stderr: { write: (s: string) => (err += s) }, env, probeDeps: { env, ...drill.probe } };
  const code = await runCli(['--inventory', drill.inventoryPath, 'probe', site, '--json'], io);
  return { code, json: JSON.parse(out) as Json, err };
}

function assertNothingDownForAMissingTool(json: Json): void {
  for (const f of json.findings) {
    assert.ok(!(f.status === 'down' && f.reason === 'tool_missing'), `${f.target}: ${f.status} ${f.reason} ${f.detail}`);
    assert.doesNotMatch(f.detail, /no ICMP reply/, `${f.target}: no ping ran, so none was lost`);
  }
  assert.doesNotMatch(json.verdict.headline, /own network/);
  assert.notEqual(json.verdict.proposal?.rule, 'no-network');
}

test('the first lines say ping and upsd were not found and what that changes', () => {
  assert.match(drill.tools[0]!, /^tools found: /);
  assert.doesNotMatch(drill.tools[0]!, /[ :]ping \(|upsd/);
  assert.ok(drill.tools.some((l) => /^not found: ping \(apt-get install iputils-ping\): ICMP is not measured .*control checks go by TCP/.test(l)), drill.tools.join('\n'));
  assert.ok(drill.tools.some((l) => /^not found: upsd and dummy-ups \(apt-get install nut-server\): .*left out of the drill inventory/.test(l)), drill.tools.join('\n'));
  assert.ok(drill.notes.some((n) => /no upsd for anaups: .*left out of this drill's inventory/.test(n)), drill.notes.join('\n'));
  assert.equal(drill.fleet.site('ana')?.ups, undefined, 'ana’s UPS is not probed as down: it is left out');
  assert.ok(drill.fleet.site('fv')?.ups, 'fv’s UPS stays: nothing answers for a dark site anyway');
});

test('probe fv: site-dark proposed for fv, the controls by TCP, the gateway answering, nothing down for a missing tool', async () => {
  const { code, json } = await probe('fv');
  assert.equal(code, 1);
  assert.equal(json.verdict.proposal?.rule, 'site-dark', json.verdict.headline);
  assert.deepEqual(json.verdict.proposal?.sites, ['fv']);
  assert.equal(json.verdict.runbook, 'site-dark');
  assertNothingDownForAMissingTool(json);
  const gateway = json.findings.filter((f) => f.probe === 'gateway');
  assert.ok(gateway.length > 0 && gateway.every((f) => f.status === 'up'), 'the gateway answered both keys');
  const host = json.findings.find((f) => f.probe === 'host' && f.target === 'fv-ml1')!;
  assert.equal(host.status, 'unknown', host.detail);
  assert.equal(host.reason, 'tool_missing');
  for (const site of ['ana', 'irv']) {
    const control = json.findings.find((f) => f.subject.role === 'control' && f.subject.site === site)!;
    assert.equal(control.status, 'up', control.detail);
    assert.match(control.detail, /checked by TCP instead: tcp\/\d+ open/);
    assert.deepEqual(control.provenance.via?.map((m) => m.how), ['tcp']);
  }
});

test('probe all: site-dark for fv, no UPS down for want of upsd, nothing down for a missing tool', async () => {
  const { code, json } = await probe('all');
  assert.equal(code, 1);
  assert.equal(json.verdict.proposal?.rule, 'site-dark', json.verdict.headline);
  assert.deepEqual(json.verdict.proposal?.sites, ['fv']);
  assertNothingDownForAMissingTool(json);
  const ups = json.findings.filter((f) => f.probe === 'ups');
  assert.deepEqual(ups.map((f) => `${f.target.split('@')[0]} ${f.status}`), ['fvups down'], 'only fv’s UPS, dark with its site');
});
