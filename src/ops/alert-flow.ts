// What an Alertmanager notification does. Its group key is one message in the alert channel (and,
// with incidents.autoOpen, one incident): the first notification posts it, a repeat or a
// re-notification re-probes and updates the same message (chat.update), `resolved` is noted in the
// journal and the message's thread. A firing alert is mapped to the inventory (alert-map.ts); the
// mapped site is probed (only the GPUs for a GPU alert, the aliases for an alias's) and the report
// is posted with the alert's summary and the runbook it proposes. An alert that maps to nothing is
// posted once, as such. no-poll-dark-site holds: a site an open incident found dark is noted, not
// re-probed. Every store and service call is awaited; one group key is handled one at a time.
import type { types } from '@slack/bolt';
import type { ProbeReport, ProbeRequest } from '../commands/probe.ts';
import { darkHold } from '../guardrails/no-poll-dark-site.ts';
import type { IncidentService } from '../incident/service.ts';
import type { Actor } from '../incident/types.ts';
import type { Fleet } from '../inventory/fleet.ts';
import type { AlertsSettings } from '../inventory/schema.ts';
import type { JournalStore } from '../journal/store.ts';
import { isoSecond } from '../render/time.ts';
import { renderReport, renderVerdictOnly, MAX_BLOCKS } from '../slack/blocks.ts';
import { esc, fit, section } from '../slack/mrkdwn.ts';
import { DEFAULT_LABELS, mapAlert, type AlertTarget } from './alert-map.ts';
import { clean, ended, type Alert, type Webhook } from './alert-payload.ts';
import type { OpsLog } from './log.ts';

type KnownBlock = types.KnownBlock;
export interface View {
  text: string;
  blocks: KnownBlock[];
}

/** What the flow needs of Slack: a post (in a thread when given) and an update; errors as codes, never throws. */
export interface AlertSlack {
  post(channel: string, view: View, thread?: string): Promise<{ ts: string } | { error: string }>;
  update(channel: string, ts: string, view: View): Promise<boolean>;
}

export interface AlertFlowDeps {
  fleet: Fleet;
  /** The alert channel (alerts.channel, else the first of oncall.channels). */
  channel: string;
  labels?: AlertsSettings['labels'];
  /** incidents.autoOpen: a firing group opens an incident whose first event after the opening is the alert. */
  autoOpen: boolean;
  slack: AlertSlack;
  /** Runs one probe, through the bot's probe queue (its report reaches /metrics too). */
  probe(req: ProbeRequest): Promise<ProbeReport>;
  /** The journal and the incident service, once the bot has them; null without a journal. */
  journal(): { store: JournalStore; service: IncidentService } | null;
  now(): Date;
  log: OpsLog;
}

/** One group key's message, incident and what was last done. */
interface Group {
  ts?: string;
  incident?: number;
  /** An unmapped group is posted once. */
  unmapped?: boolean;
  /** The last notification's status: a resolution is noted once per firing. */
  status?: 'firing' | 'resolved';
  /** The last view posted, so an unchanged one is not sent again. */
  last?: string;
}

export const ALERT_ACTOR: Actor = { kind: 'system' };
const MAX_GROUPS = 1000;

export interface AlertFlow {
  handle(w: Webhook): Promise<void>;
  /** What is kept per group key (tests read it). */
  readonly groups: ReadonlyMap<string, Readonly<Group>>;
}

