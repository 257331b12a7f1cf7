// The seeds as drills: each an incident played against the drill fleet's loopback stand-ins, so the
// real probes, runbooks, guardrails, journal and export run unchanged. `seat drill <id>` starts one.
import { ANA_GPU_OOM } from './ana-gpu-oom.ts';
import { BRUTUS_KV_BOOT } from './brutus-kv-boot.ts';
import { FV_SITE_DARK } from './fv-site-dark.ts';
import { HQ_UPLINK_DOWN } from './hq-uplink-down.ts';
import type { Scenario } from './types.ts';

export const SCENARIOS: readonly Scenario[] = [FV_SITE_DARK, ANA_GPU_OOM, BRUTUS_KV_BOOT, HQ_UPLINK_DOWN];
export const DEFAULT_SCENARIO = FV_SITE_DARK.id;

export function scenarioNamed(id: string): Scenario | undefined {
  return SCENARIOS.find((s) => s.id === id);
}

export { startScenario, type RunningDrill, type StartOptions } from './start.ts';
export type { Scenario, ScenarioFile } from './types.ts';
