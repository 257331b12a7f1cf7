// The Bolt app: built from options (every side effect is one), listeners registered from
// listeners/, work after the ack tracked so `idle()` can wait for it.
import bolt from '@slack/bolt';
import type { App as BoltApp, Logger } from '@slack/bolt';
import type { AddressInfo } from 'node:net';
import type { ProbeDeps } from '../commands/probe.ts';
import type { Fleet } from '../inventory/fleet.ts';
import type { SlackConfig } from './config.ts';
import { groupCache, type SeatContext } from './context.ts';
import { slackErrorCode } from './errors.ts';
import { registerListeners } from './listeners/index.ts';
import { replayGuard } from './replay.ts';

const { App, LogLevel } = bolt;

export { SLACK_USAGE } from './usage.ts';

export interface SeatAppOptions {
  fleet: Fleet;
  config: SlackConfig;
  probeDeps?: ProbeDeps;
  logger?: Logger;
  /** Milliseconds between progress updates of one message (Slack allows about one a second). */
  updateIntervalMs?: number;
  /** Skip auth.test at start (tests whose Web API stand-in does not need it). */
  tokenVerification?: boolean;
  /** Waits out Slack's Retry-After (default: a real timer); tests pass one that returns at once. */
  sleep?: (ms: number) => Promise<void>;
  /** Milliseconds clock for the replay window and the user-group cache. */
  now?: () => number;
}

export interface SeatApp {
  app: BoltApp;
  /** Starts the app; in HTTP mode resolves with the port it listens on (PORT=0 picks a free one). */
  start(): Promise<number | undefined>;
  stop(): Promise<void>;
  /** Resolves when every probe started so far has posted its final report (tests, shutdown). */
  idle(): Promise<void>;
}

const realSleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

export function createSeatApp(opts: SeatAppOptions): SeatApp {
  const { config } = opts;
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
  const now = opts.now ?? Date.now;

  const running = new Set<Promise<void>>();
  const ctx: SeatContext = {
    fleet: opts.fleet,
    log,
    probeDeps: opts.probeDeps,
    updateIntervalMs: opts.updateIntervalMs ?? 1000,
    sleep: opts.sleep ?? realSleep,
    replays: replayGuard({ now }),
    busyMessages: new Set(),
    track: (work) => {
      const done = work.catch((err: unknown) => log.error(`probe flow failed: ${slackErrorCode(err)}`)).finally(() => running.delete(done));
      running.add(done);
    },
    groupMembers: groupCache(log, now),
  };
  registerListeners(app, ctx);
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
