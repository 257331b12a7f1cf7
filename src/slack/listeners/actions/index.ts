import type { App } from '@slack/bolt';
import { PROBE_AGAIN, START_RUNBOOK } from '../../blocks.ts';
import type { SeatContext } from '../../context.ts';
import { OVERRIDE_APPROVE, OVERRIDE_ASK, STEP_DONE, STEP_EVIDENCE, STEP_SKIP } from '../../incident-blocks.ts';
import { probeAgain } from './probe-again.ts';
import { startRunbook } from './start-runbook.ts';
import { stepButton } from './step-buttons.ts';

export function register(app: App, ctx: SeatContext): void {
  app.action(PROBE_AGAIN, (args) => probeAgain(args, ctx));
  app.action(START_RUNBOOK, (args) => startRunbook(args, ctx));
  for (const id of [STEP_DONE, STEP_SKIP, STEP_EVIDENCE, OVERRIDE_ASK, OVERRIDE_APPROVE]) app.action(id, (args) => stepButton(args, ctx));
}
