import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseInventory } from '../../src/inventory/load.ts';
import { Fleet } from '../../src/inventory/fleet.ts';
import { decide, summarize } from '../../src/diagnose/verdict.ts';
import { sortFindings, type ProbeReport, type ProbeRequest } from '../../src/commands/probe.ts';
import { MAX_BLOCKS, MAX_SECTION, renderProgress, renderReport } from '../../src/slack/blocks.ts';
import type { Finding } from '../../src/probes/types.ts';

function bigFleet(aliasCount: number): Fleet {
  const seats = Array.from({ length: 20 }, (_, i) => `  s${i}: { host: h${i % 4}, gpus: [0], port: ${8000 + i}, container: c${i}, gpuMemoryUtilization: 0.04 }`).join('\n');
  const aliases = Array.from({ length: aliasCount }, (_, i) => `  a${i}: { kind: chat, seats: [s${i % 20}] }`).join('\n');
  const hosts = Array.from({ length: 4 }, (_, i) => `      h${i}: { address: 127.0.0.1, gpus: [{ index: 0 }] }`).join('\n');
  const r = parseInventory(`gateway: { baseUrl: http://127.0.0.1:1, keys: { admin: { env: K } } }\nsites:\n  fv:\n    hosts:\n${hosts}\nseats:\n${seats}\naliases:\n${aliases}\n`);
  if (!r.ok) throw new Error(r.errors.join('\n'));
  return new Fleet(r.value);
}

function report(fleet: Fleet, findings: Finding[]): ProbeReport {
  const ordered = sortFindings(findings);
  const summary = summarize(fleet, ordered);
  return {
    site: 'fv', fleet: 'fleet', drill: false, sites: ['fv'], startedAt: '2026-09-13T06:58:40.000Z', finishedAt: '2026-09-13T06:58:43.100Z', durationMs: 3100,
    timeoutMs: 3000, deadlineMs: 10000, findings: ordered, summary, verdict: decide(['fv'], ordered, summary),
  };
}

const req: ProbeRequest = { site: 'fv', only: ['aliases', 'gpus', 'power'], timeoutMs: null, paid: false };

const alias = (name: string, status: Finding['status'], detail: string): Finding => ({ probe: 'alias', target: name, status, detail, measuredBy: 'POST /v1/chat/completions', latencyMs: 12 });

test('a 200-alias fleet with most aliases down stays within 50 blocks and 3000 characters a section', () => {
  const fleet = bigFleet(200);
  const findings = [...fleet.aliases.keys()].map((a, i) =>
    alias(a, i % 10 === 0 ? 'up' : 'down', `HTTP 500: litellm.InternalServerError: OpenAIException - Connection error to backend ${'x'.repeat(60)}`),
  );
  const view = renderReport(report(fleet, findings), req);
  assert.ok(view.blocks.length <= MAX_BLOCKS, `${view.blocks.length} blocks`);
  for (const b of view.blocks) if (b.type === 'section' && b.text) assert.ok(b.text.text.length <= MAX_SECTION, `section of ${b.text.text.length}`);
  assert.equal(view.truncated, true, 'what did not fit is flagged for attaching');
  assert.ok(JSON.stringify(view.blocks).includes('full report is attached'));
  assert.equal(view.blocks.at(-1)?.type, 'actions', 'the Probe again button survives truncation');
  assert.match(view.text, /^DOWN fv: 180 of 200 aliases down/);
});

test('a small report fits whole: down aliases first, grouped by host, with the button value replaying the probe', () => {
  const fleet = bigFleet(8);
  const findings = [...fleet.aliases.keys()].map((a) => alias(a, a === 'a1' || a === 'a5' ? 'down' : 'up', a === 'a1' ? 'HTTP 500 <b>&' : 'ok'));
  const view = renderReport(report(fleet, findings), req, 'U0ONCALL02');
  assert.equal(view.truncated, false);
  const all = JSON.stringify(view.blocks);
  assert.ok(all.indexOf('*h1* (2 down)') >= 0, 'grouped by host h1 (a1 and a5 route to s1, s5 on h1)');
  assert.ok(all.indexOf('a1') < all.indexOf('up: a0'), 'down before up');
  assert.ok(all.includes('HTTP 500 &lt;b&gt;&amp;'), 'probe text is escaped for mrkdwn');
  assert.ok(all.includes('asked by <@U0ONCALL02>'));
  const actions = view.blocks.at(-1);
  assert.ok(actions?.type === 'actions');
  const button = actions.elements[0];
  assert.ok(button?.type === 'button');
  assert.deepEqual(JSON.parse(button.value ?? ''), req);
});

test('a drill report says DRILL first, in the notification and the message, so no one takes it for the fleet', () => {
  const fleet = bigFleet(4);
  const findings = [alias('a0', 'down', 'gateway OK, backend 500')];
  const real = renderReport(report(fleet, findings), req);
  assert.doesNotMatch(real.text, /DRILL/);
  assert.doesNotMatch(JSON.stringify(real.blocks), /DRILL/);
  const drill = renderReport({ ...report(fleet, findings), fleet: 'drill', drill: true }, req);
  assert.match(drill.text, /^DRILL DOWN fv: /);
  const first = drill.blocks[0];
  assert.ok(first?.type === 'section' && first.text?.type === 'mrkdwn');
  assert.match(first.text.text, /^:test_tube: \*DRILL\* — fleet “drill”: every figure in this report comes from loopback stand-ins, not from the real fleet$/);
  assert.equal(drill.blocks.length, real.blocks.length + 1);
});

