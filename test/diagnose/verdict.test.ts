import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { parseInventory } from '../../src/inventory/load.ts';
import { Fleet } from '../../src/inventory/fleet.ts';
import { decide, summarize } from '../../src/diagnose/verdict.ts';
import type { Finding, FindingStatus } from '../../src/probes/types.ts';

const r = parseInventory(await readFile(new URL('../../examples/fleet.yaml', import.meta.url), 'utf8'));
if (!r.ok) throw new Error(r.errors.join('\n'));
const fleet = new Fleet(r.value);

const f = (probe: Finding['probe'], target: string, status: FindingStatus, site?: string, detail: string = status): Finding => ({
  probe, target, status, detail, measuredBy: 'test', latencyMs: 1, ...(site ? { site } : {}),
});

/** Seed 002, 06:58:40: every FV address unreachable, BMC included; all other sites 0% loss. */
function fvDark(): Finding[] {
  const aliases = [...fleet.aliases.keys()].map((a) => f('alias', a, fleet.aliasHosts(a).includes('fv-ml1') ? 'down' : 'up'));
  return [
    ...aliases,
    f('ups', 'fvups@192.0.2.2:3493', 'down', 'fv', 'upsd unreachable'),
    f('bmc', 'fv-ml1-bmc', 'down', 'fv'),
    f('firewall', 'fv firewall', 'down', 'fv'),
    f('host', 'fv-ml1', 'down', 'fv'),
    f('firewall', 'ana firewall (control)', 'up', 'ana'),
    f('firewall', 'irv firewall (control)', 'up', 'irv'),
  ];
}

test('seed 002: site dark, 19 of 30 aliases down on fv-ml1, no local chat fallback → runbook site-dark', () => {
  const findings = fvDark();
  const summary = summarize(fleet, findings);
  const v = decide(['fv'], findings, summary);
  assert.equal(summary.aliases.down, 19);
  assert.equal(summary.aliases.total, 30);
  assert.deepEqual(Object.keys(summary.aliases.downByHost), ['fv-ml1']);
  assert.equal(v.runbook, 'site-dark');
  assert.equal(v.status, 'down');
  assert.match(v.headline, /^site fv dark: every address \(BMC included\) failed while other sites answer/);
  assert.ok(v.lines.includes('19 of 30 aliases down, all routed to fv-ml1'), v.lines.join('\n'));
  const chat = v.lines.find((l) => l.startsWith('no local chat fallback'));
  assert.ok(chat, v.lines.join('\n'));
  assert.match(chat, /every free chat alias is on fv-ml1; the rest are paid \(paid-gen, paid-summarizer, paid-sonnet, paid-mini, paid-flash\)/);
  assert.ok(v.lines.some((l) => /^local embedding fallback remains: qwen3-embed/.test(l)), v.lines.join('\n'));
});

test('when the control pings fail too, it is this machine’s network, not a dark site', () => {
  const findings = fvDark().map((x) => (x.detail.endsWith('(control)') || x.target.endsWith('(control)') ? { ...x, status: 'down' as const } : x));
  const v = decide(['fv'], findings, summarize(fleet, findings));
  assert.notEqual(v.runbook, 'site-dark');
  assert.match(v.headline, /check this machine’s own network/);
});

