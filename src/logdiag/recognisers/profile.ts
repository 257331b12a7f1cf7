// vLLM's memory-profile advice after start-up (gpu_worker.py): `Replace gpu_memory_utilization
// config with `--kv-cache-memory=N` (X GiB) to fit into requested memory, or `--kv-cache-memory=M`
// (Y GiB) to fully utilize gpu memory.` (older builds only the second), and the line a pinned
// budget logs instead: `Reserved 14.00 GiB for KV cache as specified by kv_cache_memory_bytes
// config and skipped memory profiling. This does not respect the gpu_memory_utilization config.`
import type { Reading } from '../types.ts';
import { NUM, num } from './read.ts';

const ANCHOR = /to fully utilize gpu memory|to fit into requested memory/i;
const FIT = new RegExp(String.raw`--kv-cache-memory(?:-bytes)?=(\d+)\`?\s*\(\s*${NUM}\s*GiB\)\s*to fit into requested memory`, 'i');
const FULL = new RegExp(String.raw`--kv-cache-memory(?:-bytes)?=(\d+)\`?\s*\(\s*${NUM}\s*GiB\)\s*to fully utilize`, 'i');
const FULL_GIB = new RegExp(String.raw`${NUM}\s*GiB\)?\s*to fully utilize gpu memory`, 'i');
const CURRENT = new RegExp(String.raw`Current kv cache memory in use is ${NUM}\s*GiB`, 'i');
const FREE_TOTAL = new RegExp(String.raw`Free memory on device[^(]{0,20}\(\s*${NUM}\s*/\s*${NUM}\s*GiB\)\s*on startup\.`, 'i');
const UTIL = /Desired GPU memory utilization is\s*\(\s*(\d*\.?\d+)\s*,/i;
const RESERVED = new RegExp(String.raw`Reserved ${NUM}\s*GiB for KV cache`, 'i');

export function profileSuggestion(text: string): Reading | null {
  if (!ANCHOR.test(text)) return null;
  const fit = FIT.exec(text);
  const full = FULL.exec(text);
  const fullGiB = full?.[2] !== undefined ? Number(full[2]) : num(FULL_GIB, text);
  return {
    kind: 'profile_suggestion',
    fields: {
      fitBytes: fit?.[1] !== undefined ? Number(fit[1]) : null,
      fitGiB: fit?.[2] !== undefined ? Number(fit[2]) : null,
      fullBytes: full?.[1] !== undefined ? Number(full[1]) : null,
      fullGiB,
      currentGiB: num(CURRENT, text),
      freeGiB: num(FREE_TOTAL, text, 1),
      totalGiB: num(FREE_TOTAL, text, 2),
      utilization: num(UTIL, text),
    },
    partial: fullGiB === null && fit === null,
  };
}

export function profilingSkipped(text: string): Reading | null {
  if (!/skipped memory profiling/i.test(text)) return null;
  return { kind: 'profiling_skipped', fields: { reservedGiB: num(RESERVED, text) }, partial: false };
}
