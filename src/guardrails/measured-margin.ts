// Seed 000: a seat is sized on free memory measured over a window: a 1,979 MiB margin on declared util × total fell back to slow kernels.
import type { Guardrail, GuardContext } from '../incident/types.ts';
import { fmtInt } from '../probes/edge/text.ts';
import type { Finding } from '../probes/types.ts';
import { acts } from './facts.ts';

/** The window measurements are taken from, and how many distinct probes it needs. */
export const MARGIN_WINDOW_MS = 10 * 60_000;
export const MARGIN_SAMPLES = 2;

const WHY = 'a seat is sized on free memory measured over a window, not on declared util × total: a declared budget is not a measurement, and the runtime allocates on top of it';

interface Sample {
  at: string;
  /** Free memory, plus what the seat itself measurably holds on that card (a resize gives it back first). */
  availableMiB: number;
}

/** The distinct probes of one GPU within the window, each with what the seat could use there. */
export function gpuSamples(findings: readonly Finding[], host: string, index: number, seat: string, now: Date): Sample[] {
  const byTime = new Map<string, number>();
  for (const f of findings) {
    if (f.subject.kind !== 'gpu' || f.subject.host !== host || f.subject.index !== index || f.data.kind !== 'gpu') continue;
    const free = f.data.gpu.freeMiB;
    const age = now.getTime() - Date.parse(f.observedAt);
    if (free === null || !Number.isFinite(free) || !(age <= MARGIN_WINDOW_MS)) continue;
    const own = f.data.gpu.seats.find((s) => s.seat === seat)?.measuredMiB ?? 0;
    const available = free + own;
    const seen = byTime.get(f.observedAt);
    byTime.set(f.observedAt, seen === undefined ? available : Math.min(seen, available));
  }
  return [...byTime].map(([at, availableMiB]) => ({ at, availableMiB }));
}

export const measuredMargin: Guardrail<'measured-margin'> = {
  id: 'measured-margin',
  lesson: 'a seat move or resize is judged on measured free memory over a window, not on declared util × total',
  override: true,
  applies: (step, input) => acts(step, input, 'seat-move') || acts(step, input, 'seat-resize'),
  check(ctx) {
    const { input, fleet } = ctx;
    const move = acts(ctx.step, input, 'seat-move');
    // A resize stays where the seat is: its host and (single) GPU come from the inventory when not given.
    const ref = input.seat !== undefined ? fleet.seats.get(input.seat) : undefined;
    const host = input.host ?? (move ? undefined : ref?.host.name);
    const gpu = input.gpu ?? (!move && ref?.seat.gpus.length === 1 ? ref.seat.gpus[0] : undefined);
    const want = input.wantMiB;
    const missing = [
      ...(input.seat === undefined ? ['the seat'] : []),
      ...(host === undefined ? ['the host'] : []),
      ...(gpu === undefined ? ['the GPU'] : []),
      ...(typeof want !== 'number' || !Number.isFinite(want) || want <= 0 ? ['what it will take (wantMiB)'] : []),
    ];
    if (input.seat === undefined || host === undefined || gpu === undefined || typeof want !== 'number' || missing.length > 0) {
      return {
        ok: false,
        refused: `${move ? 'moving' : 'resizing'} ${input.seat !== undefined ? `seat ${input.seat}` : 'a seat'} without ${missing.join(', ')}`,
        why: WHY,
        instead: 'give the seat, the host and GPU it will run on, and the MiB it will take, so the margin can be judged on measured free memory',
        waitsFor: missing.join(', '),
      };
    }
    return judge(ctx, { move, seat: input.seat, host, gpu, want });
  },
};

function judge(ctx: GuardContext, m: { move: boolean; seat: string; host: string; gpu: number; want: number }) {
  const floor = ctx.fleet.inventory.settings.marginFloorMiB;
  const card = `${m.host} GPU${m.gpu}`;
  const what = `${m.move ? 'moving' : 'resizing'} seat ${m.seat} ${m.move ? 'to' : 'on'} ${card} (wants ${fmtInt(m.want)} MiB)`;
  const samples = gpuSamples(ctx.findings, m.host, m.gpu, m.seat, ctx.now);
  const minAvailable = Math.min(...samples.map((s) => s.availableMiB));
  const margin = minAvailable - m.want;
  if (samples.length < MARGIN_SAMPLES) {
    const one = samples.length === 1 ? `one measurement (it would leave ${fmtInt(margin)} MiB, one reading is not a window)` : 'no measurement';
    return {
      ok: false as const,
      refused: `${what} on ${one} of its free memory in the last 10 minutes`,
      why: WHY,
      instead: `probe ${m.host}'s GPUs again a few minutes apart and size against the smallest free figure; declared util × total is not a measurement`,
      waitsFor: `two GPU probes of ${m.host} GPU${m.gpu} within 10 minutes`,
    };
  }
  if (margin >= floor) return { ok: true as const };
  const most = minAvailable - floor;
  return {
    ok: false as const,
    refused: `${what}: margin ${fmtInt(margin)} MiB (the least free measured over ${samples.length} probes in 10 minutes, ${fmtInt(minAvailable)} MiB, less ${fmtInt(m.want)}), under the ${fmtInt(floor)} MiB floor`,
    why: WHY,
    instead:
      most > 0
        ? `ask for at most ${fmtInt(most)} MiB (a lower gpu-memory-utilization), or pick a card with more measured free memory; then count the OOM fallbacks before and after`
        : `pick a card with more measured free memory: ${card} cannot hold the floor of ${fmtInt(floor)} MiB with any budget`,
  };
}
