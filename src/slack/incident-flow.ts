// An incident in its Slack thread: the parent message, the step being walked, and what a decision
// does to them. A decision is shown only after the journal committed it: the step's message
// becomes a static line first, then the next step is posted (one channel's sends go in order).
import type { RespondFn } from '@slack/bolt';
import { currentStep, type IncidentView, type StepView } from '../incident/engine.ts';
import type { DecideResult, Decision, IncidentService } from '../incident/service.ts';
import type { Actor, Incident } from '../incident/types.ts';
import { JournalError } from '../journal/store.ts';
import type { SeatContext, WebClient } from './context.ts';
import { slackAdvice, slackErrorCode } from './errors.ts';
import { decidedMessage, finishedMessage, parentMessage, stepMessage, when, who, type Message, type StepExtras } from './incident-blocks.ts';
import { esc, fit } from './mrkdwn.ts';

/** An ephemeral line to the person who acted; a failure is logged, never thrown. */
export type Tell = (text: string) => Promise<void>;

export function actorOf(user: { id: string; name?: string | undefined; username?: string | undefined }): Actor {
  return { kind: 'slack', id: user.id, name: user.username ?? user.name ?? '' };
}

export function serviceOf(ctx: SeatContext): IncidentService | null {
  return 'missing' in ctx.incidents ? null : ctx.incidents;
}

/** By response_url (a slash command, a button). */
export function tellByResponse(ctx: SeatContext, respond: RespondFn): Tell {
  return async (text) => {
    try {
      await respond({ response_type: 'ephemeral', replace_original: false, text });
    } catch (err) {
      ctx.log.warn(`respond failed: ${slackErrorCode(err)}`);
    }
  };
}

/** By chat.postEphemeral (a modal's submission has no response_url). */
export function tellInChannel(ctx: SeatContext, client: WebClient, channel: string, user: string): Tell {
  return async (text) => {
    try {
      await ctx.send.run(channel, 'chat.postEphemeral', () => client.chat.postEphemeral({ channel, user, text }));
    } catch (err) {
      ctx.log.warn(`chat.postEphemeral in ${channel} failed: ${slackErrorCode(err)}`);
    }
  };
}

/**
 * Runs the work of one request after its ack; what it throws (the journal busy or full, a bug) is
 * logged and told to the person in one line, never swallowed and never a stack trace.
 */
export async function guarded(ctx: SeatContext, tell: Tell, what: string, work: () => Promise<void>): Promise<void> {
  try {
    await work();
  } catch (err) {
    const line = err instanceof Error ? (err.message.split('\n')[0] ?? '') : String(err);
    ctx.log.error(`${what} failed: ${err instanceof JournalError ? `${err.code}: ` : ''}${line}`);
    await tell(
      err instanceof JournalError
        ? `:x: the journal did not take it (${err.code}: ${fit(line, 300)}); nothing was recorded. Try again, or \`seat\` in a terminal on the bot's host.`
        : `:x: ${esc(what)} failed (${fit(line, 300)}); look at \`/seat journal\` before trying again.`,
    );
  }
}

/** Posts in the channel (in the thread when given); the new message's ts, or the error code. */
export async function post(ctx: SeatContext, client: WebClient, channel: string, thread: string | undefined, m: Message): Promise<{ ts: string } | { error: string }> {
  try {
    const r = await ctx.send.run(channel, 'chat.postMessage', () => client.chat.postMessage({ channel, text: m.text, blocks: m.blocks, ...(thread ? { thread_ts: thread } : {}) }));
    return r.ts ? { ts: r.ts } : { error: 'no_ts' };
  } catch (err) {
    const code = slackErrorCode(err);
    ctx.log.warn(`chat.postMessage in ${channel} failed: ${code}`);
    return { error: code };
  }
}

