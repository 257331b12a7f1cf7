// What `seat bot` adds around the Slack app for running as a service: the Alertmanager receiver
// (POST /alertmanager), the schedule, JSON logs on stdout when it is not a terminal, and the stop
// on SIGTERM: acks stop, in-flight work given a bound, children killed. main.ts calls prepare()
// before the operations listener starts, attach() once Slack is connected, stop() at the signal.
import type { ProbeReport, ProbeRequest } from '../commands/probe.ts';
import type { IncidentService } from '../incident/service.ts';
import type { Fleet } from '../inventory/fleet.ts';
import { slackErrorCode } from '../slack/errors.ts';
import type { WebClient } from '../slack/context.ts';
import { createAlertFlow, type AlertSlack } from './alert-flow.ts';
import { createAlertReceiver, type AlertReceiver } from './alertmanager.ts';
import { TOKEN_VAR } from './alert-auth.ts';
import type { Logger } from '@slack/bolt';
import { boltLogger, jsonLog, secretsOf, silentLog, type OpsLog } from './log.ts';
import { scheduleMs, startSchedule, type Schedule, type SetTimer } from './schedule.ts';

/** How long a stop waits for the work in flight before it closes the journal and kills the children. */
export const STOP_BOUND_MS = 10_000;

/** What the wiring needs of the Slack app (SeatApp). */
export interface WiredSeat {
  app: { client: WebClient };
  readonly incidents: IncidentService | undefined;
  probe(req: ProbeRequest): Promise<ProbeReport>;
  stopTaking(): Promise<void>;
  idle(): Promise<void>;
  stop(): Promise<void>;
}

export interface BotWiring {
  /** For startBotOps: the receiver (off, it answers 404 saying why). */
  readonly alertmanager: AlertReceiver;
  readonly log: OpsLog;
  /** Bolt's logger as JSON lines, when stdout is not a terminal; absent: Bolt's own. */
  readonly boltLogger: Logger | undefined;
  /** Lines for the start-up message (the receiver on or off, the schedule). */
  readonly said: string[];
  /** How long stop() waits for the work in flight (SEAT_STOP_BOUND_MS, default 10 s). */
  readonly stopBoundMs: number;
  attach(seat: WiredSeat): void;
  stop(seat: WiredSeat, o: { ops: { setSlackConnected(c: boolean): void; close(): Promise<void> }; say(line: string): void }): Promise<{ finished: boolean }>;
}

export interface PrepareOptions {
  env: NodeJS.ProcessEnv;
  stdout?: { write(s: string): unknown; isTTY?: boolean } | undefined;
  now?: () => Date;
  setTimer?: SetTimer;
  stopBoundMs?: number;
}

export function slackOf(client: WebClient, log: OpsLog): AlertSlack {
  return {
    post: async (channel, view, thread) => {
      try {
        const r = await client.chat.postMessage({ channel, text: view.text, blocks: view.blocks, ...(thread ? { thread_ts: thread } : {}) });
        return r.ts ? { ts: r.ts } : { error: 'no_ts' };
      } catch (err) {
        const code = slackErrorCode(err);
        log('warn', 'slack.post_failed', { channel, code });
        return { error: code };
      }
    },
    update: async (channel, ts, view) => {
      try {
        await client.chat.update({ channel, ts, text: view.text, blocks: view.blocks });
        return true;
      } catch (err) {
        log('warn', 'slack.update_failed', { channel, code: slackErrorCode(err) });
        return false;
      }
    },
  };
}

