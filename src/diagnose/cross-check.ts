// GPU rows read beside the seats' own /health answers: what one probe saw alone is not the conclusion.
// A budget on a card with no process is "not running" only when its seat does not answer; a seat that
// answers there is a question of which GPU it uses; a down seat whose declared budget exceeds the card's
// measured free memory is a fact of the card's row. Structured fields only (status, reason, data).
import type { Fleet } from '../inventory/fleet.ts';
import { renderProvenance } from '../probes/finding.ts';
import { fmtInt } from '../probes/edge/text.ts';
import { NVIDIA, XPU } from '../probes/gpu/vendors.ts';
import type { RunEvent } from '../probes/runner.ts';
import type { Finding, FindingStatus, GpuMemory, GpuSeatUse, Provenance, Reason } from '../probes/types.ts';

/** The findings with GPU rows judged against the seats' answers; a finding left as it was keeps its identity. */
export function crossCheck(fleet: Fleet, findings: Finding[]): Finding[] {
  if (!findings.some((f) => f.probe === 'gpu')) return findings;
  const seats = new Map<string, Finding>();
  for (const f of findings) if (f.probe === 'seat' && f.subject.kind === 'seat') seats.set(`${f.subject.name}@${f.subject.host}`, f);
  const cards = new Map<string, GpuMemory>();
  for (const f of findings) if (f.data.kind === 'gpu') cards.set(`${f.data.gpu.host}#${f.data.gpu.index}`, f.data.gpu);
  return findings.map((f) => {
    if (f.data.kind === 'gpu-seat' && f.reason === 'engine_not_running') return engineRow(f, f.data, seats, cards);
    if (f.data.kind === 'gpu') return cardRow(fleet, f, f.data.gpu, seats);
    return f;
  });
}

const answered = (s: Finding | undefined): boolean => s !== undefined && (s.status === 'up' || s.status === 'degraded');

/** No process on the card where the seat's budget is declared: down when its /health fails, a question when it answers. */
function engineRow(f: Finding, d: Extract<Finding['data'], { kind: 'gpu-seat' }>, seats: Map<string, Finding>, cards: Map<string, GpuMemory>): Finding {
  const seat = seats.get(`${d.seat}@${d.host}`);
  const by = cards.get(`${d.host}#${d.index}`)?.seats.find((s) => s.seat === d.seat)?.declaredBy;
  // Its seat not probed in this run (`--only gpus`): the card's empty process list is all that was
  // measured, and another GPU is not ruled out. Still down (nothing runs where its budget is), said so.
  if (!seat) {
    const detail = `budget declared on ${d.host} GPU${d.index}${by ? ` (${by})` : ''}, but no process holds memory there: its engine is not running on that card; its own /health was not probed in this run, so it may run on another GPU`;
    return amend(f, { status: f.status, reason: 'engine_not_running', detail, provenance: f.provenance });
  }
  if (!answered(seat)) return f;
  const health = seat.data.kind === 'seat' ? seat.data.health.httpStatus : null;
  return amend(f, {
    status: 'degraded',
    reason: 'answers_no_process',
    detail:
      `${d.seat} answers${health === null ? '' : ` /health ${health}`} but no process holds memory on ${d.host} GPU${d.index}, where its budget is declared` +
      `${by ? ` (${by})` : ''}: check which GPU it really uses (CUDA_VISIBLE_DEVICES, the inventory's index)`,
    provenance: merged(f.provenance, seat.provenance),
  });
}

