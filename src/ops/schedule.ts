// settings.schedule (`every 5m`, off by default): `seat bot` probes every site quietly and posts only
// a change of verdict (its status or the runbook it proposes), never the same one twice. A site an
// open incident holds dark (no-poll-dark-site) is not probed: that is posted once per hold. Time
// comes through an injected timer; a round starts only after the last one ended.
import type { ProbeReport, ProbeRequest } from '../commands/probe.ts';
import type { Fleet } from '../inventory/fleet.ts';
import type { JournalStore } from '../journal/store.ts';
import { PROBE_GROUPS } from '../probes/types.ts';
import { renderReport } from '../slack/blocks.ts';
import { esc, section } from '../slack/mrkdwn.ts';
import { darkSite, type AlertSlack } from './alert-flow.ts';
import type { OpsLog } from './log.ts';

export const MIN_EVERY_MS = 30_000;

/** `every 5m` in milliseconds; null for off or absent; an error for under 30 s. */
export function scheduleMs(text: string | undefined): { ok: true; ms: number | null } | { ok: false; error: string } {
  if (text === undefined || text === 'off') return { ok: true, ms: null };
  const m = /^every ([1-9][0-9]{0,4})(s|m|h)$/.exec(text);
  if (!m) return { ok: false, error: `settings.schedule: ${JSON.stringify(text.slice(0, 40))} is not "every 5m"` };
  const ms = Number(m[1]) * (m[2] === 's' ? 1000 : m[2] === 'm' ? 60_000 : 3_600_000);
  if (ms < MIN_EVERY_MS) return { ok: false, error: `settings.schedule: ${text} is more often than every 30s` };
  return { ok: true, ms };
}

export type SetTimer = (fn: () => void, ms: number) => { cancel(): void };
export const realTimer: SetTimer = (fn, ms) => {
  const t = setTimeout(fn, ms);
  t.unref();
  return { cancel: () => clearTimeout(t) };
};

export interface ScheduleDeps {
  fleet: Fleet;
  everyMs: number;
  channel: string;
  slack: AlertSlack;
  probe(req: ProbeRequest): Promise<ProbeReport>;
  store(): JournalStore | undefined;
  now(): Date;
  setTimer?: SetTimer;
  log: OpsLog;
}

export interface Schedule {
  /** One round now (tests; the timer calls it). */
  round(): Promise<void>;
  stop(): void;
  /** Resolves when the round in flight (if any) ended. */
  idle(): Promise<void>;
}

/** What a verdict is, for "did it change": its status and the runbook it proposes. */
const verdictKey = (r: ProbeReport): string => JSON.stringify([r.verdict.status, r.verdict.runbook]);

export function startSchedule(d: ScheduleDeps): Schedule {
  const setTimer = d.setTimer ?? realTimer;
  const last = new Map<string, string>();
  const darkTold = new Map<string, string>();
  let stopped = false;
  let timer: { cancel(): void } | null = null;
  let inFlight: Promise<void> = Promise.resolve();

  const site = async (name: string): Promise<void> => {
    const store = d.store();
    const dark = store ? await darkSite(store, d.fleet, name, d.now()) : null;
    if (dark) {
      const key = `${dark.incident} ${dark.at}`;
      if (darkTold.get(name) === key) return;
      darkTold.set(name, key);
      const text = `:new_moon: schedule: site *${esc(name)}* is held dark by incident #${dark.incident} (every address unanswered at ${dark.at}): not probed before ${dark.until} (no-poll-dark-site)`;
      await d.slack.post(d.channel, { text: `schedule: ${name} held dark, not probed`, blocks: [section(text)] });
      return;
    }
    darkTold.delete(name);
    const req: ProbeRequest = { site: name, only: [...PROBE_GROUPS], timeoutMs: null, paid: false };
    const report = await d.probe(req);
    const key = verdictKey(report);
    const before = last.get(name);
    last.set(name, key);
    // The first verdict of a site is posted only when it is not ok; after that, only a change.
    if (before === key || (before === undefined && report.verdict.status === 'ok')) return;
    const r = renderReport(report, req);
    const was = before === undefined ? '' : ` (was ${(JSON.parse(before) as [string])[0]})`;
    await d.slack.post(d.channel, { text: `schedule: ${r.text}`, blocks: [section(`:repeat: scheduled probe of *${esc(name)}*: the verdict changed${esc(was)}`), ...r.blocks.slice(0, 49)] });
    d.log('info', 'schedule.changed', { site: name, verdict: report.verdict.status });
  };

  const round = async (): Promise<void> => {
    for (const s of d.fleet.siteNames) {
      if (stopped) return;
      try {
        await site(s);
      } catch (err) {
        d.log('warn', 'schedule.failed', { site: s, why: err instanceof Error ? (err.message.split('\n')[0] ?? '') : String(err) });
      }
    }
  };

  const arm = (): void => {
    if (stopped) return;
    timer = setTimer(() => {
      inFlight = round().finally(arm);
    }, d.everyMs);
  };
  arm();
  return {
    round: () => (inFlight = round()),
    stop: () => {
      stopped = true;
      timer?.cancel();
    },
    idle: () => inFlight,
  };
}
