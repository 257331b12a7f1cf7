// A terminal `seat probe` on a journal the bot replicas share asks them too, as `/seat probe` does
// (vantage/ask.ts): the night Slack is gone, the verdict still rests on every vantage that answers.
// Only when another replica at another vantage is alive (its heartbeat seen in the last 45 s);
// otherwise the probe is the terminal's own, untouched.
import { hostname } from 'node:os';
import { runProbe, type ProbeDeps } from '../commands/probe.ts';
import type { Fleet } from '../inventory/fleet.ts';
import { openAsks, type AskTransport } from '../journal/asks.ts';
import type { JournalStore } from '../journal/store.ts';
import { vantageFor } from '../probes/vantage.ts';
import { askingOthers, otherVantages } from '../vantage/ask.ts';

export interface TerminalAsk {
  run: typeof runProbe;
  /** The other vantages it will ask. */
  vantages: string[];
  close(): Promise<void>;
}

export async function terminalAsk(store: JournalStore, journal: string, fleet: Fleet, deps: ProbeDeps | undefined, now: () => Date): Promise<TerminalAsk | null> {
  const self = { replica: `seat:${hostname().split('.')[0] || 'host'}:${process.pid}`, vantage: deps?.vantage ?? vantageFor(deps?.env ?? process.env, fleet.inventory.vantage) };
  const seen = await store.replicaSide.replicas().catch(() => []);
  const peers = otherVantages(seen, self, now());
  if (peers.size === 0) return null;
  let asks: AskTransport;
  try {
    asks = await openAsks(journal);
  } catch {
    return null;
  }
  return {
    run: askingOthers(runProbe, { asks, self, replicas: async () => seen, now }),
    vantages: [...peers.keys()],
    close: () => asks.close(),
  };
}
