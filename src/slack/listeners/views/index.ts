import type { App } from '@slack/bolt';
import type { SeatContext } from '../../context.ts';
import { exactly } from '../match.ts';
import { STEP_MODALS, stepView } from './step-views.ts';

/** One listener for the step modals (see actions/index.ts for why one). */
export function register(app: App, ctx: SeatContext): void {
  app.view({ callback_id: exactly(STEP_MODALS), type: 'view_submission' }, (args) => stepView(args as Parameters<typeof stepView>[0], ctx));
}
