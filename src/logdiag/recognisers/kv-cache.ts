// vLLM's engine-init refusal when one request of max_model_len does not fit the KV cache
// (v1/core/kv_cache_utils.py). Wordings met: `model's` and `models's`; a `(` before the needed GiB
// or not; the "estimated maximum model length" sentence present, empty, or missing; and the
// whole message pasted wrapped over three lines (seed 004).
import type { Reading } from '../types.ts';
import { NUM, num, round2 } from './read.ts';

// The opening sentence, or (a wrapped paste's later line) a figure right before "KV cache is needed".
const ANCHOR = /To serve at least one request with the models?'?s max seq len|\d\s*GiB KV cache is needed/i;
const MAX_SEQ_LEN = /max seq len\s*\((\d+)\)/i;
const NEEDED = new RegExp(String.raw`${NUM}\s*GiB KV cache is needed`, 'i');
const AVAILABLE = new RegExp(String.raw`larger than the available(?: KV cache memory)?\s*\(\s*${NUM}\s*GiB\)`, 'i');
const ESTIMATE = /estimated maximum model length is (\d+)\s*\./i;

export function kvCacheInsufficient(text: string): Reading | null {
  if (!ANCHOR.test(text)) return null;
  const maxSeqLen = num(MAX_SEQ_LEN, text);
  const neededGiB = num(NEEDED, text);
  const availableGiB = num(AVAILABLE, text);
  const estimatedMaxModelLen = num(ESTIMATE, text);
  const shortGiB = neededGiB !== null && availableGiB !== null ? round2(neededGiB - availableGiB) : null;
  return {
    kind: 'kv_cache_insufficient',
    fields: { maxSeqLen, neededGiB, availableGiB, shortGiB, estimatedMaxModelLen },
    partial: maxSeqLen === null || neededGiB === null || availableGiB === null,
  };
}

export function kvCacheNone(text: string): Reading | null {
  if (!/No available memory for the cache blocks/i.test(text)) return null;
  return { kind: 'kv_cache_none', fields: {}, partial: false };
}
