// Seed 000, 2026-09-04: qwen3-embed answering 500s, blamed on a gateway restart; the real cause is
// vllm-embed OOM-crashing (RestartCount 7) on ana-ml2 GPU1 at 216 MiB free with six tenants, while
// GPU0 holds mog-sec at 55,126 MiB. The drill fleet's own afternoon (SEED_000), with GPU1's six.
import { SEED_000 } from '../litellm.ts';
import type { Scenario } from './types.ts';

const GPU0 = 'GPU-5f1c2a9e-3b7d-4e8a-9c61-0d2e4f6a8b10';
const GPU1 = 'GPU-a83e6d02-71c4-4b95-8f2a-6c9d1e3b5f27';

/** The six tenants of GPU1 add up to its 97,137 MiB used (216 free of 97,887 with the driver's share). */
const ANA_APPS = [
  'gpu_uuid, pid, process_name, used_memory [MiB]',
  `${GPU0}, 48211, /opt/venvs/mog-sec/bin/python3, 55126`,
  `${GPU1}, 50102, /opt/venvs/vllm-embed/bin/python3, 3482`,
  `${GPU1}, 50377, /opt/venvs/rerank/bin/python3, 5310`,
  `${GPU1}, 50419, /opt/venvs/ocr-batch/bin/python3, 40015`,
  `${GPU1}, 50488, /opt/venvs/whisper/bin/python3, 9860`,
  `${GPU1}, 50502, /opt/venvs/tts/bin/python3, 6322`,
  `${GPU1}, 50533, /usr/bin/python3, 32148`,
];

/** What `docker inspect vllm-embed` said that afternoon, trimmed to what the runbook asks. */
function inspect(): string {
  const doc = [
    {
      Name: '/vllm-embed',
      RestartCount: 7,
      State: { Status: 'running', Running: true, Restarting: false, OOMKilled: false, ExitCode: 0, StartedAt: '2026-09-04T15:41:27.118Z' },
      Config: { Image: 'vllm/vllm-openai:v0.10.2', Labels: { 'com.docker.compose.service': 'vllm-embed' } },
      HostConfig: { RestartPolicy: { Name: 'unless-stopped', MaximumRetryCount: 0 } },
    },
  ];
  return `${JSON.stringify(doc, null, 2)}\n`;
}

export const ANA_GPU_OOM: Scenario = {
  id: 'ana-gpu-oom',
  seed: 'seed 000 · 2026-09-04',
  summary: 'qwen3-embed failing: ana-ml2 GPU1 at 216 MiB free with six tenants, vllm-embed RestartCount 7, GPU0 holding mog-sec',
  site: 'ana',
  story: [
    'Afternoon — qwen3-embed answers 500s; a LiteLLM gateway restart 50 minutes earlier got the blame.',
    'vllm-embed has restarted 7 times; gen is to move to ana-ml2 GPU0, "kept free for training".',
  ],
  fleet: SEED_000,
  darkSites: [],
  gpus: { 'ana-ml2.apps.csv': `${ANA_APPS.join('\n')}\n` },
  files: [{ name: 'vllm-embed.inspect.json', what: 'docker inspect', from: 'docker inspect vllm-embed on ana-ml2 (RestartCount)', text: inspect }],
  firstSteps: (path) => [
    ['probe ana', 'what is down, measured: GPUs and their tenants too'],
    ['runbook start gpu-oom-cotenant', 'the runbook the probe proposes'],
    ['walk', `its steps one by one; the restart count is in ${path('vllm-embed.inspect.json')}`],
  ],
};
