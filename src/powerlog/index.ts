// The power log (seed 002's power.log): read it in constant memory, sum it per sampling instant,
// put it beside the site UPS's rating. The terminal renders it; an incident export or a
// guardrail can take the same summary.
export type { GpuPower, PowerLogErrorCode, PowerLogResult, PowerLogSummary, PowerWindow, Reading, SkippedLine, SummedPower } from './types.ts';
export { summarisePowerLog, summarisePowerLogLines, type SummariseOptions } from './summarise.ts';
export { PowerLogReader, WINDOW_MS } from './reader.ts';
export { chooseUps, compareWithUps, type UpsChoice, type UpsComparison } from './ups.ts';
export { renderPowerLog } from './render.ts';
export { openPowerLog } from './source.ts';
export { PowerLogPush, powerLogFactsOf } from './push.ts';
