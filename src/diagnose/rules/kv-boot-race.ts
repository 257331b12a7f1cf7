// A seat is down and its declared budget does not fit the measured free memory of its card: it cannot
// boot there now (seed 004: its GPU-mates took the memory first). The KV-cache ValueError that names
// the race is in the seat's log, which a probe does not read: the proposal points at it.
import type { Rule } from './types.ts';

export const kvBootRace: Rule<'kv-cache-boot-race'> = (facts) => {
  const hit = facts.gpus.noRoom;
  if (hit.length === 0) return null;
  return {
    rule: 'kv-cache-boot-race',
    runbook: 'kv-cache-boot-race',
    sites: [...new Set(hit.flatMap((s) => (s.site ? [s.site] : [])))],
    logsOf: [...new Set(hit.map((s) => s.seat))],
  };
};
