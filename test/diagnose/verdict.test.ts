// The diagnosis over findings made by the probes' own constructors. Decisions read facts only:
// each scenario is also diagnosed with every display string rewritten to "x", and must not move.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { decide, summarize } from '../../src/diagnose/verdict.ts';
import type { Finding } from '../../src/probes/types.ts';
import { address, alias, exampleFleet, gatewayKey, gpus, ok, reworded, seat, status, transport, ups } from '../helpers/findings.ts';

const fleet = await exampleFleet();
const allAliases = [...fleet.aliases.keys()];

function diagnose(scope: string[], findings: Finding[]) {
  const v = decide(scope, summarize(fleet, findings, scope));
  const x = decide(scope, summarize(fleet, reworded(findings), scope));
  assert.equal(x.runbook, v.runbook, 'rewording every detail and target must not change the proposed runbook');
  assert.equal(x.status, v.status);
  assert.deepEqual(x.proposal, v.proposal);
  return v;
}

/** Seed 002, 06:58:40: every FV address unreachable, BMC included; the other sites answer. */
function fvDark(): Finding[] {
  return [
    ...allAliases.map((a) => (fleet.aliasHosts(a).includes('fv-ml1') ? alias(fleet, a, transport('timeout'), transport('timeout')) : alias(fleet, a, 'ok'))),
    address('fv', 'bmc', 'fv-ml1-bmc', false),
    address('fv', 'firewall', 'fv firewall', false),
    address('fv', 'host', 'fv-ml1', false),
    address('ana', 'control', 'ana firewall', true),
    address('irv', 'control', 'irv firewall', true),
  ];
}

test('seed 002: site dark, 19 of 30 aliases down on fv-ml1, no local chat fallback → runbook site-dark', () => {
  const findings = fvDark();
  const summary = summarize(fleet, findings, ['fv']);
  const v = diagnose(['fv'], findings);
  assert.equal(summary.aliases.down, 19);
  assert.equal(summary.aliases.total, 30);
  assert.deepEqual(summary.aliases.downByRoute.map((r) => r.route), ['fv-ml1']);
  assert.equal(v.runbook, 'site-dark');
  assert.equal(v.proposal?.rule, 'site-dark');
  assert.equal(v.status, 'down');
  assert.match(v.headline, /^site fv dark: every address \(BMC included\) failed while other sites answer/);
  assert.ok(v.lines.includes('19 of 30 aliases down, all routed to fv-ml1'), v.lines.join('\n'));
  const chat = v.lines.find((l) => l.startsWith('no local chat fallback'));
  assert.ok(chat, v.lines.join('\n'));
  assert.match(chat, /every free chat alias is on fv-ml1; the rest are paid \(paid-gen, paid-summarizer, paid-sonnet, paid-mini, paid-flash\)/);
  assert.ok(v.lines.some((l) => /^local embedding fallback remains: qwen3-embed/.test(l)), v.lines.join('\n'));
});

test('when the control pings and the gateway fail too, it is this machine’s network, not a dark site', () => {
  const findings = fvDark().map((f) =>
    f.subject.kind === 'address' && f.subject.role === 'control' ? address(f.subject.site, 'control', f.subject.name, false) : f.subject.kind === 'alias' ? alias(fleet, f.subject.name, 'listing-down') : f,
  );
  const v = diagnose(['fv'], findings);
  assert.equal(v.runbook, null);
  assert.equal(v.proposal?.rule, 'no-network');
  assert.match(v.headline, /check this machine’s own network/);
});

test('a dark site whose BMC was not measured does not claim "BMC included"', () => {
  const findings = fvDark().filter((f) => !(f.subject.kind === 'address' && f.subject.role === 'bmc'));
  const v = diagnose(['fv'], findings);
  assert.equal(v.runbook, 'site-dark');
  assert.match(v.headline, /^site fv dark: every address failed while other sites answer/);
});

