// The Bolt app: thin listeners that parse, call the core, render. Every side effect is an option.
import bolt from '@slack/bolt';
import type { App as BoltApp, Logger, RespondFn, webApi } from '@slack/bolt';
import type { AddressInfo } from 'node:net';
import { z } from 'zod';
import { USAGE } from '../commands/parse.ts';
import { planProbe, runProbe, type ProbeDeps, type ProbeRequest } from '../commands/probe.ts';
import type { Fleet } from '../inventory/fleet.ts';
import { PROBE_GROUPS, type Finding } from '../probes/types.ts';
import { renderReport as renderText } from '../cli/render.ts';
import { channelAllowed, userAllowed } from './authz.ts';
import { ATTACHED_NOTE_START, PROBE_AGAIN, headlineText, renderProgress, renderReport, renderVerdictOnly, type Rendered } from './blocks.ts';
import type { SlackConfig } from './config.ts';
import { slackAdvice, slackErrorCode } from './errors.ts';
import { parseSlackText } from './text.ts';
import { throttle } from './throttle.ts';

const { App, LogLevel } = bolt;
type WebClient = webApi.WebClient;

export const SLACK_USAGE = USAGE.split('\n')
  .filter((l) => !l.includes('terminal only'))
  .join('\n')
  .replace(' [--json]', '')
  .replace(/\bseat /g, '/seat ');

export interface SeatAppOptions {
  fleet: Fleet;
  config: SlackConfig;
  probeDeps?: ProbeDeps;
  logger?: Logger;
  /** Milliseconds between progress updates of one message (Slack allows about one a second). */
  updateIntervalMs?: number;
  /** Skip auth.test at start (tests whose Web API stand-in does not need it). */
  tokenVerification?: boolean;
}

export interface SeatApp {
  app: BoltApp;
  /** Starts the app; in HTTP mode resolves with the port it listens on (PORT=0 picks a free one). */
  start(): Promise<number | undefined>;
  stop(): Promise<void>;
  /** Resolves when every probe started so far has posted its final report (tests, shutdown). */
  idle(): Promise<void>;
}

/** Errors that mean Slack would not take these blocks, whatever we retry. */
const BLOCKS_REFUSED = new Set(['invalid_blocks', 'invalid_blocks_format', 'msg_too_long', 'too_many_blocks']);

const ProbeAgainValue = z.strictObject({
  site: z.string(),
  only: z.array(z.enum(PROBE_GROUPS as unknown as ['aliases', 'gpus', 'power'])).min(1),
  timeoutMs: z.number().int().min(50).max(120_000).nullable(),
  paid: z.boolean(),
});

