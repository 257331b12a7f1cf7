// The buttons of a step's message (Done, Skip, Evidence, Ask for override) and of an override
// request (Approve). Acked at once; on-call is checked after. Done on a plain step decides at once;
// a step that needs evidence or the inputs of its move, Skip, Evidence and the override open a
// modal (the click's trigger_id is good for 3 s). A click is recorded under its action_ts and
// action id, so a redelivered click records once; a second click on a decided step is told who.
import type { BlockAction, ButtonAction, SlackActionMiddlewareArgs } from '@slack/bolt';
import { z } from 'zod';
import type { StepView } from '../../../incident/engine.ts';
import type { IncidentService } from '../../../incident/service.ts';
import { channelAllowed, userAllowed } from '../../authz.ts';
import type { SeatContext, WebClient } from '../../context.ts';
import { slackErrorCode } from '../../errors.ts';
import { OVERRIDE_APPROVE, OVERRIDE_ASK, STEP_DONE, STEP_EVIDENCE, STEP_SKIP, slackDates, when, who } from '../../incident-blocks.ts';
import { isPowerStep, powerFigures } from '../../step-lines.ts';
import { standingApproval } from '../../../incident/overrides.ts';
import { actorOf, conflictText, decideInSlack, guarded, healClicked, serviceOf, syncThread, tellByResponse, type Tell } from '../../incident-flow.ts';
import { esc } from '../../mrkdwn.ts';
import { MODAL_ACTIONS, doneModal, evidenceModal, overrideModal, skipModal, type ModalMeta } from '../../step-modals.ts';

const StepRefValue = z.strictObject({ incident: z.number().int().positive(), step: z.string().min(1).max(80), version: z.number().int().min(0) });
const OverrideAskValue = z.strictObject({ incident: z.number().int().positive(), step: z.string().min(1).max(80), guardrail: z.string().min(1).max(80) });
const ApproveValue = z.strictObject({ incident: z.number().int().positive(), request: z.number().int().positive() });

export type StepButtonArgs = Pick<SlackActionMiddlewareArgs, 'ack' | 'body' | 'action' | 'respond'> & { client: WebClient };

export async function stepButton(args: StepButtonArgs, ctx: SeatContext): Promise<void> {
  const { ack, body, action, respond, client } = args;
  await ack();
  if (body.type !== 'block_actions' || action.type !== 'button' || !('action_id' in action)) return;
  if (!ctx.replays.first(body.trigger_id)) {
    ctx.log.info(`replayed ${action.action_id} ignored (trigger_id ${body.trigger_id}, user ${body.user.id})`);
    return;
  }
  // After the I/O already waiting: fifty clicks at once are all acked before the first is decided.
  ctx.track(afterPendingIo().then(() => press({ body: body as BlockAction, action: action as ButtonAction, respond, client }, ctx)));
}

interface Press {
  body: BlockAction;
  action: ButtonAction;
  respond: StepButtonArgs['respond'];
  client: WebClient;
}

async function press(p: Press, ctx: SeatContext): Promise<void> {
  const tell = tellByResponse(ctx, p.respond);
  await guarded(ctx, tell, `the ${p.action.text.text} button`, () => pressed(p, ctx, tell));
}