export async function update(ctx: SeatContext, client: WebClient, channel: string, ts: string, m: Message): Promise<boolean> {
  try {
    await ctx.send.run(channel, 'chat.update', () => client.chat.update({ channel, ts, text: m.text, blocks: m.blocks }));
    return true;
  } catch (err) {
    ctx.log.warn(`chat.update of ${channel}/${ts} failed: ${slackErrorCode(err)}`);
    return false;
  }
}

/** The incident's thread: its parent message, posted here (and stored) when it has none yet. */
export async function ensureThread(ctx: SeatContext, client: WebClient, service: IncidentService, incident: Incident, channel: string, tell: Tell): Promise<{ channel: string; thread: string } | null> {
  if (incident.slack) return incident.slack;
  const r = await post(ctx, client, channel, undefined, parentMessage(incident, service.view(incident.id), [...service.deps.runbooks.keys()]));
  if ('error' in r) {
    await tell(`:warning: incident #${incident.id} is in the journal, but could not be posted here (${r.error}): ${slackAdvice(r.error)}.`);
    return null;
  }
  try {
    service.deps.store.setSlackThread(incident.id, channel, r.ts);
  } catch (err) {
    ctx.log.warn(`setSlackThread #${incident.id} failed: ${err instanceof Error ? err.message : String(err)}`);
  }
  return { channel, thread: r.ts };
}

/** Redraws the parent message (a runbook pinned, the incident closed). */
export async function refreshParent(ctx: SeatContext, client: WebClient, service: IncidentService, id: number): Promise<void> {
  const view = service.view(id);
  const slack = view?.incident.slack;
  if (!view || !slack) return;
  await update(ctx, client, slack.channel, slack.thread, parentMessage(view.incident, view, [...service.deps.runbooks.keys()]));
}

/** The step to do now, posted in the thread; or that every step is decided. */
export async function postCurrentStep(ctx: SeatContext, client: WebClient, view: IncidentView): Promise<void> {
  const slack = view.incident.slack;
  if (!slack || !view.pin) return;
  const cur = currentStep(view);
  await post(ctx, client, slack.channel, slack.thread, cur ? stepMessage(view, cur) : finishedMessage(view));
}

/** Where a step's message is: the clicked message, or none (a typed `/seat step …`: lines go in the thread). */
export interface StepMessageRef {
  channel: string;
  ts: string | null;
}

/** Shows one step's message: updates it in place when there is one, else posts it in the thread. */
async function showStep(ctx: SeatContext, client: WebClient, view: IncidentView, msg: StepMessageRef, m: Message): Promise<void> {
  if (msg.ts && (await update(ctx, client, msg.channel, msg.ts, m))) return;
  const slack = view.incident.slack;
  if (slack) await post(ctx, client, slack.channel, slack.thread, m);
}

export async function redrawStep(ctx: SeatContext, client: WebClient, service: IncidentService, incident: number, step: string, msg: StepMessageRef, extras: StepExtras = {}): Promise<void> {
  const view = service.view(incident);
  const s = view?.steps.find((x) => x.spec.id === step);
  if (!view || !s) return;
  await showStep(ctx, client, view, msg, isOpen(s) ? stepMessage(view, s, extras) : decidedMessage(view, s));
}

const isOpen = (s: StepView): boolean => s.state.state === 'pending' || s.state.state === 'blocked';

const DECIDED: Record<string, string> = { 'step.done': 'done', 'step.skipped': 'skipped', 'step.blocked': 'tried and refused by a guardrail' };

export function conflictText(step: string, by: Actor, at: string, what: string): string {
  return `:warning: step \`${esc(step)}\` was already ${DECIDED[what] ?? esc(what)} by ${who(by)} ${when(at)}: nothing was recorded for you. Look at the step’s message in the thread.`;
}

/**
 * Decides a step and shows the outcome. A probe step's message says the probe runs meanwhile; a
 * second press while it runs is told so instead of starting another.
 */