test('seed 000: a backend OOM under a flagged GPU proposes gpu-oom-cotenant, and the alias blames the backend', () => {
  const embed = alias(fleet, 'qwen3-embed', status(500, 'litellm.InternalServerError: Hosted_vllmException - Connection error.'), status(503));
  assert.equal(embed.reason, 'backend_down');
  const findings = [
    ...allAliases.map((a) => (a === 'qwen3-embed' ? embed : alias(fleet, a, 'ok'))),
    gatewayKey(fleet, 'admin', 'ok'),
    ...gpus(fleet, 'ana-ml2', [{ index: 0, free: 8_186, used: 89_701 }, { index: 1, free: 216, used: 97_671 }]),
    address('ana', 'host', 'ana-ml2', true),
  ];
  const v = diagnose(['ana'], findings);
  assert.equal(v.runbook, 'gpu-oom-cotenant');
  assert.equal(v.headline, '1 of 30 aliases down, all routed to ana-ml2');
  assert.ok(v.lines.includes('ana-ml2 GPU1: 216 MiB free, under the 4,096 MiB floor — a seat there can OOM or fall back to slow kernels'), v.lines.join('\n'));
  assert.ok(v.lines.some((l) => l.startsWith('local embedding fallback remains: ')));
});

test('healthy is not serving: a 500 naming the backend while its /health passes is the backend failing, and backend-down is proposed', () => {
  const body = 'litellm.InternalServerError: InternalServerError: Hosted_vllmException - CUDA out of memory. Tried to allocate 2.00 GiB.';
  const gen = alias(fleet, 'gen', status(500, body), ok());
  assert.equal(gen.reason, 'backend_failing');
  assert.equal(gen.data.kind === 'alias' && gen.data.attribution, 'backend-failing');
  assert.doesNotMatch(gen.detail, /gateway-side/);
  assert.match(gen.detail, /answers \/health 200 but fails requests/);
  const findings = [...allAliases.map((a) => (a === 'gen' ? gen : alias(fleet, a, 'ok'))), gatewayKey(fleet, 'admin', 'ok'), address('fv', 'host', 'fv-ml1', true)];
  const v = diagnose(['fv'], findings);
  assert.equal(v.runbook, 'backend-down');
  assert.ok(v.lines.some((l) => /gen: backend gen passes its health check but fails requests/.test(l)), v.lines.join('\n'));
});

test('a 500 that does not name the backend, with the backend healthy, is the gateway side — and no backend runbook', () => {
  const gen = alias(fleet, 'gen', status(500, 'litellm.InternalServerError: router has no deployment ready'), ok());
  assert.equal(gen.reason, 'gateway_fault');
  const v = diagnose(['fv'], [...allAliases.map((a) => (a === 'gen' ? gen : alias(fleet, a, 'ok'))), address('fv', 'host', 'fv-ml1', true)]);
  assert.notEqual(v.runbook, 'backend-down');
});

test('a model named like a backend failure (cuda-coder, bge-OOM-test) in a router error is still the gateway side', () => {
  for (const body of [
    'litellm.BadRequestError: No deployments available for selected model. Passed model=cuda-coder',
    'litellm.InternalServerError: router has no deployment ready. Received Model Group=bge-OOM-test',
    'litellm.InternalServerError: no healthy deployment for cuda-coder',
  ]) {
    const gen = alias(fleet, 'gen', status(500, body), ok());
    assert.equal(gen.reason, 'gateway_fault', body);
  }
});

test('all up: ok, no runbook', () => {
  const v = diagnose(['fv'], [alias(fleet, 'gen', 'ok'), address('fv', 'host', 'fv-ml1', true)]);
  assert.deepEqual({ status: v.status, runbook: v.runbook, headline: v.headline }, { status: 'ok', runbook: null, headline: 'all 2 checks up' });
});

test('a UPS on battery and over its load threshold proposes ups-overload', () => {
  const u = ups(fleet, 'fv', { 'ups.status': 'OB', 'ups.load': '86', 'battery.charge': '100' });
  assert.equal(u.reason, 'on_battery');
  const v = diagnose(['fv'], [u, address('fv', 'host', 'fv-ml1', true)]);
  assert.equal(v.runbook, 'ups-overload');
  assert.equal(v.status, 'degraded');
});

test('a UPS whose driver has not reported yet (WAIT) is unknown, not a power emergency', () => {
  const u = ups(fleet, 'fv', { 'ups.status': 'WAIT' });
  assert.equal(u.reason, 'no_status');
  const v = diagnose(['fv'], [u, address('fv', 'host', 'fv-ml1', true)]);
  assert.equal(v.runbook, null);
});

test('probe all with every site silent is this machine’s network, not three dark sites', () => {
  const findings = ['fv', 'ana', 'irv'].flatMap((site) => [address(site, 'bmc', `${site}-bmc`, false), address(site, 'firewall', `${site} firewall`, false)]);
  const v = diagnose(['fv', 'ana', 'irv'], findings);
  assert.equal(v.runbook, null);
  assert.match(v.headline, /^nothing answered — no site \(the other sites’ control checks included\), not the gateway, no seat: check this machine’s own network first/);
});

