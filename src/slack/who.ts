// Who and when, as Slack shows them: a person as a mention, a time in each reader's own zone.
import type { Actor } from '../incident/types.ts';
import { esc, fit } from './mrkdwn.ts';
import { utcHourMinute } from '../render/time.ts';

/** `<@U123>` for a Slack person; a terminal person by name. */
export function who(a: Actor): string {
  switch (a.kind) {
    case 'slack':
      return `<@${a.id}>`;
    case 'local':
      return `${fit(a.name, 64)} (terminal)`;
    default:
      return `the bot (${a.kind})`;
  }
}

/** `14:32 UTC`, shown in each reader's own time zone by Slack. */
export function when(iso: string): string {
  const ms = Date.parse(iso);
  if (!Number.isFinite(ms)) return esc(iso);
  const utc = `${utcHourMinute(ms) ?? '?'} UTC`;
  return `<!date^${Math.floor(ms / 1000)}^{date_short_pretty} {time}|${utc}>`;
}
