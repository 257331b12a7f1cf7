// The Bolt app: built from options (every side effect is one), listeners registered from
// listeners/, work after the ack tracked so `idle()` can wait for it, every probe through one queue.
import bolt from '@slack/bolt';
import type { App as BoltApp, Logger } from '@slack/bolt';
import type { AddressInfo } from 'node:net';
import { runProbe, type ProbeDeps, type ProbeReport, type ProbeRequest } from '../commands/probe.ts';
import { observeReports } from '../ops/observe.ts';
import { createProbeThread, type ProbeHostKind } from '../commands/probe-thread.ts';
import { ProbeMemory } from '../probes/memory.ts';
import { defaultReplica, IncidentService } from '../incident/service.ts';
import type { Runbook } from '../incident/types.ts';
import type { Fleet } from '../inventory/fleet.ts';
import { openJournal } from '../journal/open.ts';
import { openAsks, type AskTransport } from '../journal/asks.ts';
import { startHeartbeat } from '../journal/heartbeat.ts';
import { askingOthers } from '../vantage/ask.ts';
import { answerAsks, type Answering } from '../vantage/answer.ts';
import { readVersion } from '../version.ts';
import { vantageFor } from '../probes/vantage.ts';
import type { JournalStore } from '../journal/store.ts';
import { PROBE_GROUPS } from '../probes/types.ts';
import { loadRunbooks } from '../runbooks/load.ts';
import type { SlackConfig } from './config.ts';
import { groupCache, type RunProbe, type SeatContext } from './context.ts';
import { slackErrorCode } from './errors.ts';
import { fetchSlackFile, type FetchFile } from './evidence-file.ts';
import { registerListeners } from './listeners/index.ts';
import { MAX_PROBES_AT_ONCE, probeQueue, type ProbeQueue } from './probe-queue.ts';
import { SeatReceiver } from './receiver.ts';
import { replayGuard } from './replay.ts';
import { sendQueue } from './send-queue.ts';
import { ThreadMessages } from './thread-messages.ts';

const { App, LogLevel } = bolt;

export { SLACK_USAGE } from './usage.ts';

export interface SeatAppOptions {
  /** This replica's name in the journal (leases, heartbeats): SEAT_REPLICA, else host:pid. */
  replica?: string;
  fleet: Fleet;
  config: SlackConfig;
  probeDeps?: ProbeDeps;
  logger?: Logger;
  /** Milliseconds between progress updates of one message (Slack allows about one a second). */
  updateIntervalMs?: number;
  /** Skip auth.test at start (tests whose Web API stand-in does not need it). Bolt then calls auth.test before every event's ack instead: never in the bot. */
  tokenVerification?: boolean;
  /** Waits out Slack's Retry-After (default: a real timer); tests pass one that returns at once. */
  sleep?: (ms: number) => Promise<void>;
  /** Milliseconds clock for the replay window, the user-group cache and the journal's times. */
  now?: () => number;
  /** The incident journal's SQLite file, opened by start(); without one the incident commands say the bot keeps none. */
  journal?: string;
  /** The runbooks by id (default: the package's runbooks/, read by start()). */
  runbooks?: ReadonlyMap<string, Runbook>;
  /** Downloads a Slack file with the bot token (default: fetch, to Slack's hosts and SLACK_API_URL's only). */
  fetchFile?: FetchFile;
  /** Plans and runs one probe (default: commands/probe.ts `runProbe`); tests hold probes with a stand-in. */
  runProbe?: RunProbe;
  /** Probes run at once, channel and incident steps together (default MAX_PROBES_AT_ONCE, 4); the rest wait in order. */
  maxProbes?: number;
  /** Run the probes off the event loop that acks Slack (commands/probe-thread.ts): in a child process
   * of their own (`true` or 'process': what `seat bot` does), or a worker thread ('thread'). Tests
   * that shape a probe's network in-process leave it off. */
  probeThread?: boolean | ProbeHostKind;
  /** Told of every probe report the app produces (a channel probe, an incident step): the operations listener's /metrics keeps them. */
  onReport?: (report: ProbeReport) => void;
}

