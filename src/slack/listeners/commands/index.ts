import type { App } from '@slack/bolt';
import type { SeatContext } from '../../context.ts';
import { seatCommand } from './seat.ts';

export function register(app: App, ctx: SeatContext): void {
  app.command('/seat', (args) => seatCommand(args, ctx));
}
