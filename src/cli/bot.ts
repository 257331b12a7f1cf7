// `seat bot`: the Slack front end, started from a shell. Runs until SIGINT or SIGTERM.
import type { Fleet } from '../inventory/fleet.ts';
import { readSlackConfig } from '../slack/config.ts';
import { createSeatApp } from '../slack/app.ts';
import type { ProbeDeps } from '../commands/probe.ts';
import { slackErrorCode, slackAdvice } from '../slack/errors.ts';

export interface BotIo {
  stderr: { write(s: string): unknown };
  env: NodeJS.ProcessEnv;
  probeDeps?: ProbeDeps;
  /** Resolves when the bot should stop; defaults to the first SIGINT/SIGTERM. */
  until?: Promise<void>;
}

export async function runBot(fleet: Fleet, io: BotIo): Promise<0 | 2> {
  const config = readSlackConfig(io.env);
  if (!config.ok) {
    io.stderr.write(`seat bot: cannot start:\n${config.errors.map((e) => `  ${e}`).join('\n')}\n`);
    return 2;
  }
  const seat = createSeatApp({ fleet, config: config.value, ...(io.probeDeps ? { probeDeps: io.probeDeps } : {}) });
  try {
    await seat.start();
  } catch (err) {
    const code = slackErrorCode(err);
    io.stderr.write(`seat bot: Slack refused to start the app (${code}): ${slackAdvice(code)}\n`);
    return 2;
  }
  const mode = config.value.mode;
  io.stderr.write(
    `seat bot: running on ${fleet.inventory.fleet} (${fleet.siteNames.join(', ')}), ` +
      `${mode.kind === 'socket' ? 'Socket Mode' : `HTTP on port ${mode.port} at /slack/events`}; Ctrl-C stops it\n`,
  );
  await (io.until ?? firstSignal());
  io.stderr.write('seat bot: stopping after the probes in flight finish\n');
  await seat.idle();
  await seat.stop();
  return 0;
}

function firstSignal(): Promise<void> {
  return new Promise((resolve) => {
    process.once('SIGINT', () => resolve());
    process.once('SIGTERM', () => resolve());
  });
}