export async function decideInSlack(ctx: SeatContext, client: WebClient, service: IncidentService, d: Decision, msg: StepMessageRef, tell: Tell): Promise<void> {
  const before = service.view(d.incident);
  const step = before?.steps.find((s) => s.spec.id === d.step);
  const probing = d.decision === 'done' && step?.spec.kind === 'probe' && isOpen(step) && (d.version === undefined || d.version === step.version);
  const busy = `step:${d.incident}:${d.step}`;
  if (probing) {
    if (ctx.busyMessages.has(busy)) {
      await tell(`:hourglass: the probe of step \`${esc(d.step)}\` is already running`);
      return;
    }
    ctx.busyMessages.add(busy);
  }
  let r: DecideResult;
  try {
    if (probing && msg.ts && before && step) await showStep(ctx, client, before, msg, stepMessage(before, step, { working: `:hourglass_flowing_sand: probing ${esc(before.incident.site)} for ${who(d.actor)}…` }));
    r = await service.decide(d);
  } catch (err) {
    const why = err instanceof Error ? (err.message.split('\n')[0] ?? '') : String(err);
    ctx.log.error(`step ${d.step} of #${d.incident} failed: ${why}`);
    await tell(`:x: step \`${esc(d.step)}\` could not be recorded (${fit(why, 300)}); nothing was recorded, try again`);
    if (probing && msg.ts) await redrawStep(ctx, client, service, d.incident, d.step, msg);
    return;
  } finally {
    if (probing) ctx.busyMessages.delete(busy);
  }
  await showDecision(ctx, client, r, d, msg, tell);
  // Someone else got there first: the message must not stay on "probing…".
  if (probing && msg.ts && ((!r.ok && r.kind !== 'refused') || (r.ok && r.duplicate))) await redrawStep(ctx, client, service, d.incident, d.step, msg);
}

export async function showDecision(ctx: SeatContext, client: WebClient, r: DecideResult, d: Decision, msg: StepMessageRef, tell: Tell): Promise<void> {
  if (!r.ok) {
    switch (r.kind) {
      case 'invalid':
        await tell(`:x: ${esc(r.message)}`);
        return;
      case 'conflict':
        await tell(conflictText(d.step, r.by, r.at, r.what));
        return;
      case 'refused': {
        const step = r.view.steps.find((s) => s.spec.id === d.step);
        if (step) await showStep(ctx, client, r.view, msg, stepMessage(r.view, step, { refusals: r.refusals }));
        return;
      }
    }
  }
  if (r.duplicate) {
    await tell(`:information_source: already recorded (journal event #${r.event.seq} by ${who(r.event.actor)} ${when(r.event.happenedAt)})`);
    return;
  }
  const view = r.view;
  const step = view.steps.find((s) => s.spec.id === d.step);
  if (!step) return;
  const probe = probeLine(view, r.event.payload);
  const stored = typeof r.event.payload.report === 'number' ? `probe report stored as journal event #${r.event.payload.report}` : undefined;
  await showStep(ctx, client, view, msg, decidedMessage(view, step, stored));
  if (probe && view.incident.slack) await post(ctx, client, view.incident.slack.channel, view.incident.slack.thread, { text: probe, blocks: [{ type: 'section', text: { type: 'mrkdwn', text: probe } }] });
  await postCurrentStep(ctx, client, view);
}

/** A probe step's outcome in one line: the verdict and where the report is. */
function probeLine(view: IncidentView, payload: Record<string, unknown>): string | null {
  const seq = payload.report;
  if (typeof seq !== 'number') return null;
  const report = view.events.find((e) => e.seq === seq)?.payload.report as { site?: string; verdict?: { status?: string; headline?: string } } | undefined;
  const status = String(report?.verdict?.status ?? (payload.verdict as { status?: string } | undefined)?.status ?? '?').toUpperCase();
  return `:mag: probe of ${esc(report?.site ?? view.incident.site)}: *${esc(status)}* — ${fit(report?.verdict?.headline ?? '', 600)} (report stored as journal event #${seq})`;
}
