// The power probe lives in power/: plan (tasks, out-of-band), ups, icmp, tcp.
export { planPowerTasks } from './power/plan.ts';
export { judgeUps } from './power/ups.ts';
