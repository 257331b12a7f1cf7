// The start-up figures: `Available KV cache memory: 14.00 GiB`, `GPU KV cache size: 560,654 tokens`,
// `Maximum concurrency for 262,144 tokens per request: 2.14x` (newer builds put the last two on one
// line, joined by ", "). Not the periodic `GPU KV cache usage: 1.0%`.
import type { Reading } from '../types.ts';
import { groupedInt, NUM, num } from './read.ts';

const MEMORY = new RegExp(String.raw`Available KV cache memory:\s*${NUM}\s*GiB`, 'i');
const SIZE = /GPU KV cache size:\s*([\d,]+) tokens/i;
const CONCURRENCY = new RegExp(String.raw`Maximum concurrency for ([\d,]+) tokens per request:\s*${NUM}x`, 'i');

export function kvFigures(text: string): Reading[] {
  if (!/KV cache|concurrency/i.test(text)) return [];
  const out: Reading[] = [];
  const availableGiB = num(MEMORY, text);
  if (availableGiB !== null) out.push({ kind: 'kv_cache_memory', fields: { availableGiB }, partial: false });
  const tokens = groupedInt(SIZE.exec(text)?.[1]);
  if (tokens !== null) out.push({ kind: 'kv_cache_size', fields: { tokens }, partial: false });
  const c = CONCURRENCY.exec(text);
  const tokensPerRequest = groupedInt(c?.[1]);
  const concurrency = c?.[2] === undefined ? null : Number(c[2]);
  if (tokensPerRequest !== null && concurrency !== null) out.push({ kind: 'max_concurrency', fields: { tokensPerRequest, concurrency }, partial: false });
  return out;
}