export function createAlertFlow(d: AlertFlowDeps): AlertFlow {
  const groups = new Map<string, Group>();
  const chains = new Map<string, Promise<void>>();
  const labels = d.labels ?? DEFAULT_LABELS;

  const handle = (w: Webhook): Promise<void> => {
    const prev = chains.get(w.groupKey) ?? Promise.resolve();
    const next = prev.then(() => one(w)).finally(() => {
      if (chains.get(w.groupKey) === next) chains.delete(w.groupKey);
    });
    chains.set(w.groupKey, next.catch(() => {}));
    return next;
  };

  const one = async (w: Webhook): Promise<void> => {
    let g = groups.get(w.groupKey);
    if (!g) {
      g = {};
      groups.set(w.groupKey, g);
      for (const k of groups.keys()) if (groups.size > MAX_GROUPS) groups.delete(k);
    }
    const now = d.now();
    const firing = w.alerts.filter((a) => !ended(a, now)).sort((a, b) => Date.parse(a.startsAt) - Date.parse(b.startsAt));
    if (firing.length === 0) return resolved(w, g);
    g.status = 'firing';
    const mapped = firing.map((a) => ({ alert: a, target: mapAlert(d.fleet, a.labels, labels) }));
    const first = mapped.find((m) => m.target.ok);
    if (!first?.target.ok) {
      if (g.unmapped) return;
      g.unmapped = true;
      const why = mapped[0]?.target.ok === false ? mapped[0].target.why : 'no alert';
      const text = `:grey_question: ${header(w, firing[0]!)}\nIt maps to nothing in the inventory: ${fit(why, 400)}. Nothing was probed. (Map it with labels ${[labels.site, labels.host, labels.alias, labels.gpu].join(', ')}, or alerts.labels in the inventory.)`;
      await show(g, { text: `Alert ${alertName(firing[0]!)}: maps to nothing in the inventory`, blocks: [section(text)] });
      d.log('info', 'alert.unmapped', { alertname: clean(alertName(firing[0]!), 80) });
      return;
    }
    const { alert, target } = { alert: first.alert, target: first.target.value };
    const others = [...new Set(mapped.filter((m) => m.target.ok && m.target.value.site !== target.site).map((m) => (m.target.ok ? m.target.value.site : '')))];
    const j = d.journal();
    const dark = j && target.site !== 'all' ? await darkSite(j.store, d.fleet, target.site, now) : null;
    if (j && dark) {
      const text = `:new_moon: ${header(w, alert)}\nSite *${esc(target.site)}* was found dark at every address at ${dark.at} (incident #${dark.incident}): it is not re-probed before ${dark.until} (no-poll-dark-site). Ask a person at the site to reset the UPS; work from the last probe meanwhile.`;
      await show(g, { text: `Alert ${alertName(alert)}: site ${target.site} is held dark, not re-probed`, blocks: [section(text)] });
      await j.store.append({ incident: dark.incident, kind: 'note', actor: ALERT_ACTOR, happenedAt: now.toISOString(), payload: { text: `alert ${clean(alertName(alert), 120)} for site ${target.site}: not re-probed (no-poll-dark-site, dark since ${dark.at})`, alert: alertFacts(w, alert) }, dedupe: `alertmanager:${w.groupKey}:${alert.fingerprint}:${alert.startsAt}:dark` });
      d.log('info', 'alert.dark', { site: target.site, incident: dark.incident });
      return;
    }
    const req: ProbeRequest = { site: target.site, only: target.only, timeoutMs: null, paid: false };
    const report = await d.probe(req);
    const view = alertView(w, alert, target, report, req, others, g.incident);
    await show(g, view);
    d.log('info', 'alert.reported', { site: target.site, verdict: report.verdict.status, only: target.only.join(',') });
    if (j && d.autoOpen) await incidentOf(j, w, alert, target, report, g);
    else if (j && g.incident !== undefined) await j.service.attachReport(g.incident, report);
  };

  /** Posts the group's message, or updates it; an unchanged view is not sent again. */
  const show = async (g: Group, view: View): Promise<void> => {
    const key = JSON.stringify(view);
    if (g.ts && g.last === key) return;
    if (g.ts && (await d.slack.update(d.channel, g.ts, view))) {
      g.last = key;
      return;
    }
    const r = await d.slack.post(d.channel, view);
    if ('ts' in r) {
      g.ts = r.ts;
      g.last = key;
    } else d.log('warn', 'alert.post_failed', { channel: d.channel, code: r.error });
  };

  /** incidents.autoOpen: one incident per group key (the journal's dedupe holds it across restarts). */
  const incidentOf = async (j: { store: JournalStore; service: IncidentService }, w: Webhook, alert: Alert, target: AlertTarget, report: ProbeReport, g: Group): Promise<void> => {
    if (g.incident !== undefined) {
      await j.service.attachReport(g.incident, report);
      return;
    }
    if (target.site === 'all') return;
    const title = fit(`${alertName(alert)}: ${summaryOf(alert) || target.what}`, 190);
    const r = await j.service.open({ site: target.site, title, actor: ALERT_ACTOR, dedupe: `alertmanager:${w.groupKey}`, ...(g.ts ? { slack: { channel: d.channel, thread: g.ts } } : {}) });
    if ('error' in r) {
      d.log('warn', 'alert.incident_refused', { why: r.error });
      return;
    }
    g.incident = r.incident.id;
    // The alert first, dated when it began firing (time to detect counts from it), then what the probe found.
    await j.store.append({ incident: r.incident.id, kind: 'note', actor: ALERT_ACTOR, happenedAt: new Date(Date.parse(alert.startsAt)).toISOString(), payload: { text: `alert ${clean(alertName(alert), 120)} firing since ${alert.startsAt}: ${clean(summaryOf(alert), 500)}`, alert: alertFacts(w, alert) }, dedupe: `alertmanager:${w.groupKey}:alert` });
    await j.service.attachReport(r.incident.id, report);
    if (r.duplicate) {
      if (!g.ts && r.incident.slack) g.ts = r.incident.slack.thread;
      return;
    }
    const runbook = report.verdict.runbook;
    const line = `:rotating_light: incident #${r.incident.id} opened from this alert (site ${esc(target.site)}); its journal begins with the alert at ${isoSecond(Date.parse(alert.startsAt))}.${runbook ? ` Proposed runbook: *${esc(runbook)}* — \`/seat runbook start ${esc(runbook)} ${r.incident.id}\`` : ''}`;
    if (g.ts) await d.slack.post(d.channel, { text: `incident #${r.incident.id} opened`, blocks: [section(line)] }, g.ts);
    d.log('info', 'alert.incident_opened', { incident: r.incident.id, site: target.site });
  };

  const resolved = async (w: Webhook, g: Group): Promise<void> => {
    if (g.status === 'resolved') return;
    g.status = 'resolved';
    const alert = w.alerts[0]!;
    const endsAt = w.alerts.map((a) => a.endsAt).sort().at(-1) ?? alert.endsAt;
    const text = `:white_check_mark: resolved (Alertmanager): ${fit(alertName(alert), 120)}${w.alerts.length > 1 ? ` and ${w.alerts.length - 1} more` : ''}, ended ${fit(endsAt, 40)}`;
    const j = d.journal();
    if (j && g.incident !== undefined) {
      await j.store.append({ incident: g.incident, kind: 'note', actor: ALERT_ACTOR, happenedAt: validIso(endsAt) ?? d.now().toISOString(), payload: { text: `alert ${clean(alertName(alert), 120)} resolved at ${endsAt}`, alert: alertFacts(w, alert) }, dedupe: `alertmanager:${w.groupKey}:resolved:${endsAt}` });
    }
    if (g.ts) await d.slack.post(d.channel, { text, blocks: [section(text)] }, g.ts);
    else await show(g, { text, blocks: [section(text)] });
    d.log('info', 'alert.resolved', { incident: g.incident ?? null });
  };

  return { handle, groups };
}

