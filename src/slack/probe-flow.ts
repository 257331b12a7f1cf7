// One probe into one channel message: posted when the runner says how many tasks there are
// ("probing fv: 0 of N"), updated as findings arrive, then replaced by the report (delivery.ts).
import type { RespondFn } from '@slack/bolt';
import { runProbe, type ProbeReport, type ProbeRequest } from '../commands/probe.ts';
import type { Finding } from '../probes/types.ts';
import { renderProgress, renderReport } from './blocks.ts';
import type { SeatContext, WebClient } from './context.ts';
import { ChannelMessage, deliverReport, tell } from './delivery.ts';
import { slackAdvice } from './errors.ts';
import { esc, section } from './mrkdwn.ts';
import { throttle } from './throttle.ts';

export interface ProbeIntoMessage {
  client: WebClient;
  channel: string;
  /** The message to update (Probe again); none: a new one is posted. */
  ts: string | undefined;
  req: ProbeRequest;
  askedBy: string;
  respond: RespondFn | undefined;
}

export async function probeIntoMessage(ctx: SeatContext, args: ProbeIntoMessage): Promise<void> {
  const { client, channel, req, askedBy, respond } = args;
  const d = { client, log: ctx.log, sleep: ctx.sleep, respond };
  const msg = new ChannelMessage(client, channel, args.ts, ctx.log);
  const findings: Finding[] = [];

  // The runner's 'start' event carries the task count: the probe is planned once, by the run itself.
  let opened: Promise<void> = Promise.resolve();
  const open = async (total: number): Promise<void> => {
    const code = await msg.open(renderProgress(req.site, 0, total, [], askedBy), respond !== undefined);
    if (code) await tell(d, `:warning: could not post in this channel (${code}): ${slackAdvice(code)}.`);
  };
  const progress = throttle<{ done: number; total: number }>(async ({ done, total }) => {
    await opened;
    await msg.update('progress', renderProgress(req.site, done, total, findings, askedBy)).catch(() => false);
  }, ctx.updateIntervalMs);

  let report: ProbeReport;
  try {
    report = await runProbe(ctx.fleet, req, {
      ...ctx.probeDeps,
      onEvent: (e) => {
        if (e.type === 'start') {
          opened = open(e.total);
          return;
        }
        findings.push(...e.findings);
        progress.push({ done: e.done, total: e.total });
      },
    });
  } catch (err) {
    await opened;
    await progress.flush();
    const why = err instanceof Error ? (err.message.split('\n')[0] ?? '') : String(err);
    ctx.log.error(`probe of ${req.site} failed: ${why}`);
    const text = `:x: the probe of ${esc(req.site)} could not finish (${esc(why)}); run \`seat probe ${esc(req.site)}\` in a terminal`;
    const posted = await msg.update('failure', { text, blocks: [section(text)] }).catch(() => false);
    if (!posted) await tell(d, text);
    return;
  }
  await opened;
  await progress.flush();
  await deliverReport(d, msg, report, renderReport(report, req, askedBy), req, askedBy);
}
