// Incidents, journals and contexts for guardrail tests. Findings come from the probes' own
// constructors at a chosen time; every verdict is also taken with the display text reworded.
import assert from 'node:assert/strict';
import { Fleet } from '../../src/inventory/fleet.ts';
import { parseInventory } from '../../src/inventory/load.ts';
import type { Actor, EventKind, GuardContext, Guardrail, GuardVerdict, Incident, JournalEvent, StepInput, StepSpec } from '../../src/incident/types.ts';
import { canonicalJson, SCHEMA_VERSION } from '../../src/probes/canonical.ts';
import { makeFinding, measured } from '../../src/probes/finding.ts';
import { aliasFinding, seatFinding, type Make } from '../../src/probes/gateway/findings.ts';
import type { KeyOutcome, SeatCheck } from '../../src/probes/gateway/checks.ts';
import { cardFindings } from '../../src/probes/gpu/findings.ts';
import { pairWithInventory } from '../../src/probes/gpu/pairing.ts';
import type { ProcessRow } from '../../src/probes/gpu/parse.ts';
import { NVIDIA } from '../../src/probes/gpu/vendors.ts';
import { judgeOob } from '../../src/probes/power/plan.ts';
import type { AddressRole, Finding, HttpOutcome } from '../../src/probes/types.ts';
import { keys, ok, reworded, ups } from '../helpers/findings.ts';

/** Seed 002's cut: every FV address unreachable at 06:58:40. */
export const DARK_AT = '2026-09-13T06:58:40.000Z';

/** A small fleet of the seeds, on documentation addresses (never probed). */
export function fleetYaml(marginFloorMiB = 4096): string {
  return `
fleet: guardrail-tests
settings: { marginFloorMiB: ${marginFloorMiB} }
gateway:
  baseUrl: http://192.0.2.40:4000
  keys:
    admin: { env: LITELLM_ADMIN_KEY }
    shared: { env: LITELLM_SHARED_KEY }
sites:
  fv:
    hosts:
      fv-ml1: { address: 192.0.2.10, gpus: [{ index: 0 }, { index: 1 }, { index: 2 }] }
    ups: { host: 192.0.2.2, name: fvups, ratedVA: 1500, ratedW: 900 }
    bmc:
      fv-ml1-bmc: { address: 192.0.2.11, tcpPorts: [443] }
    firewall: { address: 192.0.2.1, tcpPorts: [443] }
  ana:
    hosts:
      ana-ml2: { address: 192.0.2.20, gpus: [{ index: 0 }, { index: 1 }] }
    ups: { host: 192.0.2.22, name: anaups, ratedVA: 3000 }
    bmc:
      ana-ml2-bmc: { address: 192.0.2.21 }
    firewall: { address: 192.0.2.17 }
seats:
  gen:        { host: fv-ml1, gpus: [0], port: 8000, gpuMemoryUtilization: 0.41, process: gen }
  summarizer: { host: fv-ml1, gpus: [1], port: 8001, gpuMemoryUtilization: 0.30, process: summarizer }
  flash-next: { host: fv-ml1, gpus: [2], port: 8022, kvCacheMemoryBytes: 15032385536, process: flash-next }
  mog-sec:    { host: ana-ml2, gpus: [0], port: 8010, gpuMemoryUtilization: 0.52, process: mog-sec }
aliases:
  gen:         { kind: chat, seats: [gen] }
  gen-large:   { kind: chat, seats: [flash-next] }
  summarizer:  { kind: chat, seats: [summarizer] }
  gen-paid:    { kind: chat, backend: { name: openrouter, paid: true }, optIn: true }
  paid-sonnet: { kind: chat, backend: { name: anthropic, paid: true }, optIn: true }
  lab-bridge:  { kind: chat, backend: { name: irv-bridge, paid: false } }
`;
}

export function testFleet(marginFloorMiB = 4096): Fleet {
  const r = parseInventory(fleetYaml(marginFloorMiB), 'guardrail-tests');
  if (!r.ok) throw new Error(r.errors.join('\n'));
  return new Fleet(r.value);
}

export const fleet = testFleet();

// ---------------------------------------------------------------------------------------------
// Findings at a chosen time, by the probes' own constructors

