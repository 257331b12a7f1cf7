// The probe report's "Start runbook <id>" button: the same as `/seat runbook start <id> --site <site>`
// typed by the person who pressed it (on-call only), with the verdict as the new incident's title.
import type { BlockAction, ButtonAction, SlackActionMiddlewareArgs } from '@slack/bolt';
import { z } from 'zod';
import type { SeatContext, WebClient } from '../../context.ts';
import { tellByResponse } from '../../incident-flow.ts';
import type { ProbeReport } from '../../../commands/probe.ts';
import { detectedKey } from '../../probe-flow.ts';
import { incidentCommand } from '../commands/incident.ts';

const Value = z.strictObject({ runbook: z.string().regex(/^[a-z][a-z0-9-]{0,62}$/), site: z.string().min(1).max(63), title: z.string().min(1).max(200) });

export type StartRunbookArgs = Pick<SlackActionMiddlewareArgs, 'ack' | 'body' | 'action' | 'respond'> & { client: WebClient };

export async function startRunbook({ ack, body, action, respond, client }: StartRunbookArgs, ctx: SeatContext): Promise<void> {
  await ack();
  if (body.type !== 'block_actions' || action.type !== 'button') return;
  const b = body as BlockAction;
  if (!ctx.replays.first(b.trigger_id)) return;
  const parsed = Value.safeParse(safeJson((action as ButtonAction).value));
  const channel = b.channel?.id ?? b.container?.channel_id;
  if (!parsed.success || !channel) {
    ctx.track(tellByResponse(ctx, respond)(':x: this button is not one of this bot’s'));
    return;
  }
  const v = parsed.data;
  const site = v.site !== 'all' && ctx.fleet.sites.has(v.site) ? v.site : undefined;
  const user = b.user as { id: string; name?: string; username?: string };
  ctx.track(
    incidentCommand(
      {
        cmd: { verb: 'runbook start', runbook: v.runbook, repin: false, title: v.title, ...(site ? { site } : {}) },
        user: { id: user.id, name: user.name ?? user.username ?? user.id },
        channel,
        triggerId: b.trigger_id,
        client,
        respond,
        ...detectedFor(ctx, channel, v.site, v.runbook),
      },
      ctx,
    ),
  );
}

/** The last report of the site in the channel, when it is the one proposing this runbook. */
function detectedFor(ctx: SeatContext, channel: string, site: string, runbook: string): { detected?: ProbeReport } {
  const r = ctx.detected?.get(detectedKey(channel, site));
  return r && r.verdict.runbook === runbook ? { detected: r } : {};
}

function safeJson(s: string | undefined): unknown {
  try {
    return JSON.parse(s ?? '');
  } catch {
    return undefined;
  }
}