test('seed 000: a backend OOM under a flagged GPU proposes seat-oom, not a gateway fix', () => {
  const gpu: Finding = {
    ...f('gpu', 'ana-ml2 GPU1', 'degraded', 'ana'),
    data: {
      kind: 'gpu',
      gpu: { host: 'ana-ml2', index: 1, uuid: null, name: null, totalMiB: 97_887, usedMiB: 97_671, freeMiB: 216, seats: [], processes: [], marginMiB: 216 - 4096, floorMiB: 4096 },
    },
  };
  const findings = [
    ...[...fleet.aliases.keys()].map((a) =>
      a === 'qwen3-embed' ? f('alias', a, 'down', undefined, 'HTTP 500; gateway OK, backend vllm-embed@ana-ml2 /health 503 → the backend is down, not the gateway') : f('alias', a, 'up'),
    ),
    f('gateway', 'gateway (admin key)', 'up'),
    gpu,
    f('host', 'ana-ml2', 'up', 'ana'),
  ];
  const summary = summarize(fleet, findings);
  const v = decide(['ana'], findings, summary);
  assert.equal(v.runbook, 'seat-oom');
  assert.equal(v.headline, '1 of 30 aliases down, all routed to ana-ml2');
  assert.ok(v.lines.includes('ana-ml2 GPU1: 216 MiB free, under the 4,096 MiB floor — a seat there can OOM or fall back to slow kernels'));
  assert.ok(v.lines.some((l) => l.startsWith('local embedding fallback remains: ')));
});

test('all up: ok, no runbook', () => {
  const findings = [f('alias', 'gen', 'up'), f('host', 'fv-ml1', 'up', 'fv')];
  const v = decide(['fv'], findings, summarize(fleet, findings));
  assert.deepEqual({ status: v.status, runbook: v.runbook, headline: v.headline }, { status: 'ok', runbook: null, headline: 'all 2 checks up' });
});

const ups = (status: string[], finding: FindingStatus, detail: string): Finding => ({
  ...f('ups', 'fvups@x', finding, 'fv', detail),
  data: { kind: 'ups', ups: { ups: 'fvups', status, loadPct: 86, loadW: 774, loadWFrom: 'load×rating', ratedW: 900, chargePct: 100, runtimeS: 600, vars: {} } },
});

test('a UPS on battery proposes ups-overload', () => {
  const findings = [ups(['OB'], 'degraded', 'OB, load 86% is above 80% of the 900 W rating'), f('host', 'fv-ml1', 'up', 'fv')];
  const v = decide(['fv'], findings, summarize(fleet, findings));
  assert.equal(v.runbook, 'ups-overload');
  assert.equal(v.status, 'degraded');
});

test('a UPS whose driver has not reported yet (WAIT) is unknown, not a power emergency', () => {
  const findings = [ups(['WAIT'], 'unknown', 'WAIT — neither OL nor OB in ups.status'), f('host', 'fv-ml1', 'up', 'fv')];
  const v = decide(['fv'], findings, summarize(fleet, findings));
  assert.equal(v.runbook, null);
});

test('probe all with every site silent is this machine’s network, not three dark sites', () => {
  const findings = ['fv', 'ana', 'irv'].flatMap((site) => [f('bmc', `${site}-bmc`, 'down', site), f('firewall', `${site} firewall`, 'down', site)]);
  const v = decide(['fv', 'ana', 'irv'], findings, summarize(fleet, findings));
  assert.equal(v.runbook, null);
  assert.match(v.headline, /^no site answered, the control pings included: check this machine’s own network first/);
});

test('a dark site whose BMC was not measured does not claim "BMC included"', () => {
  const findings = fvDark().map((x) => (x.probe === 'bmc' ? { ...x, status: 'unknown' as const } : x));
  const v = decide(['fv'], findings, summarize(fleet, findings));
  assert.equal(v.runbook, 'site-dark');
  assert.match(v.headline, /^site fv dark: every address failed while other sites answer/);
});

test('nothing measured is never OK: unknown findings make the verdict degraded', () => {
  const findings = [f('gpu', 'fv-ml1 GPU0', 'unknown', 'fv', 'no answer within 3000 ms (killed)')];
  const v = decide(['fv'], findings, summarize(fleet, findings));
  assert.equal(v.status, 'degraded');
  assert.equal(v.headline, '1 of 1 checks not measured');
});

