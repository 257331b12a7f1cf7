// Whether a KV-cache shortfall in this log can be the boot race at all. The race (seed 004) needs
// the budget to be measured from what is free at init, with GPU-mates holding part of it. Two facts
// in the same log rule it out: the budget was pinned (`--kv-cache-memory`: profiling skipped, the
// utilization ignored), or the card was all but free when the engine measured it (it started alone).
// Then the direct fix comes first, and one line says why the boot-race options do not apply.
// Read from the findings' fields, never their wording.
import type { FindingGroup, LogFinding } from './types.ts';

/** free ÷ total at start-up at or above this: nothing else held the card. */
const ALONE = 0.95;

/** Why the shortfall does not depend on boot order, in words; null when it may. */
export function notBootOrder(groups: readonly FindingGroup[]): string | null {
  for (const g of groups) {
    const f = g.last;
    if (f.kind === 'profiling_skipped') {
      const r = f.fields.reservedGiB;
      return `the KV budget was pinned (${r !== null ? `${r.toFixed(2)} GiB ` : ''}reserved by --kv-cache-memory, profiling skipped): what other engines hold at init does not change it`;
    }
  }
  for (const g of groups) {
    const f = g.last;
    if (f.kind === 'profile_suggestion' && f.fields.freeGiB !== null && f.fields.totalGiB !== null && f.fields.totalGiB > 0 && f.fields.freeGiB / f.fields.totalGiB >= ALONE) {
      return `the card was free at start-up (${f.fields.freeGiB.toFixed(2)} of ${f.fields.totalGiB.toFixed(2)} GiB): nothing else held it when this engine measured it`;
    }
  }
  return null;
}

/** The KV-cache finding with its direct fix first, when the log rules the boot race out. */
export function directFixFirst(f: LogFinding, why: string): LogFinding {
  if (f.kind !== 'kv_cache_insufficient') return f;
  const est = f.fields.estimatedMaxModelLen;
  const direct = `Direct fix: lower --max-model-len${est !== null ? ` to at most ${est.toLocaleString('en-US')} (vLLM's estimate)` : ''}, or give the engine a larger KV budget${f.fields.shortGiB !== null ? ` (${f.fields.shortGiB.toFixed(2)} GiB short)` : ''}`;
  const race = `Not the boot race: ${why}. Start ordering, absolute budgets per instance and chat-first apply only when engines share the card at init`;
  // The seed's boot-race story is not this log's: no lesson before the direct fix.
  return { ...f, lesson: null, options: [direct, race] };
}
