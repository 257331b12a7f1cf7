// Seed 004: brutus cold-booted, its three vllm-xpu instances started together on the one Arc Pro B60,
// and vllm-xpu-chat lost the race: engine init refused on the KV-cache ValueError. The seat is down;
// its log is in the drill's folder for `seat diagnose`.
import type { Scenario } from './types.ts';

export const KV_VALUE_ERROR =
  "ValueError: To serve at least one request with the model's max seq len (131072), 3.36 GiB KV cache is needed, which is larger than the available KV cache memory (2.13 GiB). Based on the available memory, the estimated maximum model length is 46528.";

/** `journalctl -u vllm-xpu-chat` after the cold boot: engine init and its failure, as vLLM logs them. */
export function chatLog(): string {
  const t = (s: number): string => `09-20 07:${String(41 + Math.floor(s / 60)).padStart(2, '0')}:${String(s % 60).padStart(2, '0')}`;
  return [
    `INFO ${t(2)} [__init__.py:241] Automatically detected platform xpu.`,
    `INFO ${t(5)} [api_server.py:1896] vLLM API server version 0.11.0`,
    `INFO ${t(5)} [utils.py:328] non-default args: {'model': '/models/chat', 'port': 8040, 'max_model_len': 131072, 'gpu_memory_utilization': 0.75, 'max_num_seqs': 3}`,
    `INFO ${t(9)} [model.py:547] Resolved architecture: Qwen3ForCausalLM`,
    `INFO ${t(9)} [model.py:1510] Using max model len 131072`,
    `INFO ${t(14)} [core.py:644] Waiting for init message from front-end.`,
    `INFO ${t(21)} [xpu_model_runner.py:2602] Model loading took 12.4530 GiB and 6.918 seconds`,
    `INFO ${t(33)} [xpu_worker.py:124] Memory profiling takes 10.62 seconds. Total non-torch memory: 0.71 GiB, torch peak memory increase: 1.24 GiB, KV cache memory: 2.13 GiB`,
    `ERROR ${t(33)} [core.py:708] EngineCore failed to start.`,
    `ERROR ${t(33)} [core.py:708] Traceback (most recent call last):`,
    `ERROR ${t(33)} [core.py:708]   File "/opt/venv/lib/python3.12/site-packages/vllm/v1/engine/core.py", line 699, in run_engine_core`,
    `ERROR ${t(33)} [core.py:708]     engine_core = EngineCoreProc(*args, **kwargs)`,
    `ERROR ${t(33)} [core.py:708]   File "/opt/venv/lib/python3.12/site-packages/vllm/v1/core/kv_cache_utils.py", line 689, in check_enough_kv_cache_memory`,
    `ERROR ${t(33)} [core.py:708]     raise ValueError(`,
    `ERROR ${t(33)} [core.py:708] ${KV_VALUE_ERROR} Try increasing \`gpu_memory_utilization\` or decreasing \`max_model_len\` when initializing the engine.`,
    `RuntimeError: Engine core initialization failed. See root cause above. Failed core proc(s): {}`,
    '',
  ].join('\n');
}

/** Engine init fails, the process exits 1, and docker starts it again: a crash loop, never healthy. */
const CHAT_RESTARTING = [
  {
    Name: '/vllm-xpu-chat',
    RestartCount: 4,
    State: { Status: 'restarting', Running: true, Paused: false, Restarting: true, OOMKilled: false, Dead: false, Pid: 0, ExitCode: 1, Error: '', StartedAt: '2026-09-20T07:42:36.000000000Z', FinishedAt: '2026-09-20T07:43:09.000000000Z' },
    HostConfig: { NetworkMode: 'host' },
    NetworkSettings: { Ports: {} },
  },
];

export const BRUTUS_KV_BOOT: Scenario = {
  id: 'brutus-kv-boot',
  seed: 'seed 004',
  summary: 'brutus cold-booted three vllm-xpu instances on one device: the chat seat failed engine init on a KV-cache ValueError',
  site: 'irv',
  story: [
    'After a reboot — brutus (irv) started vllm-xpu-chat, -embedding and -stt together on its one Arc Pro B60,',
    'and the chat seat does not answer. Its log is in the drill folder.',
  ],
  fleet: { seatsDown: ['xpu-chat'] },
  darkSites: [],
  gpus: {},
  containers: { brutus: { 'vllm-xpu-chat': `${JSON.stringify(CHAT_RESTARTING)}\n` } },
  files: [{ name: 'vllm-xpu-chat.log', what: 'vLLM log', from: 'journalctl -u vllm-xpu-chat on brutus, after the cold boot', text: chatLog }],
  firstSteps: (path) => [
    ['probe irv', 'what is down, measured: the three instances on brutus GPU0'],
    [`diagnose ${path('vllm-xpu-chat.log')}`, 'what the chat seat said when it failed'],
    ['runbook start kv-cache-boot-race', 'the runbook for that error'],
    ['walk', 'its steps one by one'],
  ],
};
