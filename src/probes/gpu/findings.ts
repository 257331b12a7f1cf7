// GPU findings: one per card, one per seat whose engine holds no memory, or one per inventory GPU
// when the query failed (so a failed query still says which host and index it was about).
import type { Fleet, HostRef } from '../../inventory/fleet.ts';
import { makeFinding, type FindingInput } from '../finding.ts';
import { fmtInt } from '../edge/text.ts';
import type { Finding, FindingStatus, GpuMemory, GpuSeatUse, Provenance } from '../types.ts';
import type { GpuRow, ProcessRow } from './parse.ts';
import { seatUse, type Paired } from './pairing.ts';
import type { Failure, Vendor } from './vendors.ts';

export interface GpuContext {
  fleet: Fleet;
  host: HostRef;
  vendor: Vendor;
  processes: ProcessRow[] | null;
  appsNote: string | null;
  clock: () => Date;
  floorMiB: number;
  provenance: Provenance;
  latencyMs: number | null;
}

function mk(ctx: Pick<GpuContext, 'clock' | 'host' | 'provenance' | 'latencyMs'>, f: Omit<FindingInput, 'probe' | 'provenance' | 'latencyMs' | 'site' | 'host'>): Finding {
  return makeFinding(ctx.clock, { probe: 'gpu', provenance: ctx.provenance, latencyMs: ctx.latencyMs, site: ctx.host.site, host: ctx.host.name, ...f });
}

/** A card's memory with nothing measured: the shape every failed query still fills. */
function blank(host: string, index: number, floorMiB: number): GpuMemory {
  return { host, index, uuid: null, name: null, totalMiB: null, usedMiB: null, freeMiB: null, seats: [], processes: [], marginMiB: null, floorMiB };
}

/** One finding per GPU the inventory lists for this host, or one for the host when it lists none. */
export function failureFindings(ctx: Pick<GpuContext, 'clock' | 'host' | 'provenance' | 'latencyMs' | 'floorMiB'>, v: Failure): Finding[] {
  const { host } = ctx;
  if (host.host.gpus.length === 0) {
    return [mk(ctx, { target: host.name, subject: { kind: 'gpu-host', host: host.name }, status: v.status, reason: v.reason, detail: v.detail, data: { kind: 'gpu', gpu: blank(host.name, -1, ctx.floorMiB) } })];
  }
  return host.host.gpus.map((g) =>
    mk(ctx, {
      target: `${host.name} GPU${g.index}`,
      subject: { kind: 'gpu', host: host.name, index: g.index, uuid: g.uuid ?? null, inInventory: true },
      status: v.status,
      reason: v.reason,
      detail: v.detail,
      data: { kind: 'gpu', gpu: { ...blank(host.name, g.index, ctx.floorMiB), uuid: g.uuid ?? null } },
    }),
  );
}

