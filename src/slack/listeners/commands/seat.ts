// `/seat …`: acked at once (a refusal or usage rides on the ack); the probe, or the incident verb, runs after the ack.
// A probe waits its turn in the bot's probe queue (probe-flow.ts): nothing on the ack's path waits for it.
import type { SlackCommandMiddlewareArgs } from '@slack/bolt';
import type { ProbeRequest } from '../../../commands/probe.ts';
import { channelAllowed, userAllowed } from '../../authz.ts';
import type { SeatContext, WebClient } from '../../context.ts';
import { joinedReply, probeIntoMessage } from '../../probe-flow.ts';
import { parseSlackText } from '../../text.ts';
import { diagnosePaste, pastedLog } from './diagnose.ts';
import { incidentCommand } from './incident.ts';
import { SLACK_USAGE, slackHelp } from '../../usage.ts';

export type SeatCommandArgs = Pick<SlackCommandMiddlewareArgs, 'command' | 'ack' | 'respond'> & { client: WebClient };

export async function seatCommand({ command, ack, respond, client }: SeatCommandArgs, ctx: SeatContext): Promise<void> {
  // A replayed request (the same signed body again, within the five minutes Bolt accepts) runs nothing.
  if (!ctx.replays.first(command.trigger_id)) {
    ctx.log.info(`replayed /seat request ignored (trigger_id ${command.trigger_id}, user ${command.user_id})`);
    return ack();
  }
  const inv = ctx.fleet.inventory;
  const chan = channelAllowed(inv, command.channel_id);
  if (!chan.ok) return ack({ response_type: 'ephemeral', text: `:no_entry: ${chan.reason}` });
  // A pasted log keeps its line breaks and its length: it does not go through the one-line grammar.
  const paste = pastedLog(command.text);
  if (paste !== null) {
    await ack();
    ctx.track(diagnosePaste(paste, respond, { ctx, client, channel: command.channel_id }));
    return;
  }
  const parsed = parseSlackText(command.text, ctx.fleet.siteNames);
  if (!parsed.ok) return ack({ response_type: 'ephemeral', text: `:x: ${parsed.error}\n\`\`\`${SLACK_USAGE}\`\`\`` });
  const cmd = parsed.command;
  if (cmd.verb === 'probe' && cmd.json) {
    return ack({ response_type: 'ephemeral', text: ':x: --json is for the terminal (`seat probe ... --json`); in Slack the report is the message' });
  }
  if (cmd.verb === 'help') return ack({ response_type: 'ephemeral', text: `\`\`\`${(cmd.topic && slackHelp(cmd.topic)) || SLACK_USAGE}\`\`\`` });
  if (cmd.verb !== 'probe') {
    // Who may record is asked after the ack (a user group is a Web API call); reading is open.
    await ack();
    const req = { cmd, user: { id: command.user_id, name: command.user_name }, channel: command.channel_id, triggerId: command.trigger_id, client, respond };
    ctx.track(incidentCommand(req, ctx));
    return;
  }
  const quick = inv.oncall.users.includes(command.user_id);
  if (!quick && !inv.oncall.userGroup) {
    const who = await userAllowed(inv, command.user_id, {});
    return ack({ response_type: 'ephemeral', text: `:no_entry: ${who.ok ? '' : who.reason}` });
  }
  const req: ProbeRequest = { site: cmd.site, only: cmd.only, timeoutMs: cmd.timeoutMs, paid: cmd.paid };
  // The same probe already queued or running here: joined, and said on the ack (no Slack call after it).
  const joined = quick ? joinedReply(ctx, command.channel_id, req) : null;
  if (joined) return ack({ response_type: 'ephemeral', text: joined });
  await ack();
  ctx.track(
    (async () => {
      if (!quick) {
        const who = await userAllowed(inv, command.user_id, { groupMembers: (g) => ctx.groupMembers(client, g) });
        if (!who.ok) {
          await respond({ response_type: 'ephemeral', text: `:no_entry: ${who.reason}` });
          return;
        }
      }
      await probeIntoMessage(ctx, { client, channel: command.channel_id, ts: undefined, req, askedBy: command.user_id, respond });
    })(),
  );
}
