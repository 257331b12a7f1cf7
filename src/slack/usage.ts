// The shared usage text as Slack shows it: `/seat …`, without what only the terminal offers.
import { USAGE } from '../commands/parse.ts';

export const SLACK_USAGE = USAGE.split('\n')
  .filter((l) => !l.includes('terminal only'))
  .join('\n')
  .replace(' [--json]', '')
  .replace(/\bseat /g, '/seat ');
