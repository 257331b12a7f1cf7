// What each finding means here, in the words of the seed it matches, and what can be done. One
// place, so the terminal and Slack say the same thing. Options are worked from the finding's own
// numbers where they give one (the utilization that fits, vLLM's estimated length).
import type { FieldsByKind, FindingKind, Severity } from './types.ts';

export interface Advice {
  severity: Severity;
  lesson: string | null;
  options: string[];
}

type AdviceFor<K extends FindingKind> = (fields: FieldsByKind[K]) => Advice;

const BOOT_RACE_LESSON =
  'On brutus, vllm-xpu-chat failed engine init with exactly this when all three vllm-xpu instances booted together, and started alone: the KV budget a seat gets at init depends on what its GPU-mates hold at that moment, and whichever starts last loses';

const BOOT_RACE_OPTIONS = [
  'Serial start ordering: Before=/After= between the units so chat measures the card first. Cheap, but a chat restart then blocks embedding and stt',
  'Absolute KV budgets: --kv-cache-memory-bytes per instance, no coupling to what is free at init. It skips profiling, so size it from a measured long prefill, not from vLLM’s "to fully utilize" figure',
  'Chat first only: only chat declares Before= the other two; embedding and stt stay independent of each other',
];

const RUNTIME_OOM_LESSON =
  'With --kv-cache-memory pinned at 16.00 GiB a 155,497-token prefill logged "OOM on device 0 while trying to allocate 488636416 bytes (free: 422117376)" and still completed: nothing failed visibly, one step before a crash. 14.00 GiB re-probed clean';

const ADVICE: { [K in FindingKind]: AdviceFor<K> } = {
  kv_cache_insufficient: (f) => ({
    severity: 'problem',
    lesson: BOOT_RACE_LESSON,
    options: [
      ...BOOT_RACE_OPTIONS,
      `If it fails alone too, it is not a race: lower --max-model-len${f.estimatedMaxModelLen !== null ? ` to at most ${f.estimatedMaxModelLen.toLocaleString('en-US')} (vLLM's estimate)` : ''}, or give the engine a larger budget`,
    ],
  }),
  kv_cache_none: () => ({
    severity: 'problem',
    lesson: `${BOOT_RACE_LESSON}; here nothing at all was left for the KV cache`,
    options: BOOT_RACE_OPTIONS,
  }),
  startup_free_memory: (f) => ({
    severity: 'problem',
    lesson: '--gpu-memory-utilization is a fraction of the card’s total memory and the engine refuses while free < util × total: something else holds the card (GPU0 was "kept free" while mog-sec held 55,126 MiB on it)',
    options: [
      'See what holds the card: seat probe SITE --only gpus (free memory as measured, and the processes on it)',
      f.fitsUtilization !== null && f.fitsUtilization < 0.01
        ? `No utilization fits: ${f.freeGiB} of ${f.totalGiB} GiB was free. Free the card first`
        : f.fitsUtilization !== null
        ? `Lower --gpu-memory-utilization under ${f.fitsUtilization.toFixed(2)} (free ${f.freeGiB} of ${f.totalGiB} GiB), leaving room for runtime workspace on top`
        : 'Lower --gpu-memory-utilization under free ÷ total, leaving room for runtime workspace on top',
      'Or move or stop the co-tenant, and measure free memory again before starting',
    ],
  }),
  allocator_oom: () => ({
    severity: 'problem',
    lesson: RUNTIME_OOM_LESSON,
    options: [
      'Lower the KV budget and re-probe with the longest real prefill (16.00 → 14.00 GiB)',
      '--max-num-batched-tokens bounds the activation peak, not --max-model-len (doubling max_model_len left the profiled peak at 1.65 GiB)',
    ],
  }),
  flashinfer_oom_fallback: () => ({
    severity: 'problem',
    lesson:
      'The gen seat at util 0.41 had a "1,979 MiB margin" against its declared budget, left 1,548 MiB free, and logged 56 FlashInfer autotuner OOM-fallbacks per 3 min (slower kernels, no error); at 0.38 (4,466-7,548 MiB free) zero over 6 min',
    options: [
      'Measure free memory on the card (seat watch gpus HOST), not the margin against --gpu-memory-utilization: the autotuner workspace, CUDA graphs and expandable segments allocate on top of it',
      'Lower the utilization (or move a co-tenant) and count fallbacks again over at least 6 minutes: zero is the bar',
    ],
  }),
  engine_init_failed: () => ({
    severity: 'problem',
    lesson: null,
    options: ['The engine did not start: its cause is logged above this line (a KV-cache or start-up memory error, when one is listed here)'],
  }),
  profile_suggestion: () => ({
    severity: 'note',
    lesson: 'VLLM\'s own "17.46 GiB to fully utilize gpu memory" came from a profile at --max-num-batched-tokens depth and sat 3.5 GiB above what a 150K-token request survived (16.00 GiB OOMed, 14.00 GiB re-probed clean): not a budget to pin as it is',
    options: ['Pin a --kv-cache-memory-bytes only after a probe with the longest real prefill, watching for allocator OOM lines'],
  }),
  profiling_skipped: () => ({
    severity: 'note',
    lesson: '--kv-cache-memory makes vLLM skip memory profiling and ignore --gpu-memory-utilization: the budget is what was typed, and nothing checks it against the card',
    options: ['Re-probe with the longest real prefill and look for allocator OOM lines (16.00 GiB OOMed, 14.00 GiB was clean)'],
  }),
  kv_cache_memory: () => ({ severity: 'info', lesson: null, options: [] }),
  kv_cache_size: () => ({ severity: 'info', lesson: null, options: [] }),
  max_concurrency: (f) =>
    f.concurrency < 1.1
      ? {
          severity: 'note',
          lesson: 'The gen seat at 1.02x concurrency at its 262,144 max-model-len holds exactly one full-context request: short requests still batch, long-context throughput serialises',
          options: ['To reclaim it: a larger KV budget (a co-tenant giving memory back), or a shorter --max-model-len'],
        }
      : { severity: 'info', lesson: null, options: [] },
};

export function adviceFor<K extends FindingKind>(kind: K, fields: FieldsByKind[K]): Advice {
  return (ADVICE[kind] as AdviceFor<K>)(fields);
}

/** The runbook a person starts for a kind, when there is one. */
export const RUNBOOK_FOR: Partial<Record<FindingKind, string>> = {
  kv_cache_insufficient: 'kv-cache-boot-race',
  kv_cache_none: 'kv-cache-boot-race',
  startup_free_memory: 'gpu-oom-cotenant',
  flashinfer_oom_fallback: 'gpu-oom-cotenant',
};
