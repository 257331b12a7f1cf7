// The shared usage text as Slack shows it: `/seat …`, only what Slack offers (the grammar's own
// per-front-end usage), and one command's help for `/seat help <command>`.
import { helpFor, usage } from '../commands/parse.ts';

export const SLACK_USAGE = usage('slack');

/** `/seat help step`: the arguments and flags of each command it names; undefined for no command. */
export function slackHelp(topic: string): string | undefined {
  return helpFor(topic, 'slack')?.replace(/\n\s*-h, --help\s+this help/g, '');
}
