// A step modal submitted: every field is checked before the ack (a bad one keeps the modal open
// with Slack's `response_action: 'errors'` naming it); the decision is made after the ack and
// recorded under the modal's view id, so a resubmitted or replayed modal records once. A file
// named or uploaded is downloaded and hashed by the bot before the decision.
import type { SlackViewMiddlewareArgs, ViewSubmitAction } from '@slack/bolt';
import type { StepView } from '../../../incident/engine.ts';
import type { IncidentService } from '../../../incident/service.ts';
import type { Evidence, StepInput, StepSpec } from '../../../incident/types.ts';
import { userAllowed } from '../../authz.ts';
import type { SeatContext, WebClient } from '../../context.ts';
import { measureSlackFile } from '../../evidence-file.ts';
import { actorOf, decideInSlack, guarded, redrawStep, serviceOf, tellInChannel, type Tell } from '../../incident-flow.ts';
import { esc } from '../../mrkdwn.ts';
import { slackDates } from '../../incident-blocks.ts';
import { postOverride } from '../commands/incident.ts';
import { DONE_MODAL, EVIDENCE_MODAL, OVERRIDE_MODAL, SKIP_MODAL, readEvidence, readInput, readMeta, readReason, type Errors, type EvidenceDraft, type ModalMeta, type Values } from '../../step-modals.ts';

export type StepViewArgs = Pick<SlackViewMiddlewareArgs<ViewSubmitAction>, 'ack' | 'body' | 'view'> & { client: WebClient };

/** What the submission holds once it is checked. */
type Checked =
  | { kind: 'skip'; reason: string }
  | { kind: 'done'; draft?: EvidenceDraft; input: StepInput }
  | { kind: 'evidence'; draft: EvidenceDraft }
  | { kind: 'override'; reason: string };

export async function stepView({ ack, body, view, client }: StepViewArgs, ctx: SeatContext): Promise<void> {
  const meta = readMeta(view.private_metadata);
  const service = serviceOf(ctx);
  let step: StepView | undefined;
  try {
    step = meta && service ? (await service.view(meta.incident))?.steps.find((s) => s.spec.id === meta.step) : undefined;
  } catch (err) {
    // The journal could not be read (busy, damaged): close the form and say so.
    await ack();
    if (meta) await tellInChannel(ctx, client, meta.channel, body.user.id)(`:x: the journal could not be read (${err instanceof Error ? esc(err.message.split('\n')[0] ?? '') : 'error'}); nothing was recorded`);
    return;
  }
  if (!meta || !service || !step) {
    ctx.log.warn(`a ${view.callback_id} submission names no step this bot knows`);
    await ack();
    return;
  }
  const checked = check(view.callback_id, view.state.values as Values, step.spec, meta);
  if ('errors' in checked) {
    await ack({ response_action: 'errors', errors: checked.errors });
    return;
  }
  await ack();
  if (!ctx.replays.first(`view:${view.id}`)) {
    ctx.log.info(`replayed ${view.callback_id} ignored (view ${view.id}, user ${body.user.id})`);
    return;
  }
  ctx.track(submit(ctx, client, service, meta, checked, body, `slack:view:${view.id}`));
}

function check(callback: string, v: Values, spec: StepSpec, meta: ModalMeta): Checked | { errors: Errors } {
  switch (callback) {
    case SKIP_MODAL:
    case OVERRIDE_MODAL: {
      const r = readReason(v);
      if ('errors' in r) return r;
      return callback === SKIP_MODAL ? { kind: 'skip', reason: r.reason } : meta.guardrail ? { kind: 'override', reason: r.reason } : { errors: { reason: 'this form lost its guardrail: press Ask for override again' } };
    }
    case EVIDENCE_MODAL: {
      const r = readEvidence(v, spec.evidence);
      return 'errors' in r ? r : { kind: 'evidence', draft: r.draft };
    }
    default: {
      // Done: the evidence fields are there only when the step still needs its evidence.
      const asked = Object.keys(v).some((b) => b.startsWith('ev_'));
      const ev = asked ? readEvidence(v, spec.evidence) : undefined;
      const input = readInput(v, spec.action);
      const errors = { ...(ev && 'errors' in ev ? ev.errors : {}), ...('errors' in input ? input.errors : {}) };
      if (Object.keys(errors).length > 0 || 'errors' in input) return { errors };
      return { kind: 'done', input: input.input, ...(ev && 'draft' in ev ? { draft: ev.draft } : {}) };
    }
  }
}

async function submit(ctx: SeatContext, client: WebClient, service: IncidentService, meta: ModalMeta, c: Checked, body: ViewSubmitAction, dedupe: string): Promise<void> {
  const tell = tellInChannel(ctx, client, meta.channel, body.user.id);
  await guarded(ctx, tell, `the ${c.kind} form`, () => submitted(ctx, client, service, meta, c, body, dedupe, tell));
}

async function submitted(ctx: SeatContext, client: WebClient, service: IncidentService, meta: ModalMeta, c: Checked, body: ViewSubmitAction, dedupe: string, tell: Tell): Promise<void> {
  const who = await userAllowed(ctx.fleet.inventory, body.user.id, { groupMembers: (g) => ctx.groupMembers(client, g) });
  if (!who.ok) {
    await tell(`:no_entry: ${who.reason.replace('may use /seat', 'may record decisions')}`);
    return;
  }
  const actor = actorOf(body.user);
  const msg = { channel: meta.channel, ts: meta.ts };
  const base = { incident: meta.incident, step: meta.step, actor, version: meta.version, dedupe };
  switch (c.kind) {
    case 'skip':
      return decideInSlack(ctx, client, service, { ...base, decision: 'skip', reason: c.reason }, msg, tell);
    case 'done': {
      const evidence = c.draft ? await measured(ctx, client, c.draft, tell) : undefined;
      if (evidence === null) return;
      return decideInSlack(ctx, client, service, { ...base, decision: 'done', input: c.input, ...(evidence ? { evidence } : {}) }, msg, tell);
    }
    case 'evidence': {
      const evidence = await measured(ctx, client, c.draft, tell);
      if (!evidence) return;
      const r = await service.addEvidence({ incident: meta.incident, step: meta.step, evidence, actor, dedupe });
      if ('error' in r) return tell(`:x: ${esc(r.error)}`);
      await redrawStep(ctx, client, service, meta.incident, meta.step, msg);
      return;
    }
    case 'override': {
      const r = await service.requestOverride({ incident: meta.incident, step: meta.step, guardrail: meta.guardrail!, reason: c.reason, actor, dedupe });
      if ('error' in r) return tell(`:x: ${slackDates(esc(r.error))}`);
      const incident = await service.deps.store.incident(meta.incident);
      if (incident) await postOverride(ctx, client, service, incident, r.event.seq, meta.channel, tell);
      return;
    }
  }
}

/** Evidence to record: a Slack file downloaded and hashed here; null when that failed (the person was told). */
async function measured(ctx: SeatContext, client: WebClient, draft: EvidenceDraft, tell: Tell): Promise<Evidence | null> {
  if (draft.kind === 'ready') return draft.evidence;
  const r = await measureSlackFile(client, ctx.fetchFile, draft.fileId, draft.of);
  if ('evidence' in r) return r.evidence;
  ctx.log.warn(`evidence file ${draft.fileId}: ${r.error}`);
  await tell(`:x: ${esc(r.error)}. Nothing was recorded.`);
  return null;
}

export const STEP_MODALS = [SKIP_MODAL, DONE_MODAL, EVIDENCE_MODAL, OVERRIDE_MODAL] as const;
