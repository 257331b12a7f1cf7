// Slack API failures turned into a code for the log and a sentence for the person.
export function slackErrorCode(err: unknown): string {
  const e = err as { code?: string; data?: { error?: string }; retryAfter?: number; statusCode?: number };
  if (e?.code === 'slack_webapi_platform_error' && e.data?.error) return e.data.error;
  if (e?.code === 'slack_webapi_rate_limited_error') return `ratelimited (retry after ${e.retryAfter ?? '?'} s)`;
  if (e?.code === 'slack_webapi_http_error') return `http_${e.statusCode ?? 'error'}`;
  // Bolt's respond(): the response_url answered non-2xx (404 once it expired: 30 minutes or 5 uses).
  if (e?.code === 'slack_bolt_respond_error') return `response_url_http_${e.statusCode ?? 'error'}${e.statusCode === 404 ? ' (expired)' : ''}`;
  if (e?.code) return e.code;
  if (err instanceof Error && err.name === 'RespondError') return 'response_url_failed';
  return err instanceof Error ? err.message.split('\n')[0] ?? 'error' : String(err);
}

export function slackAdvice(code: string): string {
  if (code === 'channel_not_found' || code === 'not_in_channel') return 'invite the bot to this channel (/invite @seatbelt) and try again';
  if (code.startsWith('ratelimited')) return 'Slack is rate-limiting the bot; the result comes here instead';
  if (code === 'invalid_auth' || code === 'token_revoked' || code === 'not_authed') return 'the bot token is no longer valid: reinstall the app and update SLACK_BOT_TOKEN';
  if (code === 'missing_scope') return 'the app lacks a scope: recreate it from manifest.yml';
  return 'the result comes here instead';
}
