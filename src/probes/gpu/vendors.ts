// The GPU query tools, one per vendor: what to ask, how to parse it, and what their exit codes mean.
import type { Failure } from '../edge/remote.ts';
import {
  NVIDIA_APP_FIELDS,
  NVIDIA_GPU_FIELDS,
  XPU_GPU_FIELDS,
  parseNvidiaApps,
  parseNvidiaGpus,
  parseXpuGpus,
  parseXpuProcesses,
  type GpuRow,
  type ParseResult,
  type ProcessRow,
} from './parse.ts';

/** Why a query gave no usable answer, as facts and words. */
export type { Failure };

export interface Vendor {
  tool: 'nvidia-smi' | 'xpu-smi';
  gpuArgs: string[];
  appsArgs: string[];
  parseGpus: (text: string) => ParseResult<GpuRow[]>;
  parseApps: (text: string) => ParseResult<ProcessRow[]>;
  /** What a non-zero exit means, from the tool's documented exit codes. */
  exitMeaning: (code: number, said: string) => Failure | null;
}

const why = (said: string, fallback: string): string => `(${said || fallback})`;

export const NVIDIA: Vendor = {
  tool: 'nvidia-smi',
  gpuArgs: [`--query-gpu=${NVIDIA_GPU_FIELDS}`, '--format=csv,nounits'],
  appsArgs: [`--query-compute-apps=${NVIDIA_APP_FIELDS}`, '--format=csv,nounits'],
  parseGpus: parseNvidiaGpus,
  parseApps: parseNvidiaApps,
  exitMeaning: (code, said) => {
    switch (code) {
      case 2: return { status: 'unknown', reason: 'tool_failed', detail: `nvidia-smi refused the query as a bad argument ${why(said, 'exit 2')}` };
      case 4: return { status: 'unknown', reason: 'no_permission', detail: `no permission to query the GPUs ${why(said, 'nvidia-smi exit 4')}` };
      case 6: return { status: 'down', reason: 'no_gpu', detail: `no GPU found ${why(said, 'nvidia-smi exit 6')}` };
      case 9: return { status: 'down', reason: 'driver_failure', detail: `driver not loaded ${why(said, "NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver")}` };
      case 12: return { status: 'unknown', reason: 'driver_failure', detail: `NVML library missing ${why(said, 'nvidia-smi exit 12')}` };
      case 15: return { status: 'down', reason: 'fallen_off_bus', detail: `GPU has fallen off the bus ${why(said, 'nvidia-smi exit 15')}` };
      // 255 is also what nvidia-smi exits with for an option it does not know (seen on driver
      // 580): that is this tool's version, not the driver, and no reason to touch the driver.
      case 255: return OPTION_UNKNOWN.test(said)
        ? { status: 'unknown', reason: 'tool_failed', detail: `nvidia-smi does not take the probe's query: another version of the tool? ${why(said, 'exit 255')}` }
        : { status: 'unknown', reason: 'driver_failure', detail: `driver error ${why(said, 'nvidia-smi exit 255')}` };
      default: return null;
    }
  },
};

/** nvidia-smi's words for an option it does not know: `ERROR: Option --x is not recognized. Please run 'nvidia-smi -h'.` */
const OPTION_UNKNOWN = /\boption\b.*\bnot recognized\b|run 'nvidia-smi -h'/i;

// Exit codes from intel/xpumanager cli/src/exit_code.h (1.x; 2.0 keeps the CLI's error numbers).
export const XPU: Vendor = {
  tool: 'xpu-smi',
  gpuArgs: [`--query-gpu=${XPU_GPU_FIELDS}`, '--format=csv,nounits'],
  appsArgs: ['ps', '-j'],
  parseGpus: parseXpuGpus,
  parseApps: parseXpuProcesses,
  exitMeaning: (code, said) => {
    switch (code) {
      case 2: return { status: 'unknown', reason: 'tool_failed', detail: `xpu-smi refused the query as a bad argument — XPU Manager before 2.0 has no --query-gpu ${why(said, 'exit 2')}` };
      case 4: return { status: 'down', reason: 'no_gpu', detail: `no XPU found ${why(said, 'xpu-smi exit 4')}` };
      case 18: return { status: 'unknown', reason: 'driver_failure', detail: `XPU Manager not initialized ${why(said, 'xpu-smi exit 18')}` };
      case 39: return { status: 'down', reason: 'driver_failure', detail: `Level Zero initialization failed — driver not loaded? ${why(said, 'xpu-smi exit 39')}` };
      default: return null;
    }
  },
};
