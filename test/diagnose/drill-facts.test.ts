// The whole drill fleet probed for real, then diagnosed twice: as measured, and with every display
// string of every finding rewritten. The proposals must not move: decisions read facts, not words.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { Fleet } from '../../src/inventory/fleet.ts';
import { parseInventory } from '../../src/inventory/load.ts';
import { runProbe } from '../../src/commands/probe.ts';
import { decide, summarize } from '../../src/diagnose/verdict.ts';
import { startDrillFleet, type DrillFleet } from '../../drills/litellm.ts';
import { DRILL_BIN, DRILL_INVENTORY } from '../../drills/drill.ts';
import { reworded } from '../helpers/findings.ts';

let drill: DrillFleet;

before(async () => {
  const r = parseInventory(await readFile(DRILL_INVENTORY, 'utf8'));
  if (!r.ok) throw new Error(r.errors.join('\n'));
  drill = await startDrillFleet(new Fleet(r.value), undefined, { ephemeralPorts: true, env: {} });
});

after(async () => {
  await drill.stop();
});

for (const site of ['ana', 'fv', 'all']) {
  test(`drill probe ${site}: the proposal survives every detail, target and measuredBy rewritten to "x"`, async () => {
    const report = await runProbe(drill.fleet, { site, only: ['aliases', 'gpus', 'power'], timeoutMs: 1500, paid: false }, { env: { ...drill.env, PATH: process.env.PATH }, pathPrefix: [DRILL_BIN] });
    for (const f of report.findings) {
      assert.ok(f.subject && f.provenance && f.observedAt && f.data, `${f.target}: the facts are all there`);
      if (f.status !== 'up') assert.ok(f.reason, `${f.target} is ${f.status} and says why`);
    }
    const again = decide(report.sites, summarize(drill.fleet, reworded(report.findings), report.sites));
    assert.equal(again.runbook, report.verdict.runbook);
    assert.deepEqual(again.proposal, report.verdict.proposal);
    assert.equal(again.status, report.verdict.status);
    if (site === 'ana') assert.equal(report.verdict.runbook, 'gpu-oom-cotenant', 'the drill is the first seed’s afternoon: ana-ml2 GPU1 at 216 MiB free');
  });
}
