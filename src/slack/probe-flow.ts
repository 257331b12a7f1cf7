// One probe into one channel message. A probe that has to wait for a slot (probe-queue.ts) posts
// its place in line ("queued: 2 probes ahead of yours"); when it starts, the runner's start event
// says how many tasks there are ("probing fv: 0 of N") and the same message shows it; it is
// updated as findings arrive, then replaced by the report (delivery.ts). The same probe asked again
// in the same channel while one is queued or running is joined, not run twice.
import type { RespondFn } from '@slack/bolt';
import type { ProbeReport, ProbeRequest } from '../commands/probe.ts';
import { darkRefusal, gateProbe, skippedLine, type ProbeGate } from '../guardrails/dark-site-probe.ts';
import type { Actor } from '../incident/types.ts';
import type { Finding } from '../probes/types.ts';
import { renderProgress, renderReport } from './blocks.ts';
import type { ProbeInFlight, SeatContext, WebClient } from './context.ts';
import { ChannelMessage, deliverReport, tell, type View } from './delivery.ts';
import { slackAdvice } from './errors.ts';
import { esc, section } from './mrkdwn.ts';
import type { Place } from './probe-queue.ts';
import { throttle } from './throttle.ts';
import { who } from './who.ts';

export interface ProbeIntoMessage {
  client: WebClient;
  channel: string;
  /** The message to update (Probe again); none: a new one is posted. */
  ts: string | undefined;
  req: ProbeRequest;
  askedBy: string;
  respond: RespondFn | undefined;
}

/**
 * What makes two probes the same: the channel the report lands in, the site and the groups, and
 * whether paid aliases are exercised. The timeout is left out: the probe already on its way answers
 * the same question.
 */
export function probeKey(channel: string, req: ProbeRequest): string {
  return JSON.stringify([channel, req.site, [...new Set(req.only)].sort(), req.paid]);
}

/** What to tell someone whose probe joins one already queued or running in that channel; null: none is. */
export function joinedReply(ctx: Pick<SeatContext, 'probing'>, channel: string, req: ProbeRequest): string | null {
  const same = ctx.probing.get(probeKey(channel, req));
  return same ? joinedText(req, same) : null;
}

export async function probeIntoMessage(ctx: SeatContext, args: ProbeIntoMessage): Promise<void> {
  const { channel, askedBy } = args;
  // no-poll-dark-site holds here too: a site an open incident found dark is not re-probed in its window; `all` skips it.
  const gate = await darkGate(ctx, args.req.site);
  if (!gate.ok) {
    await tell({ respond: args.respond, log: ctx.log }, `:no_entry: ${slackLine(darkRefusal(gate.dark, '/seat', () => WHO), gate.dark.by)}`);
    return;
  }
  for (const d of gate.skipped) await tell({ respond: args.respond, log: ctx.log }, `:information_source: ${slackLine(skippedLine([d], () => WHO), d.by)}`);
  const req: ProbeRequest = gate.skipped.length > 0 ? { ...args.req, skipSites: gate.skipped.map((d) => d.site) } : args.req;
  const key = probeKey(channel, req);
  const same = ctx.probing.get(key);
  if (same) {
    await tell({ respond: args.respond, log: ctx.log }, joinedText(req, same));
    return;
  }
  const mine: ProbeInFlight = { askedBy, started: false };
  ctx.probing.set(key, mine);
  try {
    await queuedProbe(ctx, args, mine, req);
  } finally {
    ctx.probing.delete(key);
  }
}

