// Declared budgets of the seats sharing one card, added up from the inventory alone (seed 000's static
// half: two seats at 0.43 + 0.41 of one card). vLLM's --gpu-memory-utilization is a fraction of the
// card's total memory, so fractions add; a KV-cache budget is bytes on top of its weights and is shown
// beside the sum, not in it. The card's size is not in the inventory: `seat probe` measures it.
import type { Inventory } from './schema.ts';

export interface CardBudget {
  host: string;
  index: number;
  seats: { seat: string; fraction: number | null; kvCacheBytes: number | null }[];
  /** The declared fractions added up; null when no seat on the card declares one. */
  fractionSum: number | null;
  /** Over the whole card: not every seat on it can take what it is told it may. */
  over: boolean;
}

/** Every card at least two seats share, in inventory order. */
export function sharedCards(inv: Inventory): CardBudget[] {
  const cards = new Map<string, CardBudget>();
  for (const [seat, s] of Object.entries(inv.seats)) {
    for (const index of new Set(s.gpus)) {
      const key = `${s.host}\u0000${index}`;
      const card = cards.get(key) ?? { host: s.host, index, seats: [], fractionSum: null, over: false };
      const kv = s.kvCacheMemoryBytes ?? null;
      card.seats.push({ seat, fraction: kv === null ? (s.gpuMemoryUtilization ?? null) : null, kvCacheBytes: kv });
      cards.set(key, card);
    }
  }
  return [...cards.values()]
    .filter((c) => c.seats.length > 1)
    .map((c) => {
      const fractions = c.seats.flatMap((s) => (s.fraction === null ? [] : [s.fraction]));
      // In hundredths, as the inventory writes them: 0.43 + 0.41 is 0.84, not 0.8399999.
      const sum = fractions.length === 0 ? null : Math.round(fractions.reduce((a, b) => a + b, 0) * 1e6) / 1e6;
      return { ...c, fractionSum: sum, over: sum !== null && sum > 1 };
    });
}

/** "gen 0.43 + coder 0.41 = 0.84 of the card's total memory" (and any KV-cache budget beside it). */
export function cardBudgetText(c: CardBudget): string {
  const parts = c.seats.map((s) => `${s.seat} ${s.fraction ?? (s.kvCacheBytes !== null ? `KV cache ${Math.round(s.kvCacheBytes / 2 ** 20).toLocaleString('en-US')} MiB + weights` : 'not declared')}`);
  const sum = c.fractionSum === null ? 'no fraction declared' : `${c.fractionSum} of the card's total memory`;
  return `${parts.join(' + ')} = ${sum}`;
}