export function createSeatApp(opts: SeatAppOptions): SeatApp {
  const { fleet, config } = opts;
  const inv = fleet.inventory;
  const interval = opts.updateIntervalMs ?? 1000;
  const clientOptions = {
    ...(config.slackApiUrl ? { slackApiUrl: config.slackApiUrl } : {}),
    // A rate-limited progress update is skipped, not waited on for minutes.
    rejectRateLimitedCalls: true,
    retryConfig: { retries: 2, factor: 1, minTimeout: 100, maxTimeout: 500 },
  };
  const common = {
    token: config.botToken,
    clientOptions,
    logLevel: LogLevel.INFO,
    ...(opts.logger ? { logger: opts.logger } : {}),
    tokenVerificationEnabled: opts.tokenVerification ?? true,
    // auth.test runs in start(), where a bad token becomes a clear error instead of an unhandled rejection.
    deferInitialization: true,
  };
  const app =
    config.mode.kind === 'socket'
      ? new App({ ...common, appToken: config.mode.appToken, socketMode: true })
      : new App({ ...common, signingSecret: config.mode.signingSecret, port: config.mode.port });
  const log = opts.logger ?? app.logger;

  const running = new Set<Promise<void>>();
  const busyMessages = new Set<string>();
  const track = (p: Promise<void>): void => {
    const done = p.catch((err: unknown) => log.error(`probe flow failed: ${slackErrorCode(err)}`)).finally(() => running.delete(done));
    running.add(done);
  };
  const groupCache = new Map<string, { at: number; members: string[] }>();
  const groupMembers = async (client: WebClient, group: string): Promise<string[]> => {
    const hit = groupCache.get(group);
    if (hit && Date.now() - hit.at < 60_000) return hit.members;
    let members: string[];
    try {
      members = (await client.usergroups.users.list({ usergroup: group })).users ?? [];
    } catch (err) {
      log.warn(`usergroups.users.list ${group} failed: ${slackErrorCode(err)}`);
      throw err;
    }
    groupCache.set(group, { at: Date.now(), members });
    return members;
  };

  /** Runs one probe into a channel message, updating it as findings arrive. */
  async function probeIntoMessage(args: {
    client: WebClient;
    channel: string;
    ts: string | undefined;
    req: ProbeRequest;
    askedBy: string;
    respond: RespondFn | undefined;
  }): Promise<void> {
    const { client, channel, req, askedBy, respond } = args;
    let ts = args.ts;
    const tell = async (text: string): Promise<void> => {
      if (!respond) return;
      try {
        await respond({ response_type: 'ephemeral', replace_original: false, text });
      } catch (err) {
        log.warn(`respond failed: ${slackErrorCode(err)}`);
      }
    };
    const total = planProbe(fleet, req, opts.probeDeps).tasks.length;
    const first = renderProgress(req.site, 0, total, [], askedBy);
    try {
      if (ts) await client.chat.update({ channel, ts, text: first.text, blocks: first.blocks });
      else ts = (await client.chat.postMessage({ channel, text: first.text, blocks: first.blocks })).ts;
    } catch (err) {
      const code = slackErrorCode(err);
      log.warn(`chat.${ts ? 'update' : 'postMessage'} in ${channel} failed: ${code}`);
      await tell(`:warning: could not post in this channel (${code}): ${slackAdvice(code)}.`);
      if (!ts || !respond || code === 'message_not_found') ts = undefined;
    }

    /** chat.update that forgets a message Slack no longer has, so later updates do not fail again. */
    const update = async (what: string, view: { text: string; blocks: unknown[] }): Promise<boolean> => {
      if (!ts) return false;
      try {
        await client.chat.update({ channel, ts, text: view.text, blocks: view.blocks as never });
        return true;
      } catch (err) {
        const code = slackErrorCode(err);
        log.warn(`chat.update (${what}) failed: ${code}`);
        if (code === 'message_not_found' || code === 'channel_not_found') ts = undefined;
        throw err;
      }
    };

    const findings: Finding[] = [];
    const progress = throttle<{ done: number; total: number }>(async ({ done, total }) => {
      await update('progress', renderProgress(req.site, done, total, findings, askedBy)).catch(() => false);
    }, interval);

    let report;
    let view;
    try {
      report = await runProbe(fleet, req, {
        ...opts.probeDeps,
        onEvent: (e) => {
          if (e.type === 'task') findings.push(...e.findings);
          // "0 of N" is what the message already says: only real progress is worth an update.
          if (e.type !== 'start') progress.push({ done: e.done, total: e.total });
        },
      });
      await progress.flush();
      view = renderReport(report, req, askedBy);
    } catch (err) {
      await progress.flush();
      const why = err instanceof Error ? err.message.split('\n')[0] : String(err);
      log.error(`probe of ${req.site} failed: ${why}`);
      const text = `:x: the probe of ${req.site} could not finish (${why}); run \`seat probe ${req.site}\` in a terminal`;
      const posted = await update('failure', { text, blocks: [{ type: 'section', text: { type: 'mrkdwn', text } }] }).catch(() => false);
      if (!posted) await tell(text);
      return;
    }

    // The final report must land: a rate-limited update waits out Slack's Retry-After once.
    let failure: string | null = null;
    try {
      await update('final report', view);
    } catch (err) {
      failure = slackErrorCode(err);
      const wait = (err as { retryAfter?: number }).retryAfter;
      if (ts && typeof wait === 'number') {
        await new Promise((r) => setTimeout(r, Math.min(wait, 30) * 1000));
        failure = await update('final report, retried', view).then(
          () => null,
          (e: unknown) => slackErrorCode(e),
        );
      } else if (ts && BLOCKS_REFUSED.has(failure)) {
        // Slack refused the blocks themselves: post the verdict alone and attach everything.
        view = renderVerdictOnly(report, req, askedBy);
        failure = await update('final report, verdict only', view).then(
          () => null,
          (e: unknown) => slackErrorCode(e),
        );
      }
    }
    if (failure !== null || !ts) {
      // The channel message must not stay on "probing…": a plain-text update with the verdict
      // (no blocks to refuse) says where the report went.
      if (ts && failure !== null) {
        const text = `${headlineText(report)} — the full report could not be posted here (${failure}); it was sent privately to <@${askedBy}>`;
        await update('final report, plain text', { text, blocks: [{ type: 'section', text: { type: 'mrkdwn', text } }] }).catch(() => false);
      }
      const note = failure ? `:warning: the report could not be posted in the channel (${failure}); here it is:` : null;
      try {
        await respond?.({
          response_type: 'ephemeral',
          replace_original: false,
          text: note ? `${note} ${view.text}` : view.text,
          blocks: [
            ...(note ? [{ type: 'section' as const, text: { type: 'mrkdwn' as const, text: note } }] : []),
            ...withoutAttachmentNote(view.blocks, report.site),
          ],
        });
      } catch (err) {
        log.error(`the report could not be delivered by any path: ${slackErrorCode(err)}`);
      }
      return;
    }
    if (view.truncated) {
      try {
        await client.files.uploadV2({
          channel_id: channel,
          thread_ts: ts,
          content: renderText(report, { colour: false }),
          filename: `seat-probe-${report.site}-${report.startedAt.replace(/[:.]/g, '')}.txt`,
          title: `Full probe report: ${report.site}`,
        });
      } catch (err) {
        const code = slackErrorCode(err);
        log.warn(`files.uploadV2 failed: ${code}`);
        await tell(`:warning: the full report could not be attached (${code}): run \`seat probe ${report.site}\` in a terminal for all of it.`);
      }
    }
  }

  app.command('/seat', async ({ command, ack, respond, client }) => {
    const chan = channelAllowed(inv, command.channel_id);
    if (!chan.ok) return ack({ response_type: 'ephemeral', text: `:no_entry: ${chan.reason}` });
    const parsed = parseSlackText(command.text, fleet.siteNames);
    if (!parsed.ok) return ack({ response_type: 'ephemeral', text: `:x: ${parsed.error}\n\`\`\`${SLACK_USAGE}\`\`\`` });
    const cmd = parsed.command;
    if (cmd.verb === 'probe' && cmd.json) {
      return ack({ response_type: 'ephemeral', text: ':x: --json is for the terminal (`seat probe ... --json`); in Slack the report is the message' });
    }
    if (cmd.verb === 'help') return ack({ response_type: 'ephemeral', text: `\`\`\`${SLACK_USAGE}\`\`\`` });
    const quick = inv.oncall.users.includes(command.user_id);
    if (!quick && !inv.oncall.userGroup) {
      const who = await userAllowed(inv, command.user_id, {});
      return ack({ response_type: 'ephemeral', text: `:no_entry: ${who.ok ? '' : who.reason}` });
    }
    await ack();
    const req: ProbeRequest = { site: cmd.site, only: cmd.only, timeoutMs: cmd.timeoutMs, paid: cmd.paid };
    track(
      (async () => {
        if (!quick) {
          const who = await userAllowed(inv, command.user_id, { groupMembers: (g) => groupMembers(client, g) });
          if (!who.ok) {
            await respond({ response_type: 'ephemeral', text: `:no_entry: ${who.reason}` });
            return;
          }
        }
        await probeIntoMessage({ client, channel: command.channel_id, ts: undefined, req, askedBy: command.user_id, respond });
      })(),
    );
  });

  app.action(PROBE_AGAIN, async ({ ack, body, action, client, respond }) => {
    await ack();
    if (body.type !== 'block_actions' || action.type !== 'button') return;
    const user = body.user.id;
    const channel = body.channel?.id ?? body.container?.channel_id;
    // A click on an ephemeral report (the fallback path) has no message to update: post a new one.
    const ts: string | undefined = body.message?.ts;
    if (!channel) {
      await respond({ response_type: 'ephemeral', replace_original: false, text: ':x: this button has lost its channel; run /seat probe again' });
      return;
    }
    const chan = channelAllowed(inv, channel);
    const who = chan.ok ? await userAllowed(inv, user, { groupMembers: (g) => groupMembers(client, g) }) : chan;
    if (!who.ok) {
      await respond({ response_type: 'ephemeral', replace_original: false, text: `:no_entry: ${who.reason}` });
      return;
    }
    const value = safeJson(action.value);
    const req = ProbeAgainValue.safeParse(value);
    if (!req.success || (req.data.site !== 'all' && !fleet.site(req.data.site))) {
      await respond({ response_type: 'ephemeral', replace_original: false, text: ':x: this button belongs to an older inventory; run /seat probe again' });
      return;
    }
    const key = `${channel}:${ts ?? user}`;
    if (busyMessages.has(key)) {
      await respond({ response_type: 'ephemeral', replace_original: false, text: ':hourglass: already probing into this message' });
      return;
    }
    busyMessages.add(key);
    track(probeIntoMessage({ client, channel, ts, req: req.data, askedBy: user, respond }).finally(() => busyMessages.delete(key)));
  });

  app.error(async (err) => {
    log.error(`slack listener error: ${slackErrorCode(err)}`);
  });

  return {
    app,
    start: async () => {
      await app.init();
      if (config.mode.kind === 'socket') {
        await app.start();
        return undefined;
      }
      const server = (await app.start(config.mode.port)) as { address(): AddressInfo | string | null } | undefined;
      const addr = server?.address();
      return typeof addr === 'object' && addr ? addr.port : config.mode.port;
    },
    stop: async () => {
      await app.stop();
    },
    idle: async () => {
      while (running.size > 0) await Promise.all([...running]);
    },
  };
}

/** An ephemeral reply has no thread to attach to: the "attached in the thread" line says where else to look. */
function withoutAttachmentNote(blocks: Rendered['blocks'], site: string): Rendered['blocks'] {
  return blocks.map((b) =>
    b.type === 'section' && b.text?.text.startsWith(ATTACHED_NOTE_START)
      ? { ...b, text: { ...b.text, text: `${ATTACHED_NOTE_START} The report is longer than one Slack message: for all of it, run \`seat probe ${site}\` in a terminal.` } }
      : b,
  );
}

function safeJson(s: string | undefined): unknown {
  try {
    return JSON.parse(s ?? '');
  } catch {
    return undefined;
  }
}
