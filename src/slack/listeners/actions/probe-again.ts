// The Probe again button: re-runs the probe the button carries into the same message, and says
// who asked. It waits its turn in the same probe queue as /seat probe (probe-flow.ts), its place
// shown in the clicked message. A double click runs one probe; a replayed click runs none.
import type { SlackActionMiddlewareArgs } from '@slack/bolt';
import { z } from 'zod';
import { PROBE_GROUPS } from '../../../probes/types.ts';
import { channelAllowed, userAllowed } from '../../authz.ts';
import type { SeatContext, WebClient } from '../../context.ts';
import { probeIntoMessage } from '../../probe-flow.ts';

const ProbeAgainValue = z.strictObject({
  site: z.string(),
  only: z.array(z.enum(PROBE_GROUPS as unknown as ['aliases', 'gpus', 'power'])).min(1),
  timeoutMs: z.number().int().min(50).max(120_000).nullable(),
  paid: z.boolean(),
});

export type ProbeAgainArgs = Pick<SlackActionMiddlewareArgs, 'ack' | 'body' | 'action' | 'respond'> & { client: WebClient };

export async function probeAgain({ ack, body, action, client, respond }: ProbeAgainArgs, ctx: SeatContext): Promise<void> {
  await ack();
  if (body.type !== 'block_actions' || action.type !== 'button') return;
  if (!ctx.replays.first(body.trigger_id)) {
    ctx.log.info(`replayed Probe again ignored (trigger_id ${body.trigger_id}, user ${body.user.id})`);
    return;
  }
  const say = (text: string): Promise<unknown> => respond({ response_type: 'ephemeral', replace_original: false, text });
  const user = body.user.id;
  const channel = body.channel?.id ?? body.container?.channel_id;
  // A click on an ephemeral report (the fallback path) has no message to update: post a new one.
  const ts: string | undefined = body.message?.ts;
  if (!channel) {
    await say(':x: this button has lost its channel; run /seat probe again');
    return;
  }
  const inv = ctx.fleet.inventory;
  const chan = channelAllowed(inv, channel);
  const who = chan.ok ? await userAllowed(inv, user, { groupMembers: (g) => ctx.groupMembers(client, g) }) : chan;
  if (!who.ok) {
    await say(`:no_entry: ${who.reason}`);
    return;
  }
  const req = ProbeAgainValue.safeParse(safeJson(action.value));
  if (!req.success || (req.data.site !== 'all' && !ctx.fleet.site(req.data.site))) {
    await say(':x: this button belongs to an older inventory; run /seat probe again');
    return;
  }
  const key = `${channel}:${ts ?? user}`;
  if (ctx.busyMessages.has(key)) {
    await say(':hourglass: already probing into this message');
    return;
  }
  ctx.busyMessages.add(key);
  ctx.track(probeIntoMessage(ctx, { client, channel, ts, req: req.data, askedBy: user, respond }).finally(() => ctx.busyMessages.delete(key)));
}

function safeJson(s: string | undefined): unknown {
  try {
    return JSON.parse(s ?? '');
  } catch {
    return undefined;
  }
}
