// Getting a report to the person whatever Slack refuses: the final update of the channel message,
// one wait of Slack's Retry-After, the verdict alone when the blocks are refused, a plain-text
// notice when nothing else lands, the report privately by response_url, and the full plain-text
// report uploaded into the thread. The wait is injected: tests do not sleep.
import type { Logger, RespondFn } from '@slack/bolt';
import type { ProbeReport, ProbeRequest } from '../commands/probe.ts';
import { reportText } from '../render/report.ts';
import { headlineText, renderVerdictOnly, withoutAttachment, type Rendered } from './blocks.ts';
import { slackErrorCode } from './errors.ts';
import { section } from './mrkdwn.ts';
import { retryAfterMs, type WebClient } from './web-client.ts';

/** Errors that mean Slack would not take these blocks, whatever we retry. */
const BLOCKS_REFUSED = new Set(['invalid_blocks', 'invalid_blocks_format', 'msg_too_long', 'too_many_blocks']);

export interface View {
  text: string;
  blocks: Rendered['blocks'];
}

/** The one channel message a probe runs into; forgets it once Slack says it is gone. */
export class ChannelMessage {
  constructor(
    private readonly client: WebClient,
    readonly channel: string,
    public ts: string | undefined,
    private readonly log: Logger,
  ) {}

  /** Posts the first view (or replaces the clicked message with it); the error code when it failed. */
  async open(view: View, keepOnFailure: boolean): Promise<string | null> {
    try {
      if (this.ts) await this.client.chat.update({ channel: this.channel, ts: this.ts, text: view.text, blocks: view.blocks });
      else this.ts = (await this.client.chat.postMessage({ channel: this.channel, text: view.text, blocks: view.blocks })).ts;
      return null;
    } catch (err) {
      const code = slackErrorCode(err);
      this.log.warn(`chat.${this.ts ? 'update' : 'postMessage'} in ${this.channel} failed: ${code}`);
      if (!keepOnFailure || code === 'message_not_found') this.ts = undefined;
      return code;
    }
  }

  /** chat.update; throws Slack's error, after forgetting a message Slack no longer has. */
  async update(what: string, view: View): Promise<boolean> {
    if (!this.ts) return false;
    try {
      await this.client.chat.update({ channel: this.channel, ts: this.ts, text: view.text, blocks: view.blocks });
      return true;
    } catch (err) {
      const code = slackErrorCode(err);
      this.log.warn(`chat.update (${what}) failed: ${code}`);
      if (code === 'message_not_found' || code === 'channel_not_found') this.ts = undefined;
      throw err;
    }
  }
}

export interface DeliveryDeps {
  client: WebClient;
  log: Logger;
  sleep: (ms: number) => Promise<void>;
  respond: RespondFn | undefined;
}

/** An ephemeral line to the person who asked; a failure is logged, never thrown. */
export async function tell(d: Pick<DeliveryDeps, 'respond' | 'log'>, text: string): Promise<void> {
  if (!d.respond) return;
  try {
    await d.respond({ response_type: 'ephemeral', replace_original: false, text });
  } catch (err) {
    d.log.warn(`respond failed: ${slackErrorCode(err)}`);
  }
}

const codeOf = (e: unknown): string => slackErrorCode(e);

export async function deliverReport(d: DeliveryDeps, msg: ChannelMessage, report: ProbeReport, first: Rendered, req: ProbeRequest, askedBy: string): Promise<void> {
  let view = first;
  let failure: string | null = null;
  try {
    await msg.update('final report', view);
  } catch (err) {
    failure = codeOf(err);
    const wait = retryAfterMs(err);
    if (msg.ts && wait !== null) {
      await d.sleep(wait);
      failure = await msg.update('final report, retried', view).then(() => null, codeOf);
    } else if (msg.ts && BLOCKS_REFUSED.has(failure)) {
      view = renderVerdictOnly(report, req, askedBy);
      failure = await msg.update('final report, verdict only', view).then(() => null, codeOf);
    }
  }
  if (failure === null && msg.ts) {
    if (view.attach) await attachFullReport(d, msg.channel, msg.ts, report, req);
    return;
  }
  if (msg.ts && failure !== null) {
    // The channel message must not stay on "probing…": a plain-text update (no blocks to refuse)
    // with the verdict says where the report went.
    const text = `${headlineText(report)} — the full report could not be posted here (${failure}); it was sent privately to <@${askedBy}>`;
    await msg.update('final report, plain text', { text, blocks: [section(text)] }).catch(() => false);
  }
  await privately(d, report, view, failure);
}

/** The report by response_url: the only path left when the channel will not take it. */
async function privately(d: DeliveryDeps, report: ProbeReport, view: Rendered, failure: string | null): Promise<void> {
  const note = failure ? `:warning: the report could not be posted in the channel (${failure}); here it is:` : null;
  try {
    await d.respond?.({
      response_type: 'ephemeral',
      replace_original: false,
      text: note ? `${note} ${view.text}` : view.text,
      blocks: [...(note ? [section(note)] : []), ...withoutAttachment(view.blocks, report.site)],
    });
  } catch (err) {
    d.log.error(`the report could not be delivered by any path: ${slackErrorCode(err)}`);
  }
}

/** The whole plain-text report, every row, as a file in the message's thread. */
async function attachFullReport(d: DeliveryDeps, channel: string, ts: string, report: ProbeReport, req: ProbeRequest): Promise<void> {
  try {
    await d.client.files.uploadV2({
      channel_id: channel,
      thread_ts: ts,
      content: reportText(report, { all: true, scope: req }),
      filename: `seat-probe-${report.site}-${report.startedAt.replace(/[:.]/g, '')}.txt`,
      title: `Full probe report: ${report.site}`,
    });
  } catch (err) {
    const code = slackErrorCode(err);
    d.log.warn(`files.uploadV2 failed: ${code}`);
    await tell(d, `:warning: the full report could not be attached (${code}): run \`seat probe ${report.site} --all\` in a terminal for all of it.`);
  }
}