export function cardFindings(ctx: GpuContext, p: Paired, row: GpuRow): Finding[] {
  const floor = ctx.floorMiB;
  const onGpu = ctx.processes?.filter((x) => (x.gpuUuid !== null ? x.gpuUuid === row.uuid : x.gpuIndex === row.index)) ?? null;
  const seatRefs = p.extra ? [] : ctx.fleet.seatsOnGpu(ctx.host.name, p.index);
  // With no memory figures ([N/A]) an empty process list says nothing of a seat: not reported, not "no process".
  const seats = seatRefs
    .map((s) => seatUse(s, row.totalMiB, onGpu, seatRefs.length === 1))
    .map((s) => (row.freeMiB === null && s.unmeasuredWhy === 'no_process' ? { ...s, unmeasuredWhy: 'not_reported' as const } : s));
  const margin = row.freeMiB === null ? null : row.freeMiB - floor;
  const gpu: GpuMemory = {
    host: ctx.host.name,
    index: p.index,
    uuid: row.uuid,
    name: row.name,
    totalMiB: row.totalMiB,
    usedMiB: row.usedMiB,
    freeMiB: row.freeMiB,
    seats,
    processes: (onGpu ?? []).map((x) => ({ pid: x.pid, name: x.name, usedMiB: x.usedMiB })),
    marginMiB: margin,
    floorMiB: floor,
  };
  const status: FindingStatus = row.freeMiB === null ? 'unknown' : row.freeMiB < floor ? 'degraded' : 'up';
  const of = row.totalMiB === null ? 'an unreported total' : fmtInt(row.totalMiB);
  const head =
    row.freeMiB === null
      ? `free memory not reported by ${ctx.vendor.tool} (total ${row.totalMiB === null ? 'not reported either' : `${fmtInt(row.totalMiB)} MiB`})`
      : `${fmtInt(row.freeMiB)} MiB free of ${of} (floor ${fmtInt(floor)}): ${margin !== null && margin < 0 ? 'under the margin floor' : `margin ${fmtInt(margin ?? 0)} MiB`}`;
  const seatText = seats.length > 0 ? `seats on it: ${seats.map(seatLine).join(', ')}` : 'no seat on it in the inventory';
  const notes = [p.note, ctx.appsNote].filter((x): x is string => !!x);
  const subject = { kind: 'gpu' as const, host: ctx.host.name, index: p.index, uuid: row.uuid, inInventory: !p.extra };
  const card = mk(ctx, {
    target: p.target,
    subject,
    status,
    reason: status === 'up' ? undefined : row.freeMiB === null ? 'not_reported' : 'under_floor',
    detail: `${head} — ${seatText}${notes.length > 0 ? ` (${notes.join('; ')})` : ''}`,
    data: { kind: 'gpu', gpu },
  });
  // A budget on a card where no process holds memory: the engine is not running, whatever its health says.
  // With no memory figures ([N/A]) nothing is concluded from the process list: the card says unknown.
  const idle = row.freeMiB === null ? [] : seats.filter((s) => s.unmeasuredWhy === 'no_process' && s.declaredMiB !== null);
  const engines = idle.map((s) =>
    mk(ctx, {
      target: `${s.seat}@${ctx.host.name} GPU${p.index}`,
      subject: { kind: 'seat', name: s.seat, host: ctx.host.name },
      status: 'down',
      reason: 'engine_not_running',
      detail: `budget declared on ${p.target} (${s.declaredBy}), but no process holds memory there: its engine is not running`,
      data: { kind: 'gpu-seat', seat: s.seat, host: ctx.host.name, index: p.index, declaredMiB: s.declaredMiB },
    }),
  );
  return [card, ...engines];
}

export function missingFinding(ctx: GpuContext, index: number): Finding {
  return mk(ctx, {
    target: `${ctx.host.name} GPU${index}`,
    subject: { kind: 'gpu', host: ctx.host.name, index, uuid: null, inInventory: true },
    status: 'down',
    reason: 'not_reported',
    detail: `GPU${index} listed in the inventory but not reported by ${ctx.vendor.tool}`,
    data: { kind: 'gpu', gpu: blank(ctx.host.name, index, ctx.floorMiB) },
  });
}

const UNMEASURED: Record<NonNullable<GpuSeatUse['unmeasuredWhy']>, string> = {
  no_process_list: 'no process list',
  no_process: 'no process on the card',
  no_pattern: 'shared card, no process pattern',
  no_match: 'no process matches its pattern',
  not_reported: 'memory not reported',
};

function seatLine(s: GpuSeatUse): string {
  const m = s.measuredMiB === null ? `? (${UNMEASURED[s.unmeasuredWhy ?? 'not_reported']})` : `${fmtInt(s.measuredMiB)} MiB`;
  return `${s.seat} declared ${declaredText(s)} / measured ${m}`;
}

/** One seat's declared budget as shown: ? when undeclared; a KV-cache budget says the weights come on top. */
export function declaredText(s: GpuSeatUse): string {
  return s.declaredMiB === null ? '?' : `${fmtInt(s.declaredMiB)}${s.kvCacheOnly ? ' KV cache + weights' : ''}`;
}

/** The seats' budgets added up: unknown (?) when one is undeclared, never smaller; "+ weights" when one is KV cache only. */
export function declaredTotalText(seats: GpuSeatUse[]): string {
  if (seats.some((s) => s.declaredMiB === null)) return '?';
  const total = fmtInt(seats.reduce((a, s) => a + (s.declaredMiB ?? 0), 0));
  return seats.some((s) => s.kvCacheOnly) ? `${total} + weights` : total;
}