test('every key rejected is a key problem, not a gateway outage', () => {
  const findings = [
    f('gateway', 'gateway (admin key)', 'down', undefined, 'key rejected (HTTP 401: Authentication Error)'),
    f('gateway', 'gateway (shared key)', 'down', undefined, 'key rejected (HTTP 401: Authentication Error)'),
    f('alias', 'gen', 'down'),
  ];
  const v = decide(['fv'], findings, summarize(fleet, findings));
  assert.notEqual(v.runbook, 'gateway-down');
  assert.equal(v.headline, 'the gateway answers but rejects every key probed: check LITELLM_ADMIN_KEY, LITELLM_SHARED_KEY before blaming the gateway');
  assert.ok(!v.lines.some((l) => /routed to|fallback/.test(l)), v.lines.join('\n'));
});

test('an unset key decides nothing: the other key unreachable is still a gateway outage', () => {
  const findings = [
    f('gateway', 'gateway (admin key)', 'down', undefined, 'gateway unreachable at http://127.0.0.1:14000: ECONNREFUSED'),
    f('gateway', 'gateway (shared key)', 'unknown', undefined, 'LITELLM_SHARED_KEY is not set'),
    ...[...fleet.aliases.keys()].map((a) => f('alias', a, 'down', undefined, 'gateway unreachable (ECONNREFUSED)')),
  ];
  const v = decide(['fv'], findings, summarize(fleet, findings));
  assert.equal(v.runbook, 'gateway-down');
  assert.match(v.headline, /^gateway down for every key probed \(fleet-wide, every site\)/);
  assert.ok(v.lines.includes('30 of 30 aliases down, all cut off at the gateway'), v.lines.join('\n'));
  assert.ok(v.lines.includes('not measured with LITELLM_SHARED_KEY: not set in this environment'), v.lines.join('\n'));
  assert.ok(!v.lines.some((l) => /routed to|fallback/.test(l)), v.lines.join('\n'));
});

test('only a paid alias down: no fallback advice about the free ones', () => {
  const findings = [...fleet.aliases.keys()].map((a) => f('alias', a, a === 'paid-gen' ? 'down' : 'up'));
  const v = decide(['fv'], findings, summarize(fleet, findings));
  assert.ok(v.lines.includes('1 of 30 aliases down, all routed to paid:' + fleet.aliases.get('paid-gen')!.alias.backend!.name), v.lines.join('\n'));
  assert.ok(!v.lines.some((l) => /fallback/.test(l)), v.lines.join('\n'));
});

test('gateway unreachable: every alias is cut off at the gateway, no per-host blame, and the seats say whether the backends live', () => {
  const aliases = [...fleet.aliases.keys()].map((a) => f('alias', a, 'down', undefined, 'gateway unreachable (ECONNREFUSED)'));
  const gw = [f('gateway', 'gateway (admin key)', 'down', undefined, 'gateway unreachable at http://127.0.0.1:14000: ECONNREFUSED')];
  const seats = [f('seat', 'gen@fv-ml1', 'up', 'fv'), f('seat', 'coder@fv-ml1', 'up', 'fv')];
  const findings = [...gw, ...aliases, ...seats];
  const v = decide(['fv'], findings, summarize(fleet, findings));
  assert.equal(v.runbook, 'gateway-down');
  assert.ok(v.lines.includes('30 of 30 aliases down, all cut off at the gateway'), v.lines.join('\n'));
  assert.ok(v.lines.includes("all 2 backend seats probed directly answer: the fault is the gateway's"));
  assert.ok(!v.lines.some((l) => l.includes('fallback')), 'no fallback advice while the gateway itself is down');
});

test('the fallback line never calls a paid backend a place where free aliases live', () => {
  const findings = [...fleet.aliases.keys()].map((a) => f('alias', a, fleet.aliasHosts(a).includes('fv-ml1') || fleet.aliases.get(a)!.paid ? 'down' : 'up'));
  const v = decide(['fv'], findings, summarize(fleet, findings));
  const chat = v.lines.find((l) => l.startsWith('no local chat fallback'));
  assert.ok(chat);
  assert.match(chat, /every free chat alias is on fv-ml1;/);
});
