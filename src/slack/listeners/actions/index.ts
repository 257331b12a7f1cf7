import type { App } from '@slack/bolt';
import { PROBE_AGAIN } from '../../blocks.ts';
import type { SeatContext } from '../../context.ts';
import { probeAgain } from './probe-again.ts';

export function register(app: App, ctx: SeatContext): void {
  app.action(PROBE_AGAIN, (args) => probeAgain(args, ctx));
}
