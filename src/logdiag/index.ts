// `seat diagnose`'s core, for both front ends: vLLM log lines in, findings (kind, numbers, line,
// lesson, options) out. The terminal streams files, stdin and a seat's docker logs through
// diagnoseStream; Slack hands a pasted snippet to diagnoseText.
export { diagnoseLines, diagnoseLineList, diagnoseStream, diagnoseText, exitCodeOf } from './diagnose.ts';
export { describe, renderDiagnosis, type RenderOptions } from './render.ts';
export { RUNBOOK_FOR } from './lessons.ts';
export type * from './types.ts';
