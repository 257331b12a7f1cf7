// Each running bot says it is alive in the journal every HEARTBEAT_MS: `seat journal status` lists
// the replicas seen, and one silent for HEARTBEAT_STALE_S is called stopped or cut off. A heartbeat
// that fails (the database gone) is logged once per outage, never a reason to stop the bot.
import { hostname } from 'node:os';
import type { ReplicaSide } from './store.ts';

export const HEARTBEAT_MS = 15_000;
export const HEARTBEAT_STALE_S = 45;

export interface HeartbeatDeps {
  now: () => Date;
  every?: (fn: () => void, ms: number) => { unref?: () => void };
  stop?: (t: unknown) => void;
  warn?: (line: string) => void;
  /** Each heartbeat's outcome: the journal took it, or not. */
  answered?: (ok: boolean) => void;
}

export function startHeartbeat(side: ReplicaSide, who: { replica: string; site: string; version: string; host?: string }, d: HeartbeatDeps): { beat: () => Promise<boolean>; stop: () => void } {
  let failing = false;
  const beat = async (): Promise<boolean> => {
    try {
      await side.heartbeat({ replica: who.replica, site: who.site, host: who.host ?? (hostname().split('.')[0] || 'host'), version: who.version, at: d.now().toISOString() });
      if (failing) d.warn?.('heartbeat: the journal answers again');
      failing = false;
      d.answered?.(true);
      return true;
    } catch (err) {
      if (!failing) d.warn?.(`heartbeat: the journal did not take it (${err instanceof Error ? (err.message.split('\n')[0] ?? '') : String(err)}); the bot keeps answering`);
      failing = true;
      d.answered?.(false);
      return false;
    }
  };
  const every = d.every ?? ((fn, ms) => setInterval(fn, ms));
  const timer = every(() => void beat(), HEARTBEAT_MS);
  timer.unref?.();
  return { beat, stop: () => (d.stop ?? ((t) => clearInterval(t as NodeJS.Timeout)))(timer) };
}
