// Which reported card is which inventory GPU, and which processes are which seat.
import type { HostRef, SeatRef } from '../../inventory/fleet.ts';
import { clean, cut, fmtInt } from '../edge/text.ts';
import type { GpuSeatUse } from '../types.ts';
import type { GpuRow, ProcessRow } from './parse.ts';

export interface Paired {
  index: number;
  row: GpuRow | undefined;
  /** A card the inventory does not list: no seat is attributed to it. */
  extra: boolean;
  target: string;
  note?: string;
}

/** Inventory GPUs first (by UUID where the inventory gives one, else by index), then any extra card. */
export function pairWithInventory(host: HostRef, rows: GpuRow[]): Paired[] {
  const claimed = new Set<GpuRow>();
  const out: Paired[] = [];
  for (const g of host.host.gpus) {
    const byUuid = g.uuid ? rows.find((r) => !claimed.has(r) && r.uuid === g.uuid) : undefined;
    const row = byUuid ?? rows.find((r) => !claimed.has(r) && r.index === g.index);
    if (row) claimed.add(row);
    let note: string | undefined;
    if (byUuid && byUuid.index !== g.index) note = `the tool reports this card as index ${byUuid.index}`;
    else if (!byUuid && row && g.uuid && row.uuid) note = `the inventory expects ${shown(g.uuid)}, the card at this index is ${shown(row.uuid)}`;
    out.push({ index: g.index, row, extra: false, target: `${host.name} GPU${g.index}`, ...(note ? { note } : {}) });
  }
  const taken = new Set(out.map((p) => p.target));
  for (const r of rows) {
    if (claimed.has(r)) continue;
    const plain = `${host.name} GPU${r.index}`;
    out.push({ index: r.index, row: r, extra: true, target: taken.has(plain) ? `${plain} (${r.uuid === null ? 'no UUID' : shown(r.uuid)})` : plain, note: 'not in the inventory' });
  }
  return out.sort((a, b) => a.index - b.index || Number(a.extra) - Number(b.extra));
}

/**
 * Declared: kv-cache-memory-bytes when set (vLLM then ignores the utilization), else util × total.
 * Measured: the GPU's processes whose name holds the seat's `process` string; a seat alone on its
 * card owns every process there. Null — shown as ? with the reason — when nothing can be attributed:
 * a pattern that matches no process is not "0 MiB".
 */
export function seatUse(ref: SeatRef, totalMiB: number | null, onGpu: ProcessRow[] | null, alone: boolean): GpuSeatUse {
  const s = ref.seat;
  let declaredMiB: number | null = null;
  let declaredBy: string;
  const kvBytes = s.kvCacheMemoryBytes;
  if (kvBytes !== undefined) {
    declaredMiB = Math.round(kvBytes / 2 ** 20);
    declaredBy = `kv-cache-memory-bytes ${fmtInt(kvBytes)} (weights not included)`;
  } else if (s.gpuMemoryUtilization !== undefined) {
    declaredMiB = totalMiB === null ? null : Math.round(s.gpuMemoryUtilization * totalMiB);
    declaredBy = `gpu-memory-utilization ${s.gpuMemoryUtilization} × ${totalMiB === null ? '? (total not reported)' : `${fmtInt(totalMiB)} MiB`}`;
  } else {
    declaredBy = `no budget declared (engine ${s.engine})`;
  }
  const use = (measuredMiB: number | null, unmeasuredWhy?: GpuSeatUse['unmeasuredWhy']): GpuSeatUse => ({
    seat: ref.name,
    declaredMiB,
    declaredBy,
    ...(kvBytes !== undefined ? { kvCacheOnly: true as const } : {}),
    measuredMiB,
    ...(measuredMiB === null && unmeasuredWhy ? { unmeasuredWhy } : {}),
  });
  if (onGpu === null) return use(null, 'no_process_list');
  if (onGpu.length === 0) return use(null, 'no_process');
  const mine = alone ? onGpu : s.process ? onGpu.filter((p) => p.name.includes(s.process!)) : null;
  if (mine === null) return use(null, 'no_pattern');
  if (mine.length === 0) return use(null, 'no_match');
  const total = sum(mine);
  return use(total, total === null ? 'not_reported' : undefined);
}

/** A UUID as the tool printed it is no text to show: one clean line, cut. Matching uses it raw. */
function shown(uuid: string): string {
  return cut(clean(uuid), 80);
}

function sum(ps: ProcessRow[]): number | null {
  let total = 0;
  for (const p of ps) {
    if (p.usedMiB === null) return null;
    total += p.usedMiB;
  }
  return total;
}