/** A card where a down seat's declared budget exceeds the measured free memory: said on its row, both figures with where they come from. */
function cardRow(fleet: Fleet, f: Finding, g: GpuMemory, seats: Map<string, Finding>): Finding {
  const free = g.freeMiB;
  if (free === null) return f;
  const down = (s: GpuSeatUse): boolean => seats.get(`${s.seat}@${g.host}`)?.status === 'down';
  const hit = g.seats.filter((s) => s.declaredMiB !== null && s.declaredMiB > free && down(s));
  if (hit.length === 0) return f;
  const tool = fleet.hosts.get(g.host)?.host.gpuVendor === 'intel' ? XPU.tool : NVIDIA.tool;
  const said = hit.map((s) => noRoomText(s, free, tool)).join('; ');
  const from = hit.flatMap((s) => {
    const p = seats.get(`${s.seat}@${g.host}`)?.provenance;
    return p ? [p] : [];
  });
  return amend(f, {
    status: f.status === 'up' ? 'degraded' : f.status,
    reason: f.status === 'up' ? 'no_room' : (f.reason ?? 'no_room'),
    detail: `${f.detail} — ${said}`,
    provenance: merged(f.provenance, ...from),
    data: { kind: 'gpu', gpu: { ...g, seats: g.seats.map((s) => (hit.includes(s) ? { ...s, cannotFit: true as const } : s)) } },
  });
}

/** "xpu-chat is down and its declared 18,360 MiB (inventory: gpu-memory-utilization 0.75 × 24,480 MiB) cannot fit the 4,608 MiB free (measured by xpu-smi)" */
export function noRoomText(s: GpuSeatUse, freeMiB: number, tool: string): string {
  return `${s.seat} is down and its declared ${fmtInt(s.declaredMiB ?? 0)} MiB (inventory: ${s.declaredBy}) cannot fit the ${fmtInt(freeMiB)} MiB free (measured by ${tool}): it cannot boot there now`;
}

/** The measurements of a row and of what it was judged beside, from the row's own vantage (a merged
 * report is refused a finding that names none). */
function merged(...ps: Provenance[]): Provenance {
  const via = ps.flatMap((p) => (p.kind === 'measured' ? p.via : []));
  const vantage = ps[0]?.vantage;
  return via.length > 0 ? { kind: 'measured', via, ...(vantage !== undefined ? { vantage } : {}) } : ps[0]!;
}

function amend(f: Finding, c: { status: FindingStatus; reason: Reason; detail: string; provenance: Provenance; data?: Finding['data'] }): Finding {
  return Object.freeze({
    probe: f.probe,
    target: f.target,
    status: c.status,
    reason: c.reason,
    subject: f.subject,
    detail: c.detail,
    measuredBy: renderProvenance(c.provenance),
    provenance: c.provenance,
    observedAt: f.observedAt,
    latencyMs: f.latencyMs,
    ...(f.site !== undefined ? { site: f.site } : {}),
    ...(f.host !== undefined ? { host: f.host } : {}),
    data: c.data ?? f.data,
  });
}

/**
 * A run's events as they stream, GPU rows judged as the report will judge them: a GPU task's rows wait
 * while a seat's /health is still awaited (`seatTasks` of them), then go out cross-checked, so no row a
 * person saw streamed is taken back by the report. `flush` sends what still waits (a seat that never
 * came back: the deadline).
 */
export function crossCheckedStream(fleet: Fleet, seatTasks: number, emit: (e: RunEvent) => void): { onEvent: (e: RunEvent) => void; flush: () => void } {
  let left = seatTasks;
  let lastDone = 0;
  const seatRows: Finding[] = [];
  const held: Extract<RunEvent, { type: 'task' }>[] = [];
  const send = (e: Extract<RunEvent, { type: 'task' }>): void => {
    const judged = crossCheck(fleet, [...seatRows, ...e.findings]).slice(seatRows.length);
    emit({ ...e, findings: judged, done: Math.max(e.done, lastDone) });
  };
  const flush = (): void => {
    for (const e of held.splice(0)) send(e);
  };
  const onEvent = (e: RunEvent): void => {
    if (e.type !== 'task') return emit(e);
    lastDone = Math.max(lastDone, e.done);
    if (e.task.probe === 'seat') {
      for (const f of e.findings) if (f.probe === 'seat') seatRows.push(f);
      left -= 1;
    }
    if (left > 0 && e.findings.some((f) => f.probe === 'gpu')) held.push(e);
    else send(e);
    if (left <= 0) flush();
  };
  return { onEvent, flush };
}
