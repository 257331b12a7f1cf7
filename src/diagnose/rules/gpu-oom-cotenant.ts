// A GPU under its free-memory floor: measure the seats on it before moving or resizing one.
import type { Rule } from './types.ts';

export const gpuOomCotenant: Rule<'gpu-oom-cotenant'> = (facts) => {
  const under = facts.gpus.underFloor;
  return under.length > 0 ? { rule: 'gpu-oom-cotenant', runbook: 'gpu-oom-cotenant', sites: [...new Set(under.flatMap((g) => (g.site ? [g.site] : [])))] } : null;
};
