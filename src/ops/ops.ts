// Wires the operations listener for `seat bot`: where it listens (SEAT_HTTP_LISTEN, loopback by
// default), what /readyz checks (the journal writable, Slack connected), what /metrics shows.
import { accessSync, constants, existsSync } from 'node:fs';
import { dirname } from 'node:path';
import type { ProbeReport } from '../commands/probe.ts';
import type { Fleet } from '../inventory/fleet.ts';
import { isPostgresUrl } from '../journal/spec.ts';
import { STEP_DECISIONS, type JournalStore } from '../journal/store.ts';
import { listenFrom } from './address.ts';
import { startOpsListener, type OpsDeps, type OpsListener, type ReadyCheck } from './listener.ts';
import { createSeatMetrics, type SeatMetrics } from './metrics.ts';

export interface BotOps {
  /** Feed every finished probe report here. */
  record(report: ProbeReport): void;
  /** Slack is connected (start() resolved) or not (stopping). */
  setSlackConnected(connected: boolean): void;
  /** null when off (SEAT_HTTP_LISTEN=off) or when the default address was taken. */
  readonly listener: OpsListener | null;
  readonly metrics: SeatMetrics;
  close(): Promise<void>;
}

export interface BotOpsOptions {
  env: NodeJS.ProcessEnv;
  /** The journal's file: /readyz checks it may be written. */
  journalPath: string;
  /** The open journal, once the app has one (for seat_open_incidents and seat_decisions_total). */
  store?: () => JournalStore | undefined;
  /** Checks the file may be written (default: access(2) on it, or on its folder before it exists). */
  writable?: (path: string) => boolean;
  /** Whether the shared journal took this replica's last heartbeat (a PostgreSQL journal). */
  journalAnswers?: () => boolean | undefined;
  /** POST /alertmanager (alertmanager.ts), served when given. */
  alertmanager?: OpsDeps['alertmanager'];
}

export type BotOpsResult = { ok: true; value: BotOps; said: string } | { ok: false; error: string };

export function fileWritable(path: string): boolean {
  try {
    accessSync(existsSync(path) ? path : dirname(path), constants.W_OK);
    return true;
  } catch {
    return false;
  }
}

export async function startBotOps(fleet: Fleet, o: BotOpsOptions): Promise<BotOpsResult> {
  // SEAT_HTTP_LISTEN wins over the inventory's settings.httpListen; either may say off.
  const at = listenFrom(o.env, fleet.inventory.settings.httpListen);
  if (at && !at.ok) return { ok: false, error: at.error };
  let slack = false;
  const writable = o.writable ?? fileWritable;
  const metrics = createSeatMetrics(fleet, async () => {
    const store = o.store?.();
    if (!store) return null;
    const open = await store.incidents({ status: 'open' });
    let decisions = 0;
    for (const i of await store.incidents()) decisions += (await store.events(i.id)).filter((e) => STEP_DECISIONS.includes(e.kind)).length;
    return { openIncidents: open.length, decisions };
  });
  const ready: Record<string, ReadyCheck> = {
    // A shared PostgreSQL journal is ready while its writes go through (the heartbeat's last answer).
    journal: () =>
      isPostgresUrl(o.journalPath)
        ? o.journalAnswers?.() === false
          ? { ok: false, why: 'no writable PostgreSQL primary answered the last heartbeat' }
          : { ok: true }
        : writable(o.journalPath)
          ? { ok: true }
          : { ok: false, why: 'the journal file cannot be written' },
    slack: () => (slack ? { ok: true } : { ok: false, why: 'not connected' }),
  };
  const started = at ? await startOpsListener(at.value, { ready, metrics, ...(o.alertmanager ? { alertmanager: o.alertmanager } : {}) }) : null;
  // An address asked for that cannot be had stops the bot; the default one taken (another bot, a test) only turns the listener off.
  if (started && !started.ok && at?.value.from !== 'default') return { ok: false, error: started.error };
  const listener = started?.ok ? started.value : null;
  let said: string;
  if (listener) {
    const where = listener.host.includes(':') ? `[${listener.host}]:${listener.port}` : `${listener.host}:${listener.port}`;
    said = `operations on http://${where} (/healthz, /readyz, /metrics${o.alertmanager?.state.on ? ', POST /alertmanager' : ''})${at?.value.loopback ? '' : ' — not loopback: whoever reaches it reads the metrics'}`;
  } else {
    said = started && !started.ok ? `operations listener off: ${started.error}` : `operations listener off (${o.env.SEAT_HTTP_LISTEN?.trim() === 'off' ? 'SEAT_HTTP_LISTEN=' : 'settings.httpListen: '}off)`;
  }
  return {
    ok: true,
    said,
    value: {
      record: (r) => metrics.record(r),
      setSlackConnected: (c) => void (slack = c),
      listener,
      metrics,
      close: async () => {
        await listener?.close();
      },
    },
  };
}
