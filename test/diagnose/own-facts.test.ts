// The verdict never contradicts its own findings (issue 29, items 6–9): a proposal names the site its
// facts are about, a seat that answers is not "not running", a card with no memory figures concludes
// nothing from its process list, and a down seat whose budget cannot fit its card proposes the boot race.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { decide, summarize } from '../../src/diagnose/verdict.ts';
import { measured } from '../../src/probes/finding.ts';
import { cardFindings } from '../../src/probes/gpu/findings.ts';
import { pairWithInventory } from '../../src/probes/gpu/pairing.ts';
import type { ProcessRow } from '../../src/probes/gpu/parse.ts';
import { NVIDIA } from '../../src/probes/gpu/vendors.ts';
import type { Finding } from '../../src/probes/types.ts';
import { reportText } from '../../src/render/report.ts';
import { address, clock, exampleFleet, gpus, ok, reworded, seat, transport } from '../helpers/findings.ts';
import { reportOf } from '../render/reports.ts';

const fleet = await exampleFleet();

function diagnose(scope: string[], findings: Finding[]) {
  const v = decide(scope, summarize(fleet, findings, scope));
  const x = decide(scope, summarize(fleet, reworded(findings), scope));
  assert.deepEqual(x.proposal, v.proposal, 'rewording every detail and target must not move the proposal');
  assert.equal(x.status, v.status);
  return v;
}

/** One card as nvidia-smi reports it, memory figures possibly `[N/A]` (null). */
function card(host: string, index: number, freeMiB: number | null, processes: ProcessRow[]): Finding[] {
  const h = fleet.hosts.get(host)!;
  const ctx = { fleet, host: h, vendor: NVIDIA, processes, appsNote: null, clock, floorMiB: 4096, provenance: measured({ how: 'exec' as const, argv: ['nvidia-smi'] }), latencyMs: 40 };
  const rows = [{ index, uuid: null, name: null, totalMiB: freeMiB === null ? null : 97_887, usedMiB: freeMiB === null ? null : 97_887 - freeMiB, freeMiB }];
  return pairWithInventory(h, rows).flatMap((p) => (p.row && p.index === index ? cardFindings(ctx, p, p.row) : []));
}

const proc = (index: number, pid: number, usedMiB: number): ProcessRow => ({ gpuUuid: null, gpuIndex: index, pid, name: 'python3', usedMiB });

test('item 6: a probe of ana whose only fault is its dead BMC proposes nothing for ana; fv’s fault is one line with its own --site', () => {
  const findings = [
    address('ana', 'bmc', 'ana-ml2-bmc', false),
    address('ana', 'host', 'ana-ml2', true),
    address('ana', 'firewall', 'ana firewall', true),
    // fv-ml1 GPU2: a budget declared, no process on the card, its seat silent: fv's own fault.
    ...gpus(fleet, 'fv-ml1', [{ index: 2, free: 97_000, used: 887 }], []),
  ];
  const v = diagnose(['ana'], findings);
  for (const s of v.proposal?.sites ?? []) assert.equal(s, 'ana', `the proposal of a probe of ana is about ${s}`);
  assert.deepEqual(
    v.elsewhere.map((p) => [p.runbook, p.sites]),
    [['backend-down', ['fv']]],
  );

  const report = reportOf(fleet, findings, 'ana');
  const text = reportText(report);
  const json = JSON.parse(JSON.stringify(report)) as { verdict: { proposal: { sites: string[]; runbook: string | null } | null } };
  const next = text.split('\n').find((l) => l.startsWith('next:'))!;
  assert.doesNotMatch(next, /--site (?!ana\b)/, next);
  const p = json.verdict.proposal;
  if (p?.runbook) assert.match(next, new RegExp(`runbook start ${p.runbook}${p.sites.length === 1 ? ` --site ${p.sites[0]}` : ''}`));
  else assert.doesNotMatch(next, /runbook start/, 'no runbook in --json, none on the next line');
  const other = text.split('\n').filter((l) => /seat runbook start backend-down --site fv\b/.test(l));
  assert.equal(other.length, 1, text);
  assert.match(other[0]!, /^elsewhere: /);
});

