// `seat vantage`: a replica without Slack. It says it is alive in the shared journal (a heartbeat,
// `seat journal status` lists it) and answers the bot replicas' probe requests from where this
// machine stands (vantage/answer.ts), so a site's verdict can rest on a second vantage point without a
// second Slack app. Runs until SIGINT or SIGTERM; the answers under way finish first.
import { hostname } from 'node:os';
import { runProbe } from '../commands/probe.ts';
import { defaultReplica } from '../incident/service.ts';
import type { Fleet } from '../inventory/fleet.ts';
import { openAsks } from '../journal/asks.ts';
import { startHeartbeat } from '../journal/heartbeat.ts';
import { journalPath } from '../journal/location.ts';
import { openJournal, shownJournal } from '../journal/open.ts';
import { JournalError } from '../journal/store.ts';
import { ProbeMemory } from '../probes/memory.ts';
import { resolveVantage } from '../probes/vantage.ts';
import { probeQueue } from '../slack/probe-queue.ts';
import { answerAsks } from '../vantage/answer.ts';
import { readVersion } from '../version.ts';
import type { CliIo, ExitCode } from './io.ts';

export async function vantageToTerminal(fleet: Fleet, io: CliIo, inventoryPath: string): Promise<ExitCode> {
  const say = (line: string): void => void io.stderr.write(`seat vantage: ${line.replace(/\p{Cc}/gu, '')}\n`);
  const vantage = resolveVantage(io.env, fleet.inventory.vantage);
  if (!vantage.ok) {
    say(vantage.error);
    return 2;
  }
  const journal = journalPath(io.env, fleet.inventory, inventoryPath);
  const now = io.now ?? (() => new Date());
  let store;
  let asks;
  try {
    store = await openJournal(journal.path, { now });
    asks = await openAsks(journal.path);
  } catch (err) {
    await store?.close().catch(() => undefined);
    say(`cannot open the journal ${shownJournal(journal.path)}: ${err instanceof JournalError ? (err.message.split('\n')[0] ?? '') : String(err)}`);
    return 3;
  }
  const self = { replica: io.env.SEAT_REPLICA || defaultReplica(io.env), vantage: vantage.vantage };
  const heart = startHeartbeat(store.replicaSide, { replica: self.replica, site: self.vantage, version: (await readVersion()) ?? '?', host: hostname().split('.')[0] || 'host' }, { now, warn: say });
  await heart.beat();
  const queue = probeQueue();
  const memory = new ProbeMemory();
  const answering = answerAsks({
    asks,
    self,
    fleet,
    now,
    log: say,
    probe: (req, onEvent) => queue.run(() => runProbe(fleet, req, { memory, env: io.env, ...io.probeDeps, vantage: self.vantage, onEvent })),
    answered: (ask, outcome) => say(`probe request ${ask}: ${outcome === 'done' ? 'answered' : 'could not be probed (the asker is told why)'}`),
  });
  say(`answering the bot replicas' probe requests from vantage ${self.vantage} (${vantage.from === 'hostname' ? 'the host name' : vantage.from === 'inventory' ? "the inventory's vantage:" : 'SEAT_VANTAGE'}) as replica ${self.replica}, journal ${shownJournal(journal.path)} (${journal.from}); Ctrl-C stops it`);
  // Nothing else holds the process open (the heartbeat's and the watchers' timers do not): this does, until the signal.
  const alive = setInterval(() => undefined, 1 << 30);
  await (io.until ?? firstSignal());
  clearInterval(alive);
  say('stopping after the answers under way');
  await answering.stop();
  heart.stop();
  await asks.close();
  await store.close();
  return 0;
}

function firstSignal(): Promise<void> {
  return new Promise((resolve) => {
    process.once('SIGINT', () => resolve());
    process.once('SIGTERM', () => resolve());
  });
}