const clockAt = (at: string) => (): Date => new Date(at);
const mkAt = (at: string): Make => (f) => makeFinding(clockAt(at), f);

/** An address (BMC, firewall, host) that answered ping or not, as the power probe judges it. */
export function addressAt(at: string, site: string, role: AddressRole, name: string, answered: boolean): Finding {
  const j = judgeOob(answered ? { result: 'ok', rttMs: 0.4 } : { result: 'failed', why: '' }, []);
  const probe = role === 'control' ? 'firewall' : role;
  return makeFinding(clockAt(at), { probe, target: name, subject: { kind: 'address', site, role, name }, site, provenance: measured({ how: 'icmp', argv: ['ping', '-c', '1', name] }), ...j });
}

/** Every address of fv, answered or not, and ana's firewall as the control. */
export function fvAddresses(at: string, answered: boolean, o: { bmc?: boolean } = {}): Finding[] {
  return [
    ...(o.bmc === false ? [] : [addressAt(at, 'fv', 'bmc', 'fv-ml1-bmc', answered)]),
    addressAt(at, 'fv', 'firewall', 'fv firewall', answered),
    addressAt(at, 'fv', 'host', 'fv-ml1', answered),
    addressAt(at, 'ana', 'control', 'ana firewall', true),
  ];
}

/** One host's cards as the GPU probe makes them from nvidia-smi's rows. */
export function gpusAt(at: string, host: string, rows: { index: number; free: number; used?: number; total?: number }[], processes: ProcessRow[] | null = []): Finding[] {
  const h = fleet.hosts.get(host)!;
  const ctx = { fleet, host: h, vendor: NVIDIA, processes, appsNote: null, clock: clockAt(at), floorMiB: 4096, provenance: measured({ how: 'exec' as const, argv: ['nvidia-smi'] }), latencyMs: 40 };
  const gpuRows = rows.map((r) => {
    const total = r.total ?? 97_887;
    return { index: r.index, uuid: null, name: null, totalMiB: total, usedMiB: r.used ?? total - r.free, freeMiB: r.free };
  });
  return pairWithInventory(h, gpuRows).flatMap((p) => (p.row ? cardFindings(ctx, p, p.row) : []));
}

/** An alias through the gateway: every key answered (`ok`) or failed with an outcome. */
export function aliasAt(at: string, name: string, how: 'ok' | HttpOutcome, seatHealth: HttpOutcome = ok()): Finding {
  const a = fleet.aliases.get(name)!;
  const outcomes: KeyOutcome[] = keys(fleet).map((key) => (how === 'ok' ? { kind: 'ok', key, outcome: ok() } : { kind: 'failed', key, outcome: how }));
  const seats: SeatCheck[] = a.seats.map((seat) => ({ seat, health: seatHealth }));
  return aliasFinding(mkAt(at), 'http://192.0.2.40:4000', a, outcomes, seats, 3000);
}

/** A seat's own /health and /v1/models, from outside. */
export function seatAt(at: string, name: string, health: HttpOutcome): Finding {
  const s = fleet.seats.get(name)!;
  return seatFinding(mkAt(at), { seat: s, health, ...(health.ok ? { models: [{ id: name, maxModelLen: null }], modelsOutcome: ok() } : {}) }, 3000);
}

export function upsAt(at: string, site: string, vars: Record<string, string>): Finding {
  return ups(fleet, site, vars, clockAt(at));
}

// ---------------------------------------------------------------------------------------------
// Incidents, journals, steps, contexts

const ONCALL: Actor = { kind: 'local', name: 'ana' };

export function openIncident(o: Partial<Incident> = {}): Incident {
  return { id: 1, site: 'fv', title: 'fv dark', status: 'open', openedBy: ONCALL, openedAt: '2026-09-13T06:59:30.000Z', drill: false, ...o };
}

/** An incident's journal as the store would hand it over: seq from 1, hashes that nothing here checks. */
export class Journal {
  readonly events: JournalEvent[] = [];
  constructor(readonly incident: Incident = openIncident()) {}

