// Findings made by the probes' own constructors, for diagnosis tests: no hand-typed wording decides anything.
import { readFile } from 'node:fs/promises';
import { Fleet } from '../../src/inventory/fleet.ts';
import { parseInventory } from '../../src/inventory/load.ts';
import { makeFinding, measured } from '../../src/probes/finding.ts';
import { aliasFinding, keyFinding, seatFinding, type Make } from '../../src/probes/gateway/findings.ts';
import type { Key, KeyOutcome, SeatCheck } from '../../src/probes/gateway/checks.ts';
import { cardFindings } from '../../src/probes/gpu/findings.ts';
import { pairWithInventory } from '../../src/probes/gpu/pairing.ts';
import type { ProcessRow } from '../../src/probes/gpu/parse.ts';
import { NVIDIA } from '../../src/probes/gpu/vendors.ts';
import { judgeOob } from '../../src/probes/power/plan.ts';
import { judgeUps } from '../../src/probes/power/ups.ts';
import type { AddressRole, Finding, HttpOutcome } from '../../src/probes/types.ts';

export const clock = (): Date => new Date('2026-12-03T06:58:40.000Z');
const mk: Make = (f) => makeFinding(clock, f);

export async function exampleFleet(): Promise<Fleet> {
  const r = parseInventory(await readFile(new URL('../../examples/fleet.yaml', import.meta.url), 'utf8'));
  if (!r.ok) throw new Error(r.errors.join('\n'));
  return new Fleet(r.value);
}

const BASE = 'http://192.0.2.10:4000';
export const ok = (ms = 20): HttpOutcome => ({ ok: true, httpStatus: 200, code: 'ok', latencyMs: ms });
export const status = (httpStatus: number, error?: string): HttpOutcome => ({ ok: false, httpStatus, code: 'http_status', ...(error ? { error } : {}), latencyMs: 5 });
export const transport = (code: 'timeout' | 'refused' | 'reset'): HttpOutcome => ({ ok: false, httpStatus: null, code, error: code, latencyMs: 5 });

export function keys(fleet: Fleet, unset: string[] = []): Key[] {
  return Object.entries(fleet.inventory.gateway.keys).map(([name, k]) => ({ name, envVar: k.env, secret: unset.includes(name) ? undefined : `sk-${name}-secret-value` }));
}

/** One alias as the gateway probe words it: `how` says what each key saw; `seats` what each backend's /health answered. */
export function alias(fleet: Fleet, name: string, how: 'ok' | HttpOutcome | 'listing-down' | 'listing-rejected' | 'not-registered', seatHealth: HttpOutcome = ok()): Finding {
  const a = fleet.aliases.get(name);
  if (!a) throw new Error(`no alias ${name}`);
  const outcomes: KeyOutcome[] = keys(fleet).map((key) => {
    if (how === 'ok') return a.paid ? { kind: 'listed-only', key } : { kind: 'ok', key, outcome: ok() };
    if (how === 'listing-down') return { kind: 'listing-failed', key, outcome: transport('refused') };
    if (how === 'listing-rejected') return { kind: 'listing-failed', key, outcome: status(401, 'Authentication Error') };
    if (how === 'not-registered') return { kind: 'not-registered', key };
    return { kind: 'failed', key, outcome: how };
  });
  const seats: SeatCheck[] = a.seats.map((seat) => ({ seat, health: seatHealth }));
  return aliasFinding(mk, BASE, a, outcomes, seats, 3000);
}

export function gatewayKey(fleet: Fleet, key: string, how: 'ok' | 'unset' | HttpOutcome): Finding {
  const k = keys(fleet).find((x) => x.name === key)!;
  if (how === 'unset') return keyFinding(mk, BASE, { state: 'unset', key: { ...k, secret: undefined } }, 3000);
  if (how === 'ok') return keyFinding(mk, BASE, { state: 'ok', key: k, outcome: ok(), models: new Set(fleet.aliases.keys()) }, 3000);
  return keyFinding(mk, BASE, { state: 'failed', key: k, outcome: how }, 3000);
}

export function seat(fleet: Fleet, name: string, health: HttpOutcome): Finding {
  const s = fleet.seats.get(name)!;
  return seatFinding(mk, { seat: s, health, ...(health.ok ? { models: [{ id: name, maxModelLen: null }], modelsOutcome: ok() } : {}) }, 3000);
}

/** An address probe (BMC, firewall, host, control) that answered ping or not. */
export function address(site: string, role: AddressRole, name: string, answered: boolean): Finding {
  const j = judgeOob(answered ? { result: 'ok', rttMs: 0.4 } : { result: 'failed', why: '' }, []);
  const probe = role === 'control' ? 'firewall' : role;
  return makeFinding(clock, { probe, target: name, subject: { kind: 'address', site, role, name }, site, provenance: measured({ how: 'icmp', argv: ['ping', '-c', '1', name] }), ...j });
}

export function ups(fleet: Fleet, site: string, vars: Record<string, string>, at: () => Date = clock): Finding {
  const u = fleet.site(site)!.ups!;
  const j = judgeUps(vars, u, 80);
  return makeFinding(at, {
    probe: 'ups',
    target: u.name,
    subject: { kind: 'ups', site, ups: u.name },
    site,
    status: j.status,
    reason: j.reason,
    detail: j.detail,
    provenance: measured({ how: 'nut', host: u.host, port: u.port, ups: u.name, command: 'LIST VAR' }),
    latencyMs: 2,
    data: { kind: 'ups', ups: j.reading },
  });
}

/** One host's cards as the GPU probe makes them from nvidia-smi's rows. */
export function gpus(fleet: Fleet, host: string, rows: { index: number; free: number; used: number; total?: number }[], processes: ProcessRow[] | null = []): Finding[] {
  const h = fleet.hosts.get(host)!;
  const ctx = { fleet, host: h, vendor: NVIDIA, processes, appsNote: null, clock, floorMiB: 4096, provenance: measured({ how: 'exec' as const, argv: ['nvidia-smi'] }), latencyMs: 40 };
  const gpuRows = rows.map((r) => ({ index: r.index, uuid: null, name: null, totalMiB: r.total ?? 97_887, usedMiB: r.used, freeMiB: r.free }));
  return pairWithInventory(h, gpuRows).flatMap((p) => (p.row ? cardFindings(ctx, p, p.row) : []));
}

/** Every display string rewritten: decisions must not move. */
export function reworded(findings: Finding[]): Finding[] {
  return findings.map((f) => ({ ...f, detail: 'x', target: 'x', measuredBy: 'x' }));
}
