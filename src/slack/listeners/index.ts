// Every listener of the app, one a file, registered folder by folder.
import type { App } from '@slack/bolt';
import type { SeatContext } from '../context.ts';
import * as actions from './actions/index.ts';
import * as commands from './commands/index.ts';
import * as views from './views/index.ts';

export function registerListeners(app: App, ctx: SeatContext): void {
  commands.register(app, ctx);
  actions.register(app, ctx);
  views.register(app, ctx);
}