  add(kind: EventKind, payload: Record<string, unknown>, o: { at?: string; step?: string; actor?: Actor; incident?: number } = {}): JournalEvent {
    const at = o.at ?? this.incident.openedAt;
    const e: JournalEvent = {
      incident: o.incident ?? this.incident.id,
      kind,
      actor: o.actor ?? ONCALL,
      happenedAt: at,
      ...(o.step ? { step: o.step } : {}),
      payload,
      seq: this.events.length + 1,
      recordedAt: at,
      prevHash: '0'.repeat(64),
      hash: 'f'.repeat(64),
    };
    this.events.push(e);
    return e;
  }

  /** A probe report as recorded: the report object in the payload (or its canonical JSON, `asText`). */
  report(findings: Finding[], o: { asText?: boolean } = {}): JournalEvent {
    const at = findings.map((f) => f.observedAt).sort().at(-1) ?? this.incident.openedAt;
    const report = { schemaVersion: SCHEMA_VERSION, site: this.incident.site, findings };
    return this.add('probe.report', { report: o.asText ? canonicalJson(report) : report }, { at, actor: { kind: 'probe' } });
  }

  /** Every finding of every report, oldest first: what the engine hands the guardrails. */
  get findings(): Finding[] {
    return this.events.flatMap((e) => {
      if (e.kind !== 'probe.report' || e.incident !== this.incident.id) return [];
      const r = e.payload.report;
      const report = (typeof r === 'string' ? JSON.parse(r) : r) as { findings: Finding[] };
      return report.findings;
    });
  }
}

export function step(o: Partial<StepSpec> = {}): StepSpec {
  return { id: 'act', title: 'Act', why: 'a seed lesson', body: '', kind: 'action', guardrails: [], line: 1, ...o };
}

export function context(o: { journal?: Journal; step?: StepSpec; input?: StepInput; now?: string; fleet?: Fleet }): GuardContext {
  const journal = o.journal ?? new Journal();
  const input = o.input ?? {};
  return {
    incident: journal.incident,
    events: journal.events,
    step: o.step ?? step(input.action ? { action: input.action } : {}),
    input,
    findings: journal.findings,
    fleet: o.fleet ?? fleet,
    now: new Date(o.now ?? journal.incident.openedAt),
  };
}

/** The same context with every finding's display text rewritten to "x", in the reports and in `findings`. */
export function rewordedContext(ctx: GuardContext): GuardContext {
  const events = ctx.events.map((e) => {
    if (e.kind !== 'probe.report') return e;
    const r = e.payload.report;
    const report = (typeof r === 'string' ? JSON.parse(r) : r) as { findings: Finding[] };
    const again = { ...report, findings: reworded(report.findings) };
    return { ...e, payload: { ...e.payload, report: typeof r === 'string' ? canonicalJson(again) : again } };
  });
  return { ...ctx, events, findings: reworded([...ctx.findings]) };
}

/** A guardrail's verdict, checked to be the same when every display string is reworded. */
export function judge(g: Guardrail, ctx: GuardContext): GuardVerdict {
  const v = g.check(ctx);
  assert.deepEqual(g.check(rewordedContext(ctx)), v, `${g.id}: rewording every detail, target and measuredBy must not change the verdict`);
  return v;
}

/** The refusal, asserting there is one; every refusal names what, why and what instead. */
export function refusal(g: Guardrail, ctx: GuardContext): GuardVerdict & { ok: false } {
  const v = judge(g, ctx);
  assert.equal(v.ok, false, `${g.id} should refuse`);
  if (v.ok) throw new Error('unreachable');
  for (const field of ['refused', 'why', 'instead'] as const) assert.ok(v[field].length > 0 && !v[field].includes('\n'), `${g.id}: ${field} is one non-empty line`);
  return v;
}

export function allowed(g: Guardrail, ctx: GuardContext): void {
  assert.deepEqual(judge(g, ctx), { ok: true });
}

/** A file evidence event payload for the power log: its size and sha256, measured or declared. */
export function powerLog(o: { size?: number; sha256?: string; measured?: boolean } = {}): Record<string, unknown> {
  return { evidence: { kind: 'file', of: 'power-log', name: 'power.log', size: o.size ?? 1_482_113, sha256: o.sha256 ?? 'ab'.repeat(32), measured: o.measured ?? true } };
}

/** Minutes after `at`, as ISO. */
export function plus(at: string, minutes: number): string {
  return new Date(Date.parse(at) + minutes * 60_000).toISOString();
}