export interface SeatApp {
  app: BoltApp;
  /** Starts the app; in HTTP mode resolves with the port it listens on (PORT=0 picks a free one). */
  start(): Promise<number | undefined>;
  stop(): Promise<void>;
  /** Resolves when every probe started so far has posted its final report (tests, shutdown). */
  idle(): Promise<void>;
  /** The incident service once started with a journal (tests read its journal). */
  readonly incidents: IncidentService | undefined;
  /** Whether the journal took this replica's last heartbeat (undefined: no heartbeat yet, or none kept). */
  readonly journalAnswers: boolean | undefined;
  /** Every probe the app runs waits its turn here (the ack bench reads how many run and wait). */
  readonly probes: ProbeQueue;
  /** How many probes ran off the acking loop, in the probe process or thread (0 without one). */
  readonly threadedProbes: number;
  /** Runs one probe through the queue, as a channel probe does (the operations listener's alerts and schedule). */
  probe(req: ProbeRequest): Promise<ProbeReport>;
  /** Stops taking Slack's requests (acks stop); stop() later closes the journal. */
  stopTaking(): Promise<void>;
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
    // No listener keeps conversation state; Bolt's default store builds an Error per request to say so, before the ack.
    convoStore: false as const,
  };
  const app =
    config.mode.kind === 'socket'
      ? new App({ ...common, appToken: config.mode.appToken, socketMode: true })
      : // Slack's POSTs through our receiver (receiver.ts): Bolt's signature check, less per ack.
        new App({ ...common, receiver: new SeatReceiver({ signingSecret: config.mode.signingSecret, ...(opts.now ? { now: opts.now } : {}) }) });
  const log = opts.logger ?? app.logger;
  const now = opts.now ?? Date.now;
  const clock = (): Date => new Date(now());
  const sleep = opts.sleep ?? realSleep;

  const running = new Set<Promise<void>>();
  const thread = opts.probeThread && !opts.runProbe ? createProbeThread(opts.probeThread === true ? 'process' : opts.probeThread) : null;
  // This replica's own probe: what it runs for its people, and what it runs when another replica asks.
  const plainProbe: RunProbe = opts.runProbe ?? thread?.runProbe ?? runProbe;
  const ctx: SeatContext = {
    fleet: opts.fleet,
    log,
    // One memory across the bot's probes: a container's restart count is judged by whether it rose since
    // the last probe, and what cost its timeout last time is asked first.
    probeDeps: { memory: new ProbeMemory(), ...opts.probeDeps },
    runProbe: observeReports(plainProbe, opts.onReport),
    probes: probeQueue(opts.maxProbes ?? MAX_PROBES_AT_ONCE),
    probing: new Map(),
    updateIntervalMs: opts.updateIntervalMs ?? 1000,
    sleep,
    replays: replayGuard({ now }),
    busyMessages: new Set(),
    detected: new Map(),
    threads: new ThreadMessages(),
    track: (work) => {
      const done = work.catch((err: unknown) => log.error(`work after the ack failed: ${slackErrorCode(err)}`)).finally(() => running.delete(done));
      running.add(done);
    },
    groupMembers: groupCache(log, now),
    incidents: { missing: 'this bot keeps no incident journal: start it with one (SEAT_JOURNAL, or journal: in the inventory)' },
    send: sendQueue({ sleep, log }),
    fetchFile: opts.fetchFile ?? fetchSlackFile(config.slackApiUrl),
  };
  let store: JournalStore | undefined;
  let heart: { stop: () => void } | undefined;
  let asks: AskTransport | undefined;
  let answering: Answering | undefined;
  let answers: boolean | undefined;
  /** Opens the journal and reads the runbooks: the incident commands work from here on. */
  const openIncidents = async (path: string): Promise<void> => {
    const opened = await openJournal(path, { now: clock });
    store = opened;
    // The replicas seen (`seat journal status`): this one says it is alive while it runs.
    const self = { replica: opts.replica ?? defaultReplica(), vantage: ctx.probeDeps?.vantage ?? vantageFor(process.env, opts.fleet.inventory.vantage) };
    const beating = startHeartbeat(opened.replicaSide, { replica: self.replica, site: self.vantage, version: (await readVersion()) ?? '?' }, { now: clock, warn: (l) => log.warn(l), answered: (ok) => void (answers = ok) });
    heart = beating;
    answers = await beating.beat();
    // Every vantage at once: a probe here asks the other live replicas through the journal, and this
    // replica answers theirs (vantage/ask.ts, answer.ts).
    try {
      asks = await openAsks(path);
      ctx.runProbe = observeReports(askingOthers(plainProbe, { asks, self, replicas: () => opened.replicaSide.replicas(), now: clock, log: (l) => log.warn(l) }), opts.onReport);
      answering = answerAsks({ asks, self, fleet: opts.fleet, now: clock, log: (l) => log.warn(l), probe: (req, onEvent) => ctx.probes.run(() => plainProbe(opts.fleet, req, { ...ctx.probeDeps, onEvent })) });
    } catch (err) {
      log.warn(`probe requests between replicas are off: ${err instanceof Error ? (err.message.split('\n')[0] ?? '') : String(err)}`);
    }
    let runbooks = opts.runbooks;
    if (!runbooks) {
      const loaded = await loadRunbooks();
      for (const e of loaded.errors) log.warn(`runbook left out: ${e}`);
      runbooks = loaded.runbooks;
    }
    ctx.incidents = new IncidentService({
      store: opened,
      replica: opts.replica ?? defaultReplica(),
      fleet: opts.fleet,
      runbooks,
      now: clock,
      // A step's probe waits its turn like any other; the step message already says it is probing.
      probe: (site, only) => ctx.probes.run(() => ctx.runProbe(opts.fleet, { site, only: only?.only ?? [...PROBE_GROUPS], timeoutMs: null, paid: false }, ctx.probeDeps ?? {})),
    });
  };
  registerListeners(app, ctx);
  app.error(async (err) => {
    log.error(`slack listener error: ${slackErrorCode(err)}`);
  });

  return {
    app,
    start: async () => {
      if (opts.journal && !store) await openIncidents(opts.journal);
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
      await app.stop().finally(async () => {
        heart?.stop();
        heart = undefined;
        await answering?.stop();
        answering = undefined;
        await asks?.close();
        asks = undefined;
        const closing = store;
        store = undefined;
        await closing?.close();
        await thread?.close();
      });
    },
    probe: (req) => ctx.probes.run(() => ctx.runProbe(opts.fleet, req, ctx.probeDeps ?? {})),
    stopTaking: () => app.stop().then(
      () => undefined,
      (err: unknown) => log.warn(`stopping the Slack receiver: ${slackErrorCode(err)}`),
    ),
    idle: async () => {
      while (running.size > 0) await Promise.all([...running]);
    },
    get journalAnswers() {
      return answers;
    },
    get incidents() {
      return ctx.incidents instanceof IncidentService ? ctx.incidents : undefined;
    },
    probes: ctx.probes,
    get threadedProbes() {
      return thread?.threaded ?? 0;
    },
  };
}
