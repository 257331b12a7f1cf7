import type { App } from '@slack/bolt';
import type { SeatContext } from '../../context.ts';
import { STEP_MODALS, stepView } from './step-views.ts';

export function register(app: App, ctx: SeatContext): void {
  for (const id of STEP_MODALS) app.view({ callback_id: id, type: 'view_submission' }, (args) => stepView(args as Parameters<typeof stepView>[0], ctx));
}
