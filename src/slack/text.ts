// Slack's own hostile shapes, named before the shared grammar sees the text: mentions, channel
// links, URLs and the HTML entities Slack sends for <, > and &.
import { MAX_COMMAND_LENGTH, parseCommand, type ParseResult, type SlackCommand } from '../commands/parse.ts';

const SHAPES: [RegExp, string][] = [
  [/<@[UW][A-Z0-9]+(?:\|[^>]*)?>/, 'a user mention'],
  [/<#[CG][A-Z0-9]+(?:\|[^>]*)?>/, 'a channel link'],
  [/<!subteam\^[A-Z0-9]+(?:\|[^>]*)?>/, 'a user group mention'],
  [/<![a-z]+(?:\|[^>]*)?>/, 'a special mention (@here, @channel)'],
  [/<(?:https?|mailto):[^>]*>/, 'a link'],
];

export function parseSlackText(text: string, sites: readonly string[]): ParseResult<SlackCommand> {
  if (text.length > MAX_COMMAND_LENGTH) {
    return { ok: false, error: `command is ${text.length} characters; the most is ${MAX_COMMAND_LENGTH}` };
  }
  for (const [re, what] of SHAPES) {
    const m = re.exec(text);
    if (m) return { ok: false, error: `${what} (${m[0].slice(0, 40)}) is not an argument of /seat` };
  }
  // Slack sends typed <, > and & as entities; phones and macOS turn "--" into an en or em dash.
  const decoded = text
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&amp;/g, '&')
    .replace(/(^|\s)[\u2013\u2014](?=[a-z])/g, '$1--');
  // Only what Slack offers: `/seat check` is told it is for the terminal.
  return parseCommand(decoded, sites, 'slack');
}