test('nothing measured is never OK: unknown findings make the verdict degraded', () => {
  const [card] = gpus(fleet, 'fv-ml1', [{ index: 0, free: NaN, used: 1 }]).map((f) => ({ ...f, status: 'unknown' as const, reason: 'timeout' as const }));
  const v = diagnose(['fv'], [card!]);
  assert.equal(v.status, 'degraded');
  assert.equal(v.headline, '1 of 1 checks not measured');
});

test('every key rejected is a key problem, not a gateway outage', () => {
  const findings = [gatewayKey(fleet, 'admin', status(401, 'Authentication Error')), gatewayKey(fleet, 'shared', status(401)), alias(fleet, 'gen', 'listing-rejected')];
  const v = diagnose(['fv'], findings);
  assert.notEqual(v.runbook, 'gateway-down');
  assert.equal(v.headline, 'the gateway answers but rejects every key probed: check LITELLM_ADMIN_KEY, LITELLM_SHARED_KEY before blaming the gateway');
  assert.ok(!v.lines.some((l) => /routed to|fallback/.test(l)), v.lines.join('\n'));
});

test('an unset key decides nothing: the other key unreachable is still a gateway outage', () => {
  const findings = [gatewayKey(fleet, 'admin', transport('refused')), gatewayKey(fleet, 'shared', 'unset'), ...allAliases.map((a) => alias(fleet, a, 'listing-down'))];
  assert.equal(findings[1]!.reason, 'key_unset');
  const v = diagnose(['fv'], findings);
  assert.equal(v.runbook, 'gateway-down');
  assert.match(v.headline, /^gateway down for every key probed \(fleet-wide, every site\)/);
  assert.ok(v.lines.includes('30 of 30 aliases down, all cut off at the gateway'), v.lines.join('\n'));
  assert.ok(v.lines.includes('not measured with LITELLM_SHARED_KEY: not set in this environment'), v.lines.join('\n'));
  assert.ok(!v.lines.some((l) => /routed to|fallback/.test(l)), v.lines.join('\n'));
});

test('gateway unreachable: the seats probed directly say the backends live', () => {
  const findings = [gatewayKey(fleet, 'admin', transport('refused')), ...allAliases.map((a) => alias(fleet, a, 'listing-down')), seat(fleet, 'gen', ok()), seat(fleet, 'coder', ok())];
  const v = diagnose(['fv'], findings);
  assert.equal(v.runbook, 'gateway-down');
  assert.ok(v.lines.includes("all 2 backend seats probed directly answer: the fault is the gateway's"), v.lines.join('\n'));
});

test('only a paid alias down: no fallback advice about the free ones', () => {
  const findings = allAliases.map((a) => (a === 'paid-gen' ? alias(fleet, a, transport('timeout')) : alias(fleet, a, 'ok')));
  const v = diagnose(['fv'], findings);
  assert.ok(v.lines.includes(`1 of 30 aliases down, all routed to paid:${fleet.aliases.get('paid-gen')!.alias.backend!.name}`), v.lines.join('\n'));
  assert.ok(!v.lines.some((l) => /fallback/.test(l)), v.lines.join('\n'));
});

test('a site probed speaks of its own faults first: ana’s BMC down is the headline, fv’s outage comes after', () => {
  const findings = [
    ...allAliases.map((a) => (fleet.aliasHosts(a).includes('fv-ml1') ? alias(fleet, a, transport('timeout'), transport('timeout')) : alias(fleet, a, 'ok'))),
    address('ana', 'bmc', 'ana-ml2-bmc', false),
    address('ana', 'firewall', 'ana firewall', true),
    address('ana', 'host', 'ana-ml2', true),
    address('fv', 'control', 'fv firewall', false),
  ];
  const v = diagnose(['ana'], findings);
  assert.match(v.headline, /^site ana: BMC ana-ml2-bmc does not answer/);
  const elsewhere = v.lines.findIndex((l) => l.startsWith('elsewhere: 19 aliases down routed to fv-ml1 (site fv)'));
  assert.ok(elsewhere > 0, v.lines.join('\n'));
});

test('a paid alias only listed is up but not exercised, and counted as listed', () => {
  const f = alias(fleet, 'paid-gen', 'ok');
  assert.equal(f.status, 'up');
  assert.equal(f.data.kind === 'alias' && f.data.exercised, false);
  assert.equal(summarize(fleet, [f]).aliases.listedOnly, 1);
});
