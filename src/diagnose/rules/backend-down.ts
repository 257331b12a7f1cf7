// The gateway answers but a backend does not serve: its /health fails, or it passes while requests
// fail (healthy is not serving), or its engine holds no memory at all.
import type { Rule } from './types.ts';

export const backendDown: Rule<'backend-down'> = (facts) => {
  const failing = facts.aliases.failing.filter((a) => a.reason === 'backend_down' || a.reason === 'backend_failing');
  const engines = facts.gpus.enginesNotRunning;
  if (failing.length === 0 && engines.length === 0) return null;
  const sites = [...failing.map((a) => a.site), ...engines.map((e) => e.site)].filter((s): s is string => s !== null);
  return { rule: 'backend-down', runbook: 'backend-down', sites: [...new Set(sites)] };
};
