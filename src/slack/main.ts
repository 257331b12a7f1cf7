// The Slack front end's entry (`seat bot`): reads its settings, starts the app, runs until SIGINT or SIGTERM.
import type { Fleet } from '../inventory/fleet.ts';
import { journalPath } from '../journal/location.ts';
import { shownJournal } from '../journal/open.ts';
import { JournalError, type JournalStore } from '../journal/store.ts';
import { armExit, prepareBotWiring } from '../ops/bot-wiring.ts';
import { startBotOps } from '../ops/ops.ts';
import { readSlackConfig } from './config.ts';
import { createSeatApp } from './app.ts';
import type { ProbeDeps } from '../commands/probe.ts';
import { slackErrorCode, slackAdvice } from './errors.ts';

export interface BotIo {
  stderr: { write(s: string): unknown };
  env: NodeJS.ProcessEnv;
  probeDeps?: ProbeDeps;
  /** Resolves when the bot should stop; defaults to the first SIGINT/SIGTERM. */
  until?: Promise<void>;
  /** The inventory file, so its `journal:` is read relative to it (else to the working folder). */
  inventoryPath?: string;
  /** JSON log lines go here when it is not a terminal (src/ops/log.ts); absent: none. */
  stdout?: { write(s: string): unknown; isTTY?: boolean };
}

export async function runBot(fleet: Fleet, io: BotIo): Promise<0 | 2> {
  const config = readSlackConfig(io.env);
  if (!config.ok) {
    io.stderr.write(`seat bot: cannot start:\n${config.errors.map((e) => `  ${e}`).join('\n')}\n`);
    return 2;
  }
  const journal = journalPath(io.env, fleet.inventory, io.inventoryPath);
  // The probes run in a process of their own, off the loop that acks Slack (SEAT_PROBE_THREAD=thread: a
  // worker thread; off: in-process).
  const where = io.env.SEAT_PROBE_THREAD;
  const probeThread = where === 'off' ? false : where === 'thread' ? 'thread' : 'process';
  // The operations listener (/healthz, /readyz, /metrics), apart from Slack's PORT: SEAT_HTTP_LISTEN, loopback by default.
  let seatRef: { incidents: { deps: { store: JournalStore } } | undefined; journalAnswers?: boolean | undefined } | undefined;
  // The Alertmanager receiver, the schedule, JSON logs, the bounded stop (src/ops/bot-wiring.ts).
  const wiring = prepareBotWiring(fleet, { env: io.env, stdout: io.stdout });
  if (!wiring.ok) {
    io.stderr.write(`seat bot: cannot start: ${wiring.error}\n`);
    return 2;
  }
  const ops = await startBotOps(fleet, { env: io.env, journalPath: journal.path, store: () => seatRef?.incidents?.deps.store, journalAnswers: () => seatRef?.journalAnswers, alertmanager: wiring.value.alertmanager });
  if (!ops.ok) {
    io.stderr.write(`seat bot: cannot start: ${ops.error}\n`);
    return 2;
  }
  const seat = createSeatApp({ fleet, config: config.value, journal: journal.path, probeThread, onReport: ops.value.record, ...(wiring.value.boltLogger ? { logger: wiring.value.boltLogger } : {}), ...(io.probeDeps ? { probeDeps: io.probeDeps } : {}) });
  seatRef = seat;
  let port: number | undefined;
  try {
    port = await seat.start();
  } catch (err) {
    if (err instanceof JournalError) {
      io.stderr.write(`seat bot: cannot open the journal: ${err.message.split('\n')[0]} (set SEAT_JOURNAL, or journal: in the inventory, to a file the bot may write)\n`);
      await seat.stop().catch(() => {});
      await ops.value.close();
      return 2;
    }
    const code = slackErrorCode(err);
    const sys = (err as NodeJS.ErrnoException).code;
    if (sys === 'EADDRINUSE' || sys === 'EACCES') {
      io.stderr.write(`seat bot: cannot listen on port ${config.value.mode.kind === 'http' ? config.value.mode.port : '?'} (${sys}): set PORT to a free one\n`);
    } else if (sys === 'ENOTFOUND' || sys === 'ECONNREFUSED' || sys === 'ETIMEDOUT' || code.startsWith('slack_webapi_request_error')) {
      io.stderr.write(`seat bot: cannot reach Slack (${sys ?? code}): check this machine's network or SLACK_API_URL\n`);
    } else {
      const known = ['invalid_auth', 'token_revoked', 'not_authed', 'missing_scope', 'account_inactive'].includes(code);
      io.stderr.write(`seat bot: Slack refused to start the app (${code}): ${known ? slackAdvice(code) : 'check the tokens and the app’s settings'}\n`);
    }
    await seat.stop().catch(() => {});
    await ops.value.close();
    return 2;
  }
  ops.value.setSlackConnected(true);
  io.stderr.write(`seat bot: ${ops.said}\n`);
  wiring.value.attach(seat);
  for (const line of wiring.value.said) io.stderr.write(`seat bot: ${line}\n`);
  io.stderr.write(
    `seat bot: running on ${fleet.inventory.fleet} (${fleet.siteNames.join(', ')}), ` +
      `${port === undefined ? 'Socket Mode' : `HTTP on port ${port} at /slack/events`}; journal ${shownJournal(journal.path)} (${journal.from}); Ctrl-C stops it\n`,
  );
  // A backstop: whatever escapes a listener is logged with its code, and the bot keeps running.
  const backstop = (err: unknown): void => void io.stderr.write(`seat bot: unhandled error (${slackErrorCode(err)}); still running\n`);
  process.on('unhandledRejection', backstop);
  await (io.until ?? firstSignal());
  process.off('unhandledRejection', backstop);
  io.stderr.write('seat bot: stopping after the probes in flight finish\n');
  // Within a bound: acks stop, the work in flight finishes or is told it was not recorded, the children are killed.
  if (!io.until) armExit(wiring.value.stopBoundMs);
  await wiring.value.stop(seat, { ops: ops.value, say: (line) => io.stderr.write(`seat bot: ${line}\n`) });
  return 0;
}

function firstSignal(): Promise<void> {
  return new Promise((resolve) => {
    process.once('SIGINT', () => resolve());
    process.once('SIGTERM', () => resolve());
  });
}
