// Drill-like probe reports of the drill fleet (drills/fleet.yaml), built as the probes build them:
// fv's aliases failing for the admin key, the shared key unset, GPU 2 under its floor, the UPS on battery.
import { loadInventory } from '../../src/inventory/load.ts';
import { Fleet } from '../../src/inventory/fleet.ts';
import type { ProbeReport } from '../../src/commands/probe.ts';
import type { Finding, FindingData, KeyResult, Subject } from '../../src/probes/types.ts';

export async function drillFleet(): Promise<Fleet> {
  const r = await loadInventory(new URL('../../drills/fleet.yaml', import.meta.url).pathname);
  if (!r.ok) throw new Error(r.errors.join('\n'));
  return new Fleet(r.value);
}

/** A string a hostile peer might send: quotes, newlines and a forged sample. */
export const HOSTILE = 'evil"} 1\nprobe_success{site="fv",target="forged"} 1\n#';
/** What a gateway key's value looks like; it must appear nowhere in /metrics. */
export const KEY_VALUE = 'sk-drill-admin-0123456789abcdef';

const AT = '2026-12-07T04:00:00.000Z';

function finding(f: { probe: Finding['probe']; subject: Subject; status: Finding['status']; reason?: Finding['reason']; data: FindingData; latencyMs?: number | null; site?: string; host?: string; inferred?: boolean }): Finding {
  return {
    probe: f.probe,
    target: HOSTILE,
    status: f.status,
    ...(f.reason ? { reason: f.reason } : {}),
    subject: f.subject,
    detail: `${HOSTILE} ${KEY_VALUE}`,
    measuredBy: `curl -H 'Authorization: Bearer ${KEY_VALUE}'`,
    provenance: f.inferred ? { kind: 'inferred', from: [], why: 'key_unset' } : { kind: 'measured', via: [{ how: 'http', method: 'GET', url: 'http://127.0.0.1:14000/v1/models', key: 'admin' }] },
    observedAt: AT,
    latencyMs: f.latencyMs === undefined ? 12 : f.latencyMs,
    ...(f.site ? { site: f.site } : {}),
    ...(f.host ? { host: f.host } : {}),
    data: f.data,
  };
}

const http = (latencyMs: number, ok: boolean) => ({ ok, httpStatus: ok ? 200 : 502, code: ok ? 'ok' : 'http_status', error: `${HOSTILE} ${KEY_VALUE}`, latencyMs });

function aliasFinding(name: string, inInventory: boolean, keys: KeyResult[]): Finding {
  const failed = keys.some((k) => k.outcome === 'failed');
  return finding({
    probe: 'alias',
    subject: { kind: 'alias', name, inInventory },
    status: failed ? 'down' : inInventory ? 'up' : 'unknown',
    ...(failed ? { reason: 'backend_down' as const } : inInventory ? {} : { reason: 'outside_inventory' as const }),
    site: 'fv',
    data: { kind: 'alias', aliasKind: 'chat', paid: false, routedTo: [], routedSeats: [], keys, exercised: true, attribution: null, backendError: HOSTILE },
  });
}

const adminFailed = (latencyMs: number): KeyResult => ({ key: 'admin', registered: true, intended: true, outcome: 'failed', request: http(latencyMs, false) });
const sharedUnset: KeyResult = { key: 'shared', registered: null, intended: true, outcome: 'unset', note: 'LITELLM_SHARED_KEY is not set' };

const gpu = (index: number, freeMiB: number | null, seats: { seat: string; declaredMiB: number | null }[]) => ({
  host: 'fv-ml1', index, uuid: null, name: 'NVIDIA RTX 6000 Ada', totalMiB: 49140, usedMiB: freeMiB === null ? null : 49140 - freeMiB, freeMiB,
  seats: seats.map((s) => ({ ...s, declaredBy: 'gpuMemoryUtilization', measuredMiB: null })), processes: [], marginMiB: freeMiB === null ? null : freeMiB - 4096, floorMiB: 4096,
});

export function fvFindings(): Finding[] {
  return [
    aliasFinding('gen', true, [adminFailed(1500), sharedUnset]),
    aliasFinding('coder', true, [adminFailed(250), sharedUnset]),
    // Listed by the gateway, unknown to the inventory: its name is the peer's, never a label.
    aliasFinding(HOSTILE, false, [{ key: 'admin', registered: true, intended: true, outcome: 'ok', request: http(5, true) }]),
    finding({ probe: 'gpu', subject: { kind: 'gpu', host: 'fv-ml1', index: 2, uuid: null, inInventory: true }, status: 'degraded', reason: 'under_floor', site: 'fv', host: 'fv-ml1', data: { kind: 'gpu', gpu: gpu(2, 1979, [{ seat: 'flash-next', declaredMiB: 14336 }]) } }),
    // nvidia-smi missing: not measured, so no sample (absent, not 0).
    finding({ probe: 'gpu', subject: { kind: 'gpu', host: 'fv-ml1', index: 3, uuid: null, inInventory: true }, status: 'unknown', reason: 'tool_missing', latencyMs: null, site: 'fv', host: 'fv-ml1', data: { kind: 'gpu', gpu: gpu(3, null, []) } }),
    finding({ probe: 'ups', subject: { kind: 'ups', site: 'fv', ups: 'fvups' }, status: 'down', reason: 'on_battery', site: 'fv', data: { kind: 'ups', ups: { ups: 'fvups', status: ['OB', 'DISCHRG'], loadPct: 93, loadW: 837, loadWFrom: 'load×rating', ratedW: 900, ratedVA: 1500, chargePct: 71, runtimeS: 420, warnPct: 80, vars: { 'ups.mfr': HOSTILE } } } }),
    finding({ probe: 'gateway', subject: { kind: 'gateway', key: 'admin' }, status: 'up', latencyMs: 40, data: { kind: 'gateway', key: 'admin', envVar: 'LITELLM_ADMIN_KEY', listed: true, models: [HOSTILE], modelCount: 1 } }),
  ];
}

export function reportOf(site: string, findings: Finding[], finishedAt = '2026-12-07T04:00:01.500Z'): ProbeReport {
  return {
    schemaVersion: 1, site, fleet: 'drill', drill: true, sites: site === 'all' ? ['fv', 'ana', 'irv'] : [site],
    startedAt: '2026-12-07T04:00:00.000Z', finishedAt, durationMs: 1500, timeoutMs: 3000, deadlineMs: 10000, findings,
    // Not read by the metrics.
    summary: {} as ProbeReport['summary'],
    verdict: { status: 'down', headline: HOSTILE, lines: [HOSTILE], runbook: null, proposal: null } as unknown as ProbeReport['verdict'],
  };
}
