// The hq-uplink-down drill: two real `seat probe fv --json --only power` runs — one from hq, a whole
// `seat` process inside the network namespace the drill makes for it (fv's addresses have no route
// there), one from irv, in this process beside the drill's stand-ins — merged. From hq alone fv looks
// dark; merged, the verdict must not say dark: "unreachable from hq only", no runbook proposed.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { HQ_UPLINK_DOWN } from '../../drills/scenarios/hq-uplink-down.ts';
import { startScenario, type RunningDrill } from '../../drills/scenarios/index.ts';
import { runCli, type CliIo } from '../../src/cli/run.ts';
import { decide, summarize } from '../../src/diagnose/verdict.ts';
import { mergeVantages, type VantageReport } from '../../src/diagnose/vantage.ts';
import { MAIN } from './session.ts';

const run = promisify(execFile);

interface Json extends VantageReport {
  verdict: { headline: string; runbook: string | null; proposal: { rule: string } | null };
}

let drill: RunningDrill;
before(async () => {
  drill = await startScenario(HQ_UPLINK_DOWN);
});
after(async () => {
  await drill?.stop();
});

const ARGS = (inventory: string): string[] => ['--inventory', inventory, 'probe', 'fv', '--json', '--only', 'power'];

async function fromIrv(): Promise<Json> {
  let out = '';
  let err = '';
  const env: NodeJS.ProcessEnv = { PATH: process.env.PATH, SEAT_PROBE_MEMORY: 'off', SEAT_VANTAGE: 'irv', ...drill.env };
  const io: CliIo = { stdout: { write: (s: string | Uint8Array) => (out += typeof s === 'string' ? s : Buffer.from(s).toString()), isTTY: false }, stderr: { write: (s: string) => (err += s) }, env, probeDeps: { env, ...drill.probe } };
  const code = await runCli(ARGS(drill.inventoryPath), io);
  assert.ok(code === 0 || code === 1, err);
  return JSON.parse(out) as Json;
}

/** `seat probe` as its own process, inside hq's namespace. */
async function fromHq(exec: string[]): Promise<Json> {
  const env = { PATH: `${drill.probe.pathPrefix.join(':')}:${process.env.PATH ?? '/usr/bin:/bin'}`, SEAT_PROBE_MEMORY: 'off', SEAT_VANTAGE: 'hq', HOME: process.env.HOME ?? '/tmp', ...drill.env };
  try {
    const { stdout } = await run(exec[0]!, [...exec.slice(1), process.execPath, '--import', 'tsx', MAIN, ...ARGS(drill.inventoryPath)], { env, timeout: 60_000, maxBuffer: 16 * 1024 * 1024 });
    return JSON.parse(stdout) as Json;
  } catch (err) {
    // Exit 1 (something not up) still wrote the report.
    const e = err as { code?: number; stdout?: string; stderr?: string };
    assert.equal(e.code, 1, e.stderr);
    return JSON.parse(e.stdout ?? '') as Json;
  }
}

test('hq-uplink-down: fv dark from hq alone, but merged with irv’s report the verdict is "unreachable from hq only", never dark, no runbook', { timeout: 180_000 }, async (t) => {
  const hqView = drill.vantages.find((v) => v.name === 'hq');
  assert.ok(hqView, 'the drill plays the hq vantage');
  assert.ok(drill.standIns.some((l) => l.startsWith('vantage hq: ')), drill.standIns.join('\n'));
  if (!hqView.exec) {
    t.skip(hqView.how);
    return;
  }
  const hq = await fromHq(hqView.exec);
  const irv = await fromIrv();
  assert.ok(hq.findings.every((f) => f.provenance.vantage === 'hq'));
  assert.ok(irv.findings.every((f) => f.provenance.vantage === 'irv'));
  // From hq alone, fv looks dark: what today's one-vantage rule says, and says so.
  assert.equal(hq.verdict.proposal?.rule, 'site-dark');
  assert.match(hq.verdict.headline, /\(from one vantage point: hq\)/);
  // From irv, fv answers.
  assert.ok(irv.findings.filter((f) => f.subject.kind === 'address' && f.subject.site === 'fv').every((f) => f.status === 'up'), 'irv reaches every fv address');

  const m = mergeVantages([hq, irv]);
  assert.ok(m.ok, m.ok ? '' : m.error);
  const v = decide(m.report.sites, summarize(drill.fleet, m.report.findings, m.report.sites));
  assert.equal(v.proposal?.rule, 'unreachable-from');
  assert.equal(v.runbook, null, 'no runbook proposed for the site');
  assert.match(v.headline, /^fv unreachable from hq only \(irv reaches it\): check hq's own path \(its firewall, its uplink\)/);
  for (const line of v.lines) assert.doesNotMatch(line, /\bdark:|do not poll/, line);
  assert.notEqual(v.status, 'down');
});