async function queuedProbe(ctx: SeatContext, args: ProbeIntoMessage, mine: ProbeInFlight, run: ProbeRequest): Promise<void> {
  const { client, channel, req, askedBy, respond } = args;
  const d = { client, log: ctx.log, sleep: ctx.sleep, respond };
  const msg = new ChannelMessage(client, channel, args.ts, ctx.log);
  const findings: Finding[] = [];

  // Views of the one message, in order: the place in line (if it waits), then "probing … 0 of N".
  let opened: Promise<void> = Promise.resolve();
  let told: string | null = null;
  const show = (view: View): void => {
    opened = opened.then(async () => {
      const code = await msg.open(view, respond !== undefined);
      if (code && code !== told) {
        told = code;
        await tell(d, `:warning: could not post in this channel (${code}): ${slackAdvice(code)}.`);
      }
    });
  };
  const progress = throttle<{ done: number; total: number }>(async ({ done, total }) => {
    await opened;
    await msg.update('progress', renderProgress(req.site, done, total, findings, askedBy)).catch(() => false);
  }, ctx.updateIntervalMs);

  // The slot is held while the probe runs, not while Slack takes the report.
  const outcome = await ctx.probes.run(
    () =>
      ctx
        .runProbe(ctx.fleet, run, {
          ...ctx.probeDeps,
          // The runner's 'start' event carries the task count: the probe is planned once, by the run itself.
          onEvent: (e) => {
            if (e.type === 'start') {
              mine.started = true;
              show(renderProgress(req.site, 0, e.total, [], askedBy));
              // "0 of N" is the first view: progress follows a second later, so a probe done within
              // the second goes straight to its report (one Slack call fewer, no flicker).
              progress.sent();
              return;
            }
            findings.push(...e.findings);
            progress.push({ done: e.done, total: e.total });
          },
        })
        .then(
          (report): { report: ProbeReport } => ({ report }),
          (err: unknown) => ({ err }),
        ),
    (place) => show(queuedView(req, place, askedBy)),
  );
  await opened;
  await progress.flush();
  if ('err' in outcome) {
    const { err } = outcome;
    const why = err instanceof Error ? (err.message.split('\n')[0] ?? '') : String(err);
    ctx.log.error(`probe of ${req.site} failed: ${why}`);
    const text = `:x: the probe of ${esc(req.site)} could not finish (${esc(why)}); run \`seat probe ${esc(req.site)}\` in a terminal`;
    const posted = await msg.update('failure', { text, blocks: [section(text)] }).catch(() => false);
    if (!posted) await tell(d, text);
    return;
  }
  if (ctx.detected) {
    // Only the latest report of a site per channel is kept: what a Start runbook press on it was led by.
    ctx.detected.delete(detectedKey(channel, outcome.report.site));
    ctx.detected.set(detectedKey(channel, outcome.report.site), outcome.report);
    for (const k of ctx.detected.keys()) if (ctx.detected.size > 64) ctx.detected.delete(k);
  }
  await deliverReport(d, msg, outcome.report, renderReport(outcome.report, req, askedBy), req, askedBy);
}

/** Where the last report of a site in a channel is kept (SeatContext.detected). */
export const detectedKey = (channel: string, site: string): string => `${channel} ${site}`;

const WHO = '\u0001who\u0001';

/** The open incidents' dark sites; no journal, no hold (nothing to read it from). */
async function darkGate(ctx: SeatContext, site: string): Promise<ProbeGate> {
  const service = ctx.incidents;
  if ('missing' in service) return { ok: true, skipped: [] };
  return gateProbe(service.deps.store, ctx.fleet, site, service.deps.now());
}

/** Plain words escaped for mrkdwn, the person who declared the site dark as a mention. */
function slackLine(text: string, by: Actor): string {
  return esc(text).split(WHO).join(who(by));
}

const scopeOf = (req: ProbeRequest): string => `${esc(req.site)} (${req.only.join(', ')}${req.paid ? ', paid' : ''})`;

/** The message that will become the report, while the probe waits for a slot. */
export function queuedView(req: ProbeRequest, place: Place, askedBy: string): View {
  const ahead = place.ahead === 0 ? 'next to start' : `${place.ahead} probe${place.ahead === 1 ? '' : 's'} ahead of yours`;
  const text = `queued: ${ahead} (probe of ${scopeOf(req)}; ${place.running} running, at most ${place.limit} at once)`;
  return { text, blocks: [section(`:hourglass: *${text}*  (asked by <@${askedBy}>)`)] };
}

function joinedText(req: ProbeRequest, same: ProbeInFlight): string {
  return `:link: a probe of ${scopeOf(req)} asked by <@${same.askedBy}> is already ${same.started ? 'running' : 'queued'} in this channel: its message will carry the report, so it is not run twice`;
}