test('GPU lines carry a bar with used, declared and free MiB and flag the margin', () => {
  const fleet = bigFleet(1);
  const gpu: Finding = {
    probe: 'gpu', target: 'ana-ml2 GPU1', status: 'degraded', detail: '216 MiB free', measuredBy: 'nvidia-smi', latencyMs: 40,
    data: { kind: 'gpu', gpu: { host: 'ana-ml2', index: 1, uuid: null, name: null, totalMiB: 97_887, usedMiB: 97_671, freeMiB: 216, floorMiB: 4096, marginMiB: -3880, processes: [],
      seats: [{ seat: 'vllm-embed', declaredMiB: 3426, declaredBy: 'x', measuredMiB: 3398 }] } },
  };
  const view = renderReport(report(fleet, [gpu]), req);
  const all = JSON.stringify(view.blocks);
  assert.match(all, /used 97,671 · declared 3,426 · free 216 of 97,887 MiB — \*under the floor\*/);
  assert.match(all, /vllm-embed 3,398\/3,426/);
  assert.match(all, /1 under the 4,096 MiB free floor/);
});

test('a KV-cache budget says the weights come on top, in the seat and in the sum', () => {
  const fleet = bigFleet(1);
  const gpu: Finding = {
    probe: 'gpu', target: 'fv-ml1 GPU2', status: 'up', detail: '18,943 MiB free', measuredBy: 'nvidia-smi', latencyMs: 40,
    data: { kind: 'gpu', gpu: { host: 'fv-ml1', index: 2, uuid: null, name: null, totalMiB: 97_887, usedMiB: 78_944, freeMiB: 18_943, floorMiB: 4096, marginMiB: 14_847, processes: [],
      seats: [{ seat: 'flash-next', declaredMiB: 14_336, declaredBy: 'kv-cache-memory-bytes', kvCacheOnly: true, measuredMiB: 78_410 }] } },
  };
  const all = JSON.stringify(renderReport(report(fleet, [gpu]), req).blocks);
  assert.match(all, /used 78,944 · declared 14,336 \+ weights · free 18,943 of 97,887 MiB/);
  assert.match(all, /flash-next 78,410\/14,336 KV cache \+ weights/);
});

test('progress shows how far along and what is already down', () => {
  const view = renderProgress('fv', 12, 37, [alias('gen', 'down', 'HTTP 500'), alias('coder', 'up', 'ok')]);
  assert.equal(view.text, 'probing fv: 12 of 37, 1 down or degraded so far …');
  assert.ok(JSON.stringify(view.blocks).includes('*gen* HTTP 500'));
  assert.ok(!JSON.stringify(view.blocks).includes('coder'));
});

test('a problem line says how it was measured; an up one stays short', () => {
  const fleet = bigFleet(2);
  const findings = [alias('a0', 'down', 'HTTP 500'), alias('a1', 'up', 'ok')];
  const all = JSON.stringify(renderReport(report(fleet, findings), req).blocks);
  assert.match(all, /\*a0\* HTTP 500 \(12 ms\)\\n {8}measured: `POST \/v1\/chat\/completions`/);
  assert.ok(!/a1\* ok/.test(all), 'up aliases are listed by name only');
});

test('an inferred finding reads "inferred:", not "measured:"; a seat without a budget makes the declared sum "?"', () => {
  const fleet = bigFleet(2);
  const unset: Finding = { probe: 'gateway', target: 'gateway (admin key)', status: 'unknown', detail: 'K is not set', measuredBy: 'inferred: K is not set in the environment', latencyMs: null };
  const gpu: Finding = {
    probe: 'gpu', target: 'h0 GPU0', status: 'up', detail: 'ok', measuredBy: 'nvidia-smi', latencyMs: 5, site: 'fv',
    data: {
      kind: 'gpu',
      gpu: {
        host: 'h0', index: 0, uuid: null, name: null, totalMiB: 97_887, usedMiB: 40_000, freeMiB: 57_887, processes: [], marginMiB: 53_791, floorMiB: 4096,
        seats: [{ seat: 's0', declaredMiB: 3_915, declaredBy: 'util 0.04', measuredMiB: 3_000 }, { seat: 's4', declaredMiB: null, declaredBy: 'no budget declared', measuredMiB: 36_000 }],
      },
    },
  };
  const all = JSON.stringify(renderReport(report(fleet, [unset, gpu]), req).blocks);
  assert.ok(all.includes('inferred: K is not set in the environment'), all);
  assert.ok(!all.includes('measured: `inferred'), all);
  assert.match(all, /used 40,000 · declared \? · free 57,887 of 97,887 MiB/);
  assert.match(all, /s4 36,000\/\?/);
});
