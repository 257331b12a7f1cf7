// The GPU probe lives in gpu/: plan (tasks, exec, failures), vendors, parse, pairing, findings.
export { planGpuTasks } from './gpu/plan.ts';
export { declaredText, declaredTotalText } from './gpu/findings.ts';