export function alertName(a: Alert): string {
  return a.labels.alertname ?? 'alert';
}

function summaryOf(a: Alert): string {
  return a.annotations.summary ?? a.annotations.description ?? '';
}

function validIso(s: string): string | null {
  const t = Date.parse(s);
  return Number.isFinite(t) && t > 0 ? new Date(t).toISOString() : null;
}

/** The alert's name, summary and start, for a person (peer text cleaned and escaped). */
function header(w: Webhook, a: Alert): string {
  const summary = summaryOf(a);
  const n = w.alerts.length;
  return `*Alertmanager*: *${fit(alertName(a), 120)}*${summary ? ` — ${fit(summary, 600)}` : ''}\nfiring since ${fit(a.startsAt, 40)}${n > 1 ? ` · ${n} alerts in the group` : ''}`;
}

function alertView(w: Webhook, a: Alert, target: AlertTarget, report: ProbeReport, req: ProbeRequest, others: string[], incident: number | undefined): View {
  const runbook = report.verdict.runbook;
  const lines = [
    `:bell: ${header(w, a)} · about ${esc(target.what)}${target.only.length === 1 ? ` (probed: ${target.only[0]} only)` : ''}`,
    ...(runbook ? [`Proposed runbook: *${esc(runbook)}*${incident !== undefined ? ` (incident #${incident})` : ''}`] : []),
    ...(others.length > 0 ? [`Also in this group, not probed here: ${others.map(esc).join(', ')} (group by ${DEFAULT_LABELS.site} in Alertmanager's route for one message each)`] : []),
  ];
  const head = section(lines.join('\n'));
  const full = renderReport(report, req);
  const body = full.blocks.length + 1 <= MAX_BLOCKS ? full.blocks : renderVerdictOnly(report, req).blocks;
  return { text: `Alert ${clean(alertName(a), 80)}: ${full.text}`, blocks: [head, ...body] };
}

function alertFacts(w: Webhook, a: Alert): Record<string, unknown> {
  const capped = (r: Record<string, string>): Record<string, string> => Object.fromEntries(Object.entries(r).slice(0, 32).map(([k, v]) => [clean(k, 64), clean(v, 500)]));
  return { groupKey: clean(w.groupKey, 300), status: a.status, fingerprint: a.fingerprint, startsAt: a.startsAt, endsAt: a.endsAt, labels: capped(a.labels), annotations: capped(a.annotations) };
}

/** The open incident that holds the site dark now (no-poll-dark-site), read through the async store. */
export async function darkSite(store: JournalStore, fleet: Fleet, site: string, now: Date): Promise<{ incident: number; at: string; until: string } | null> {
  for (const i of await store.incidents({ status: 'open' })) {
    const hold = darkHold(await store.events(i.id), site, fleet, now);
    if (hold) return { incident: i.id, at: isoSecond(hold.at), until: isoSecond(hold.until) };
  }
  return null;
}
