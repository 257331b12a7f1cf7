// Reads the bot's settings from the environment. Tokens never leave this object except to Bolt.
export interface SlackConfig {
  botToken: string;
  mode: { kind: 'socket'; appToken: string } | { kind: 'http'; signingSecret: string; port: number };
  slackApiUrl?: string;
}

export type ConfigResult = { ok: true; value: SlackConfig } | { ok: false; errors: string[] };

export function readSlackConfig(env: NodeJS.ProcessEnv): ConfigResult {
  const errors: string[] = [];
  const bot = env.SLACK_BOT_TOKEN;
  if (!bot) errors.push('SLACK_BOT_TOKEN is not set (the bot token, xoxb-..., from the app’s OAuth & Permissions page)');
  else if (!/^xoxb-[A-Za-z0-9-]{8,}$/.test(bot)) errors.push('SLACK_BOT_TOKEN does not look like a bot token: expected xoxb-...');

  let mode: SlackConfig['mode'] | undefined;
  const appToken = env.SLACK_APP_TOKEN;
  if (appToken) {
    if (!/^xapp-[A-Za-z0-9-]{8,}$/.test(appToken)) errors.push('SLACK_APP_TOKEN does not look like an app-level token: expected xapp-... (with connections:write)');
    else mode = { kind: 'socket', appToken };
  } else {
    const secret = env.SLACK_SIGNING_SECRET;
    const port = env.PORT === undefined ? 3000 : /^\d{1,5}$/.test(env.PORT) ? Number(env.PORT) : NaN;
    if (!secret) errors.push('set SLACK_APP_TOKEN for Socket Mode, or SLACK_SIGNING_SECRET (and PORT) for HTTP mode');
    else if (!/^[A-Za-z0-9]{16,}$/.test(secret)) errors.push('SLACK_SIGNING_SECRET does not look like a signing secret (hex from the app’s Basic Information page)');
    if (!Number.isInteger(port) || port < 0 || port > 65535) errors.push(`PORT: expected a number 0-65535 (0 picks a free port), got ${JSON.stringify(env.PORT)}`);
    if (secret && errors.length === 0) mode = { kind: 'http', signingSecret: secret, port };
  }

  let slackApiUrl: string | undefined;
  if (env.SLACK_API_URL) {
    try {
      const u = new URL(env.SLACK_API_URL);
      if (u.protocol !== 'https:' && u.protocol !== 'http:') throw new Error('protocol');
      slackApiUrl = u.href.endsWith('/') ? u.href : `${u.href}/`;
    } catch {
      errors.push(`SLACK_API_URL: expected a URL like https://slack.com/api/, got ${JSON.stringify(env.SLACK_API_URL)}`);
    }
  }
  if (errors.length > 0 || !bot || !mode) return { ok: false, errors };
  return { ok: true, value: { botToken: bot, mode, ...(slackApiUrl ? { slackApiUrl } : {}) } };
}
