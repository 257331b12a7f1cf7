// Every recogniser, in one table. Each reads one message (a line, or a wrapped message joined)
// and returns what it read, or nothing; several may read the same line (the joined KV figures).
import type { Reading } from '../types.ts';
import { allocatorOom } from './allocator-oom.ts';
import { engineInitFailed } from './engine.ts';
import { kvCacheInsufficient, kvCacheNone } from './kv-cache.ts';
import { kvFigures } from './kv-figures.ts';
import { profileSuggestion, profilingSkipped } from './profile.ts';
import { startupFreeMemory } from './startup-memory.ts';

export { flashinferFallback } from './flashinfer.ts';

type Recogniser = (text: string) => Reading | Reading[] | null;

export const RECOGNISERS: readonly Recogniser[] = [kvCacheInsufficient, kvCacheNone, startupFreeMemory, allocatorOom, engineInitFailed, profileSuggestion, profilingSkipped, kvFigures];

export function recognise(text: string): Reading[] {
  const out: Reading[] = [];
  for (const r of RECOGNISERS) {
    const got = r(text);
    if (Array.isArray(got)) out.push(...got);
    else if (got) out.push(got);
  }
  return out;
}