export function prepareBotWiring(fleet: Fleet, o: PrepareOptions): { ok: true; value: BotWiring } | { ok: false; error: string } {
  const log: OpsLog = o.stdout && !o.stdout.isTTY ? jsonLog({ write: (l) => o.stdout!.write(l), secrets: secretsOf(o.env, fleet), ...(o.now ? { now: o.now } : {}) }) : silentLog;
  const now = o.now ?? (() => new Date());
  const inv = fleet.inventory;
  const channel = inv.alerts?.channel ?? inv.oncall.channels[0];
  const every = scheduleMs(inv.settings.schedule);
  if (!every.ok) return { ok: false, error: every.error };
  const boundRaw = o.env.SEAT_STOP_BOUND_MS;
  const stopBoundMs = o.stopBoundMs ?? (boundRaw ? Number(boundRaw) : STOP_BOUND_MS);
  if (!Number.isInteger(stopBoundMs) || stopBoundMs < 100 || stopBoundMs > 600_000) return { ok: false, error: `SEAT_STOP_BOUND_MS=${JSON.stringify(String(boundRaw).slice(0, 20))} is not a number of milliseconds from 100 to 600000` };
  const made = createAlertReceiver({ env: o.env, log });
  if (!made.ok) return { ok: false, error: made.error };
  const receiver = made.value;
  if (receiver.state.on && !channel) return { ok: false, error: `${TOKEN_VAR} is set but alerts have no channel: set alerts.channel (or oncall.channels) in the inventory` };
  if (every.ms !== null && !channel) return { ok: false, error: 'settings.schedule is set but its reports have no channel: set alerts.channel (or oncall.channels) in the inventory' };
  const said = [
    receiver.state.on ? `Alertmanager receiver on at POST /alertmanager (bearer token from ${TOKEN_VAR}); alerts go to ${channel}${inv.incidents?.autoOpen ? ', each group opens an incident' : ''}` : `Alertmanager receiver off: ${receiver.state.why}`,
    ...(every.ms !== null ? [`schedule: every site probed ${inv.settings.schedule}; a change of verdict is posted in ${channel}`] : []),
  ];
  let schedule: Schedule | null = null;
  return {
    ok: true,
    value: {
      alertmanager: receiver,
      log,
      boltLogger: log === silentLog ? undefined : (boltLogger(log) as unknown as Logger),
      said,
      stopBoundMs,
      attach(seat) {
        const slack = slackOf(seat.app.client, log);
        const journal = (): { store: IncidentService['deps']['store']; service: IncidentService } | null => {
          const service = seat.incidents;
          return service ? { store: service.deps.store, service } : null;
        };
        if (receiver.state.on && channel) {
          const flow = createAlertFlow({ fleet, channel, ...(inv.alerts?.labels ? { labels: inv.alerts.labels } : {}), autoOpen: inv.incidents?.autoOpen ?? false, slack, probe: (r) => seat.probe(r), journal, now, log });
          receiver.setFlow((w) => flow.handle(w));
        }
        if (every.ms !== null && channel) {
          schedule = startSchedule({ fleet, everyMs: every.ms, channel, slack, probe: (r) => seat.probe(r), store: () => journal()?.store, now, log, ...(o.setTimer ? { setTimer: o.setTimer } : {}) });
        }
        for (const line of said) log('info', 'bot.started', { message: line });
      },
      async stop(seat, s) {
        // Acks stop: /readyz says 503, Alertmanager gets 503 (it sends again later), Slack's requests are no longer taken.
        s.ops.setSlackConnected(false);
        receiver.drain();
        schedule?.stop();
        await seat.stopTaking();
        const bound = stopBoundMs;
        let timer: NodeJS.Timeout | undefined;
        const finished = await Promise.race([
          Promise.all([seat.idle(), receiver.idle(), schedule?.idle()]).then(() => true),
          new Promise<false>((r) => (timer = setTimeout(() => r(false), bound))),
        ]);
        clearTimeout(timer);
        if (!finished) s.say(`the work in flight did not finish within ${bound / 1000} s: what it had not recorded is not recorded (the journal closes now); its probes are killed`);
        log(finished ? 'info' : 'warn', 'bot.stopping', { finished, boundMs: bound });
        // The journal closes and the probe process (and its children) is killed.
        await seat.stop().catch((err: unknown) => log('warn', 'bot.stop_failed', { code: slackErrorCode(err) }));
        await s.ops.close();
        return { finished };
      },
    },
  };
}

/**
 * After a real signal: whatever still holds the process (a peer that never closes its socket) does
 * not keep it past the bound and a grace of 2 s. The timer is unref'd: a clean stop exits sooner.
 */
export function armExit(boundMs = STOP_BOUND_MS, exit: (code: number) => void = (c) => process.exit(c)): void {
  setTimeout(() => exit(0), boundMs + 2000).unref();
}
