// A ProbeEnv for probe tests: every side effect a real default, the clock fixed.
import { createReaper } from '../../src/probes/edge/exec.ts';
import type { ProbeEnv } from '../../src/probes/types.ts';

export function testProbeEnv(o: Partial<ProbeEnv> & Pick<ProbeEnv, 'env'>): ProbeEnv {
  return {
    fetch,
    now: () => performance.now(),
    clock: () => new Date('2026-12-03T03:00:00.000Z'),
    paid: false,
    timeoutMs: 2000,
    marginFloorMiB: 4096,
    reaper: createReaper(),
    maxBodyBytes: 4 * 1024 * 1024,
    maxOutputBytes: 4 * 1024 * 1024,
    ...o,
  };
}