test('item 6: a probe of every site proposes for the site its facts are about', () => {
  const findings = [address('ana', 'bmc', 'ana-ml2-bmc', false), address('ana', 'host', 'ana-ml2', true), ...gpus(fleet, 'fv-ml1', [{ index: 2, free: 97_000, used: 887 }], [])];
  const report = reportOf(fleet, findings, 'all');
  assert.deepEqual(report.verdict.proposal?.sites, ['fv']);
  assert.match(reportText(report), /^next: {4}seat runbook start backend-down --site fv — /m);
});

test('item 7: a seat that answers with no process on its declared GPU is "check which GPU it really uses", not DOWN, not "not running"', () => {
  const findings = [...card('fv-ml1', 2, 80_000, [proc(0, 11, 40_000)]), seat(fleet, 'flash-next', ok())];
  const v = diagnose(['fv'], findings);
  assert.ok(
    v.lines.includes("flash-next answers but no process holds memory on GPU2: check which GPU it really uses (CUDA_VISIBLE_DEVICES, the inventory's index)"),
    v.lines.join('\n'),
  );
  for (const l of v.lines) assert.doesNotMatch(l, /not running|start it/);
  assert.notEqual(v.status, 'down');
  assert.equal(v.proposal?.runbook ?? null, null);
});

test('item 8: on a card whose memory is [N/A] an empty process list concludes nothing: unknown, and the wedged-engine reading', () => {
  const findings = [...card('fv-ml1', 2, null, []), seat(fleet, 'flash-next', transport('timeout'))];
  assert.ok(!findings.some((f) => f.reason === 'engine_not_running'), 'no row says its engine is not running');
  const v = diagnose(['fv'], findings);
  for (const l of v.lines) assert.doesNotMatch(l, /not running|start it/);
  assert.notEqual(v.proposal?.runbook, 'backend-down');
  const wedged = v.lines.find((l) => l.startsWith('fv-ml1 GPU2:'));
  assert.ok(wedged, v.lines.join('\n'));
  assert.match(wedged, /unknown/);
  for (const w of ['nvidia-smi -q', 'Xid', 'dmesg', "container's logs"]) assert.ok(wedged.includes(w), `${w} in: ${wedged}`);
});

test('item 9: a down seat whose declared budget does not fit its card’s measured free memory proposes the boot race and its log', () => {
  // brutus: one 24,480 MiB device, xpu-chat declares 0.75 of it (18,360 MiB), 4,608 MiB free.
  const findings = [
    ...gpus(fleet, 'brutus', [{ index: 0, free: 4_608, used: 19_872, total: 24_480 }], [proc(0, 21, 9_000), proc(0, 22, 5_000), proc(0, 23, 5_872)]),
    seat(fleet, 'xpu-chat', transport('refused')),
    seat(fleet, 'xpu-embedding', ok()),
    seat(fleet, 'xpu-stt', ok()),
  ];
  const v = diagnose(['irv'], findings);
  assert.equal(v.proposal?.runbook, 'kv-cache-boot-race');
  assert.deepEqual(v.proposal?.sites, ['irv']);
  assert.deepEqual(v.proposal?.logsOf, ['xpu-chat']);
  assert.ok(v.lines.some((l) => l.includes('xpu-chat') && l.includes('18,360 MiB') && l.includes('4,608 MiB')), v.lines.join('\n'));
  const next = reportText(reportOf(fleet, findings, 'irv')).split('\n').find((l) => l.startsWith('next:'))!;
  assert.match(next, /^next: {4}seat runbook start kv-cache-boot-race --site irv — /);
  assert.match(next, /seat diagnose --seat xpu-chat\b/);

  // The same card with room for the budget: no boot race.
  const roomy = [...gpus(fleet, 'brutus', [{ index: 0, free: 20_000, used: 4_480, total: 24_480 }], [proc(0, 22, 2_000), proc(0, 23, 2_480)]), seat(fleet, 'xpu-chat', transport('refused'))];
  assert.notEqual(diagnose(['irv'], roomy).proposal?.runbook, 'kv-cache-boot-race');
});

