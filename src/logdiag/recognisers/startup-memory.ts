// vLLM's start-up refusal when free memory is under utilization × total (v1/worker/utils.py,
// gpu_worker.py): `Free memory on device cuda:0 (7.34/15.49 GiB) on startup is less than desired
// GPU memory utilization (0.8, 12.39 GiB).` Older builds leave the device name out. The INFO line
// that starts `Free memory on device (…) on startup. Desired …` is the profile, not a refusal.
import type { Reading } from '../types.ts';
import { NUM, num } from './read.ts';

const ANCHOR = /on startup is less than desired GPU memory/i;
const DEVICE = /Free memory on device\s+([A-Za-z]+:\d+)\s*\(/i;
const FREE_TOTAL = new RegExp(String.raw`\(\s*${NUM}\s*/\s*${NUM}\s*GiB\)\s*on startup`, 'i');
const UTIL = new RegExp(String.raw`utilization\s*\(\s*(\d*\.?\d+)\s*,\s*${NUM}\s*GiB\)`, 'i');

export function startupFreeMemory(text: string): Reading | null {
  if (!ANCHOR.test(text)) return null;
  const device = DEVICE.exec(text)?.[1] ?? null;
  const freeGiB = num(FREE_TOTAL, text, 1);
  const totalGiB = num(FREE_TOTAL, text, 2);
  const utilization = num(UTIL, text, 1);
  const requestedGiB = num(UTIL, text, 2);
  const fitsUtilization = freeGiB !== null && totalGiB !== null && totalGiB > 0 ? Math.floor((freeGiB / totalGiB) * 100) / 100 : null;
  return {
    kind: 'startup_free_memory',
    fields: { device, freeGiB, totalGiB, utilization, requestedGiB, fitsUtilization },
    partial: freeGiB === null || totalGiB === null || utilization === null || requestedGiB === null,
  };
}
