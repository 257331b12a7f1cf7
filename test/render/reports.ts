// Probe reports for rendering tests, built the way runProbe builds them: findings made by the
// probes' own code (test/helpers/findings.ts), then the real summary and verdict.
import { fileURLToPath } from 'node:url';
import { runProbe, sortFindings, type ProbeReport, type ProbeRequest } from '../../src/commands/probe.ts';
import { decide, summarize } from '../../src/diagnose/verdict.ts';
import { Fleet } from '../../src/inventory/fleet.ts';
import { parseInventory } from '../../src/inventory/load.ts';
import { SCHEMA_VERSION } from '../../src/probes/canonical.ts';
import type { Finding } from '../../src/probes/types.ts';
import { address, alias, clock, gatewayKey, gpus, ok, seat, status } from '../helpers/findings.ts';

export function reportOf(fleet: Fleet, findings: Finding[], site = 'fv'): ProbeReport {
  const ordered = sortFindings(findings);
  const sites = site === 'all' ? fleet.siteNames : [site];
  const summary = summarize(fleet, ordered, sites);
  return {
    schemaVersion: SCHEMA_VERSION,
    site,
    fleet: fleet.inventory.fleet,
    drill: fleet.inventory.drill,
    sites,
    startedAt: clock().toISOString(),
    finishedAt: new Date(clock().getTime() + 1234).toISOString(),
    durationMs: 1234,
    timeoutMs: 3000,
    deadlineMs: 10_000,
    findings: ordered,
    summary,
    verdict: decide(sites, summary),
  };
}

/** Every alias of the example fleet as the gateway probe words it; `down` answer 500 with a healthy backend. */
export function aliasFindings(fleet: Fleet, down: string[] = []): Finding[] {
  return [...fleet.aliases.keys()].map((name) => alias(fleet, name, down.includes(name) ? status(500, 'litellm.InternalServerError: backend') : 'ok'));
}

/**
 * Site fv of the example fleet, seed 000 style: one alias down through the gateway, every GPU
 * measured with GPU1 under the floor, every address answering.
 */
export function fvReport(fleet: Fleet, o: { down?: string[]; underFloor?: boolean } = {}): ProbeReport {
  const findings = [
    gatewayKey(fleet, 'admin', 'ok'),
    gatewayKey(fleet, 'shared', 'ok'),
    ...aliasFindings(fleet, o.down ?? []),
    seat(fleet, 'gen', ok()),
    seat(fleet, 'summarizer', ok()),
    ...gpus(fleet, 'fv-ml1', [
      { index: 0, free: 8_641, used: 89_246 },
      { index: 1, free: o.underFloor ? 216 : 30_000, used: o.underFloor ? 97_671 : 67_887 },
      { index: 2, free: 18_943, used: 78_944 },
      { index: 3, free: 20_000, used: 77_887 },
    ], null),
    address('fv', 'bmc', 'fv-ml1-bmc', true),
    address('fv', 'firewall', 'fv firewall', true),
    address('fv', 'host', 'fv-ml1', true),
    address('ana', 'control', 'ana firewall', true),
    address('irv', 'control', 'irv firewall', true),
  ];
  return reportOf(fleet, findings);
}

const DRIVER_FAILURE = fileURLToPath(new URL('../fixtures/gpu/driver-failure/', import.meta.url));

/** A real GPU probe run against an nvidia-smi whose driver is not loaded: no card is measured. */
export async function driverFailureReport(): Promise<ProbeReport> {
  const r = parseInventory(`
gateway: { baseUrl: http://127.0.0.1:9, keys: { admin: { env: K } } }
sites:
  fv:
    hosts:
      fv-ml1: { address: 127.0.0.1, ssh: local, gpus: [{ index: 0 }, { index: 1 }] }
`);
  if (!r.ok) throw new Error(r.errors.join('\n'));
  const req: ProbeRequest = { site: 'fv', only: ['gpus'], timeoutMs: null, paid: false };
  return runProbe(new Fleet(r.value), req, { env: { PATH: process.env.PATH ?? '/usr/bin:/bin' }, pathPrefix: [DRIVER_FAILURE], clock });
}