async function pressed({ body, action, client }: Press, ctx: SeatContext, tell: Tell): Promise<void> {
  const service = serviceOf(ctx);
  const channel = body.channel?.id ?? body.container?.channel_id;
  const ts: string | null = body.message?.ts ?? body.container?.message_ts ?? null;
  if (!service || !channel) {
    await tell(`:x: ${!service && 'missing' in ctx.incidents ? ctx.incidents.missing : 'this button has lost its channel'}`);
    return;
  }
  const inv = ctx.fleet.inventory;
  const chan = channelAllowed(inv, channel);
  const allowed = chan.ok ? await userAllowed(inv, body.user.id, { groupMembers: (g) => ctx.groupMembers(client, g) }) : chan;
  if (!allowed.ok) {
    await tell(`:no_entry: ${allowed.reason.replace('may use /seat', 'may record decisions')}`);
    return;
  }
  const actor = actorOf(body.user as { id: string; name?: string; username?: string });
  const dedupe = `slack:action:${action.action_id}:${action.action_ts}:${body.user.id}`;
  const value = safeJson(action.value);

  if (action.action_id === OVERRIDE_APPROVE) {
    const v = ApproveValue.safeParse(value);
    if (!v.success) return tell(':x: this button is not one of this bot’s');
    if (ts) ctx.threads.adopt(v.data.incident, `override:${v.data.request}`, channel, ts);
    const r = await service.approveOverride({ incident: v.data.incident, request: v.data.request, actor, dedupe });
    if ('error' in r) {
      await tell(`:no_entry: ${slackDates(esc(r.error))}`);
      return syncThread(ctx, client, service, v.data.incident);
    }
    return syncThread(ctx, client, service, v.data.incident);
  }

  if (action.action_id === OVERRIDE_ASK) {
    const v = OverrideAskValue.safeParse(value);
    if (!v.success) return tell(':x: this button is not one of this bot’s');
    const step = await stepOf(service, v.data.incident, v.data.step);
    if (!step) return tell(`:x: no step \`${esc(v.data.step)}\` in incident #${v.data.incident}`);
    const standing = standingApproval((await service.view(v.data.incident))!, v.data.step, service.deps.now());
    if (standing) return tell(`:information_source: override #${standing.req.seq} on step \`${esc(v.data.step)}\` is already approved by ${who(standing.by)} until ${when(standing.until)}: press *Done* (anyone on call but ${who(standing.by)}). Nothing was asked.`);
    const s0 = step.state;
    if (s0.state === 'done' || s0.state === 'skipped') return tell(conflictText(v.data.step, s0.by, s0.at, s0.state === 'done' ? 'step.done' : 'step.skipped'));
    const refused = step.state.state === 'blocked' ? step.state.refused : '';
    const meta: ModalMeta = { incident: v.data.incident, step: v.data.step, version: step.version, channel, ts, guardrail: v.data.guardrail };
    return open(ctx, client, body.trigger_id, overrideModal(meta, refused), tell);
  }

  const v = StepRefValue.safeParse(value);
  if (!v.success) return tell(':x: this button is not one of this bot’s');
  const ref = v.data;
  const view = await service.view(ref.incident);
  const step = view?.steps.find((s) => s.spec.id === ref.step);
  if (!view || !step) return tell(`:x: no step \`${esc(ref.step)}\` in incident #${ref.incident}`);
  // Decided since this message was drawn: say by whom, open nothing.
  const s = step.state;
  if ((s.state === 'done' || s.state === 'skipped') && action.action_id !== STEP_EVIDENCE) {
    await tell(conflictText(ref.step, s.by, s.at, s.state === 'done' ? 'step.done' : 'step.skipped'));
    // A live button on a decided step: this message is stale, or a copy no replica kept. Healed here.
    if (ts) await healClicked(ctx, client, service, ref.incident, `step:${ref.step}`, channel, ts);
    return;
  }
  if (step.version !== ref.version && s.state === 'blocked' && action.action_id !== STEP_EVIDENCE) return tell(conflictText(ref.step, s.by, s.at, 'step.blocked'));
  const meta: ModalMeta = { incident: ref.incident, step: ref.step, version: ref.version, channel, ts };

  switch (action.action_id) {
    case STEP_SKIP:
      return open(ctx, client, body.trigger_id, skipModal(meta, step.spec.title), tell);
    case STEP_EVIDENCE:
      return open(ctx, client, body.trigger_id, evidenceModal(meta, step.spec), tell);
    case STEP_DONE: {
      const askEvidence = step.spec.evidence !== undefined && !hasEvidence(step);
      const askInput = step.spec.action !== undefined && MODAL_ACTIONS.has(step.spec.action);
      if (askEvidence || askInput) {
        // Pre-filled with the action an approval stands for (it holds for exactly that), else what
        // was measured (the power log's peak); never with a refused attempt's values.
        const approved = standingApproval(view, step.spec.id, service.deps.now())?.req.input;
        const peak = powerFigures(view, ctx.fleet).log?.peakW;
        const prefill = approved ?? (isPowerStep(step) && typeof peak === 'number' ? { loadW: Math.ceil(peak) } : undefined);
        return open(ctx, client, body.trigger_id, doneModal(meta, step.spec, { askEvidence, ...(prefill ? { prefill } : {}) }), tell);
      }
      return decideInSlack(ctx, client, service, { incident: ref.incident, step: ref.step, decision: 'done', actor, version: ref.version, dedupe }, { channel, ts }, tell);
    }
    default:
      return tell(':x: this button is not one of this bot’s');
  }
}

const afterPendingIo = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

async function stepOf(service: IncidentService, incident: number, step: string): Promise<StepView | undefined> {
  return (await service.view(incident))?.steps.find((s) => s.spec.id === step);
}

/** Evidence of the kind the step asks for, recorded on it already (the Evidence button). */
function hasEvidence(step: StepView): boolean {
  const want = step.spec.evidence;
  return want !== undefined && step.evidence.some((e) => e.kind === want.kind && e.of === want.of);
}

async function open(ctx: SeatContext, client: WebClient, trigger: string, view: Parameters<WebClient['views']['open']>[0]['view'], tell: Tell): Promise<void> {
  try {
    await client.views.open({ trigger_id: trigger, view });
  } catch (err) {
    const code = slackErrorCode(err);
    ctx.log.warn(`views.open failed: ${code}`);
    await tell(`:warning: the form could not be opened (${esc(code)})${code === 'expired_trigger_id' ? ': Slack allows 3 seconds; press the button again' : ''}. The same can be typed: \`/seat help step\`.`);
  }
}

function safeJson(s: string | undefined): unknown {
  try {
    return JSON.parse(s ?? '');
  } catch {
    return undefined;
  }
}
