import type { App, SlackActionMiddlewareArgs } from '@slack/bolt';
import { PROBE_AGAIN, START_RUNBOOK } from '../../blocks.ts';
import type { SeatContext, WebClient } from '../../context.ts';
import { OVERRIDE_APPROVE, OVERRIDE_ASK, STEP_DONE, STEP_EVIDENCE, STEP_SKIP } from '../../incident-blocks.ts';
import { exactly } from '../match.ts';
import { probeAgain } from './probe-again.ts';
import { startRunbook } from './start-runbook.ts';
import { stepButton } from './step-buttons.ts';

type ActionArgs = SlackActionMiddlewareArgs & { client: WebClient };

/** Each button's action id and what answers it. */
const BUTTONS: Record<string, (args: ActionArgs, ctx: SeatContext) => Promise<void>> = {
  [PROBE_AGAIN]: probeAgain,
  [START_RUNBOOK]: startRunbook,
  [STEP_DONE]: stepButton,
  [STEP_SKIP]: stepButton,
  [STEP_EVIDENCE]: stepButton,
  [OVERRIDE_ASK]: stepButton,
  [OVERRIDE_APPROVE]: stepButton,
};

/**
 * One listener for every button: Bolt runs each registered listener's middleware for every request
 * it receives (a slash command too), so one matcher here instead of seven keeps that cost off each ack.
 * An action id not in BUTTONS is not matched, and not acked, as before.
 */
export function register(app: App, ctx: SeatContext): void {
  app.action({ action_id: exactly(Object.keys(BUTTONS)) }, (args) => {
    const id = 'action_id' in args.action ? args.action.action_id : '';
    return BUTTONS[id]!(args as ActionArgs, ctx);
  });
}
