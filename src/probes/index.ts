// Every probe kind's planner, by the group a person asks for (`--only`): a probe kind is its folder
// here (its plan.ts) and its line in this table. Beside the probers, as blackbox_exporter keeps its
// prober map; `commands/probe.ts` runs what the table plans.
import type { Fleet } from '../inventory/fleet.ts';
import { planContainerTasks, type ContainerPlanOptions } from './container/plan.ts';
import { planGatewayTasks } from './gateway/plan.ts';
import { planGpuTasks } from './gpu/plan.ts';
import { planPowerTasks } from './power/plan.ts';
import type { ProbeEnv, ProbeGroup, ProbeScope, ProbeTask } from './types.ts';

export type Planner = (fleet: Fleet, scope: ProbeScope, env: ProbeEnv, opts: ContainerPlanOptions) => ProbeTask[];

/** Each group's planners, in the order their tasks are planned. Containers go with the GPUs: both are
 * asked over ssh of the GPU hosts. */
export const PLANNERS: Readonly<Record<ProbeGroup, readonly Planner[]>> = {
  aliases: [planGatewayTasks],
  gpus: [planGpuTasks, planContainerTasks],
  power: [planPowerTasks],
};

/** The tasks of one group's planners, in the table's order. */
export function planGroup(group: ProbeGroup, fleet: Fleet, scope: ProbeScope, env: ProbeEnv, opts: ContainerPlanOptions): ProbeTask[] {
  return PLANNERS[group].flatMap((plan) => plan(fleet, scope, env, opts));
}
