// Allocations that failed at run time. vLLM's own `OOM on device 0 while trying to allocate
// 488636416 bytes (free: 422117376)` (seed 002: logged, and the request still completed), and
// PyTorch's `CUDA out of memory. Tried to allocate 466.00 MiB. GPU 0 has a total capacity of
// 95.59 GiB of which 403.00 MiB is free.` (older: `(GPU 0; 23.69 GiB total capacity; …; 1.20 GiB free; …)`).
import type { Reading } from '../types.ts';
import { bytesOf, NUM } from './read.ts';

const VLLM = /OOM on device (\d+) while trying to allocate/i;
const VLLM_WANT = /while trying to allocate (\d+) bytes/i;
const VLLM_FREE = /\(free:\s*(\d+)\)/i;

const TORCH = /\b(?:CUDA|XPU|HIP) out of memory\b/i;
const UNIT = String.raw`(B|KiB|MiB|GiB|TiB)\b`;
const TORCH_WANT = new RegExp(String.raw`Tried to allocate ${NUM}\s*${UNIT}`, 'i');
const TORCH_DEVICE = /\bGPU (\d+)(?: has a total capacity|;)/i;
const TORCH_TOTAL = [new RegExp(String.raw`total capacity of ${NUM}\s*${UNIT}`, 'i'), new RegExp(String.raw`${NUM}\s*${UNIT} total capacity`, 'i')];
const TORCH_FREE = [new RegExp(String.raw`of which ${NUM}\s*${UNIT} is free`, 'i'), new RegExp(String.raw`;\s*${NUM}\s*${UNIT} free\b`, 'i')];

export function allocatorOom(text: string): Reading | null {
  const v = VLLM.exec(text);
  if (v) {
    const want = VLLM_WANT.exec(text)?.[1];
    const free = VLLM_FREE.exec(text)?.[1];
    const wantBytes = want === undefined ? null : Number(want);
    const freeBytes = free === undefined ? null : Number(free);
    return { kind: 'allocator_oom', fields: { source: 'vllm', device: v[1] ?? null, wantBytes, freeBytes, totalBytes: null }, partial: wantBytes === null || freeBytes === null };
  }
  if (!TORCH.test(text)) return null;
  const want = TORCH_WANT.exec(text);
  const wantBytes = bytesOf(want?.[1], want?.[2]);
  const totalBytes = firstBytes(TORCH_TOTAL, text);
  const freeBytes = firstBytes(TORCH_FREE, text);
  const device = TORCH_DEVICE.exec(text)?.[1] ?? null;
  return { kind: 'allocator_oom', fields: { source: 'torch', device, wantBytes, freeBytes, totalBytes }, partial: wantBytes === null || freeBytes === null };
}

function firstBytes(res: RegExp[], text: string): number | null {
  for (const re of res) {
    const m = re.exec(text);
    if (m) return bytesOf(m[1], m[2]);
  }
  return null;
}
