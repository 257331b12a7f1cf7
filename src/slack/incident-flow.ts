// An incident in its Slack thread: the parent message, the step being walked, and what a decision
// does to them. A decision is shown only after the journal committed it: the step's message
// becomes a static line first, then the next step is posted (one channel's sends go in order).
import type { RespondFn } from '@slack/bolt';
import { currentStep, type IncidentView, type StepView } from '../incident/engine.ts';
import { standingApproval } from '../incident/overrides.ts';
import type { DecideResult, Decision, IncidentService } from '../incident/service.ts';
import { actorKey, type Actor, type Incident } from '../incident/types.ts';
import { JournalError } from '../journal/store.ts';
import type { SeatContext, WebClient } from './context.ts';
import { slackAdvice, slackErrorCode } from './errors.ts';
import { decidedMessage, finishedMessage, overrideMessage, parentMessage, slackDates, stepMessage, when, who, type Message } from './incident-blocks.ts';
import { powerFigures } from './step-lines.ts';
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
  const r = await post(ctx, client, channel, undefined, parentMessage(incident, await service.view(incident.id), [...service.deps.runbooks.keys()]));
  if ('error' in r) {
    await tell(`:warning: incident #${incident.id} is in the journal, but could not be posted here (${r.error}): ${slackAdvice(r.error)}.`);
    return null;
  }
  try {
    await service.deps.store.setSlackThread(incident.id, channel, r.ts);
  } catch (err) {
    ctx.log.warn(`setSlackThread #${incident.id} failed: ${err instanceof Error ? err.message : String(err)}`);
  }
  return { channel, thread: r.ts };
}

/** Which parts may get a new message in this redraw (others are only updated where they have one). */
export interface SyncHints {
  /** A step just decided: its decided line is posted if it has no message yet (a typed decision on a later step). */
  touched?: string;
  /** Override requests just made: posted. */
  requests?: number[];
}

/**
 * Brings the incident's thread to what the journal says: the checklist, each step's one message
 * (the current one posted when it has none, a decided one without buttons), each override request
 * (closed when its step is decided, it expired or the incident closed), the closing line. A part
 * is sent only when what it shows changed; one incident's redraws run one after another.
 */
export async function syncThread(ctx: SeatContext, client: WebClient, service: IncidentService, id: number, hints: SyncHints = {}): Promise<void> {
  await ctx.threads.serial(id, async () => {
    const view = await service.view(id);
    const slack = view?.incident.slack;
    if (!view || !slack) return;
    const now = service.deps.now();
    const where = { channel: slack.channel, thread: slack.thread };
    ctx.threads.adopt(id, 'parent', slack.channel, slack.thread);
    // The journal knows where every replica posted each part: read once per redraw, so a part another
    // replica posted is updated here, never posted twice.
    for (const m of await service.deps.store.replicaSide.messages(id).catch(() => [])) ctx.threads.adopt(id, m.key, m.channel, m.ts);
    await showPart(ctx, client, id, 'parent', where, parentMessage(view.incident, view, [...service.deps.runbooks.keys()], now), false);
    if (!view.pin) return;
    const power = powerFigures(view, ctx.fleet);
    const cur = view.incident.status === 'open' ? currentStep(view) : undefined;
    for (const s of view.steps) {
      const open = isOpen(s);
      // A blocked step shows the refusals that still stand; one lifted since (the power log came in) is history.
      const refusals = s.state.state === 'blocked' && s.state.guardrail !== 'person' ? service.standingRefusals(view, s) : undefined;
      const m = open ? stepMessage(view, s, { now, power, ...(refusals ? { refusals } : {}) }) : decidedMessage(view, s, probeLine(view, s), power);
      await showPart(ctx, client, id, `step:${s.spec.id}`, where, m, s === cur || (!open && hints.touched === s.spec.id));
    }
    const ids = new Set(view.steps.map((s) => s.spec.id));
    for (const key of ctx.threads.keys(id)) {
      if (key.startsWith('step:') && !ids.has(key.slice(5))) await showPart(ctx, client, id, key, where, supersededMessage(key.slice(5), view.pin.runbook), false);
    }
    for (const r of view.overrides) await showPart(ctx, client, id, `override:${r.seq}`, where, overrideMessage(view, r, now), hints.requests?.includes(r.seq) ?? false);
    if (view.steps.length > 0 && !currentStep(view)) await showPart(ctx, client, id, 'finished', where, finishedMessage(view), true);
  });
}

/** One part's message: updated in place when it has one and what it shows changed; else posted when allowed, and kept. */
async function showPart(ctx: SeatContext, client: WebClient, id: number, key: string, where: { channel: string; thread: string }, m: Message, mayPost: boolean): Promise<void> {
  const last = JSON.stringify(m);
  const known = ctx.threads.get(id, key);
  if (known) {
    if (known.last !== last && (await update(ctx, client, known.channel, known.ts, m))) ctx.threads.set(id, key, { ...known, last });
    return;
  }
  if (!mayPost) return;
  const r = await post(ctx, client, where.channel, where.thread, m);
  if (!('ts' in r)) return;
  ctx.threads.set(id, key, { channel: where.channel, ts: r.ts, last });
  if ('missing' in ctx.incidents) return;
  const side = ctx.incidents.deps.store.replicaSide;
  const failed = (err: unknown): undefined => void ctx.log.warn(`keeping the message of #${id} ${key} failed: ${err instanceof Error ? (err.message.split('\n')[0] ?? '') : String(err)}`);
  await side.keepMessage(id, key, where.channel, r.ts).catch(failed);
  // Two replicas can post a part's first message at the same instant: the first kept stands. The one
  // that lost takes its copy back and shows its view in the one that stands, so the thread keeps one
  // message per part (a person may see the second copy for the moment it lived).
  const kept = (await side.messages(id).catch(failed))?.find((k) => k.key === key);
  if (!kept || kept.ts === r.ts) return;
  await ctx.send.run(where.channel, 'chat.delete', () => client.chat.delete({ channel: where.channel, ts: r.ts })).catch((err: unknown) => ctx.log.warn(`chat.delete of the second copy of #${id} ${key} failed: ${slackErrorCode(err)}`));
  ctx.threads.set(id, key, { channel: kept.channel, ts: kept.ts, last: '' });
  if (await update(ctx, client, kept.channel, kept.ts, m)) ctx.threads.set(id, key, { channel: kept.channel, ts: kept.ts, last });
}

function supersededMessage(step: string, runbook: string): Message {
  const text = `:heavy_minus_sign: step \`${esc(step)}\` is no longer in runbook *${esc(runbook)}* (re-pinned): nothing to decide here`;
  return { text: `Step ${step} superseded`, blocks: [{ type: 'section', text: { type: 'mrkdwn', text } }] };
}

/**
 * A click on a part's message that may be a copy no replica kept (its replica died between posting it
 * and keeping it): kept by nobody, it is kept now and redrawn; a second copy beside the one kept is
 * taken back; the one kept is redrawn. A button on a copy never stays live for ever.
 */
export async function healClicked(ctx: SeatContext, client: WebClient, service: IncidentService, id: number, key: string, channel: string, ts: string): Promise<void> {
  const kept = await claimClicked(ctx, service, id, key, channel, ts);
  if (kept.ts !== ts) await ctx.send.run(channel, 'chat.delete', () => client.chat.delete({ channel, ts })).catch((err: unknown) => ctx.log.warn(`chat.delete of a second copy of #${id} ${key} failed: ${slackErrorCode(err)}`));
  await syncThread(ctx, client, service, id);
}

/** Redraws the parent message (a runbook pinned, the incident closed) and every part of the thread. */
export async function refreshParent(ctx: SeatContext, client: WebClient, service: IncidentService, id: number): Promise<void> {
  await syncThread(ctx, client, service, id);
}

/** The step to do now, posted in the thread (once: after that it is updated); or that every step is decided. */
export async function postCurrentStep(ctx: SeatContext, client: WebClient, service: IncidentService, view: IncidentView): Promise<void> {
  await syncThread(ctx, client, service, view.incident.id);
}

/** Where a step's message is: the clicked message, or none (a typed `/seat step …`). */
export interface StepMessageRef {
  channel: string;
  ts: string | null;
}

/**
 * The message a person acted on becomes its step's message for every replica: kept in the journal
 * when no replica kept one (the replica that posted it died between posting and keeping it), so a
 * replica that dies in the middle of this step's work leaves a message that the next redraw, on any
 * replica, brings up to date, never one that says "probing" for ever. Where another copy is kept,
 * that one is the step's message here too.
 */
export async function claimClicked(ctx: SeatContext, service: IncidentService, id: number, key: string, channel: string, ts: string): Promise<{ channel: string; ts: string }> {
  const side = service.deps.store.replicaSide;
  const failed = (err: unknown): undefined => void ctx.log.warn(`keeping the clicked message of #${id} ${key} failed: ${err instanceof Error ? (err.message.split('\n')[0] ?? '') : String(err)}`);
  await side.keepMessage(id, key, channel, ts).catch(failed);
  const kept = (await side.messages(id).catch(failed))?.find((k) => k.key === key) ?? { channel, ts };
  if (ctx.threads.get(id, key)?.ts !== kept.ts) ctx.threads.set(id, key, { channel: kept.channel, ts: kept.ts, last: '' });
  return kept;
}

export async function redrawStep(ctx: SeatContext, client: WebClient, service: IncidentService, incident: number, step: string, msg: StepMessageRef): Promise<void> {
  if (msg.ts) await claimClicked(ctx, service, incident, `step:${step}`, msg.channel, msg.ts);
  await syncThread(ctx, client, service, incident);
}

const isOpen = (s: StepView): boolean => s.state.state === 'pending' || s.state.state === 'blocked';

const DECIDED: Record<string, string> = { 'step.done': 'done', 'step.skipped': 'skipped', 'step.blocked': 'tried and refused by a guardrail' };

export function conflictText(step: string, by: Actor, at: string, what: string): string {
  return `:warning: step \`${esc(step)}\` was already ${DECIDED[what] ?? esc(what)} by ${who(by)} ${when(at)}: nothing was recorded for you. Look at the step’s message in the thread.`;
}

/**
 * Decides a step and shows the outcome on the step's one message. A probe step's message says the
 * probe runs meanwhile; a second press while it runs is told who is running it.
 */
export async function decideInSlack(ctx: SeatContext, client: WebClient, service: IncidentService, d: Decision, msg: StepMessageRef, tell: Tell): Promise<void> {
  if (msg.ts) await claimClicked(ctx, service, d.incident, `step:${d.step}`, msg.channel, msg.ts);
  const before = await service.view(d.incident);
  const step = before?.steps.find((s) => s.spec.id === d.step);
  const probing = d.decision === 'done' && step?.spec.kind === 'probe' && isOpen(step) && (d.version === undefined || d.version === step.version);
  const busy = `${d.incident}:${d.step}`;
  if (probing) {
    const running = ctx.threads.running.get(busy);
    if (running) {
      await tell(`:hourglass: the probe of step \`${esc(d.step)}\` is already running: ${who(running.by)} pressed Done ${when(running.at)}. Its result shows on the step’s message; nothing was recorded for you.`);
      return;
    }
    ctx.threads.running.set(busy, { by: d.actor, at: service.deps.now().toISOString() });
  }
  let r: DecideResult;
  try {
    if (probing && before && step) {
      const m = stepMessage(before, step, { now: service.deps.now(), power: powerFigures(before, ctx.fleet), working: probingLine(service, before, d) });
      await ctx.threads.serial(d.incident, () => showPart(ctx, client, d.incident, `step:${d.step}`, { channel: msg.channel, thread: before.incident.slack?.thread ?? '' }, m, false));
    }
    r = await service.decide(d);
  } catch (err) {
    const why = err instanceof Error ? (err.message.split('\n')[0] ?? '') : String(err);
    ctx.log.error(`step ${d.step} of #${d.incident} failed: ${why}`);
    await tell(`:x: step \`${esc(d.step)}\` could not be recorded (${fit(why, 300)}); nothing was recorded, try again`);
    await syncThread(ctx, client, service, d.incident);
    return;
  } finally {
    if (probing) ctx.threads.running.delete(busy);
  }
  await showDecision(ctx, client, service, r, d, tell);
}

/**
 * What a probe step's message says while its probe runs: for whom, on which replica, and what to do
 * should that replica die first (its buttons are gone meanwhile): after the lease runs out (rounded up
 * to the minute a Slack date shows), the typed Done runs the step again.
 */
function probingLine(service: IncidentService, view: IncidentView, d: Decision): string {
  const until = Math.ceil((service.deps.now().getTime() + service.leaseMs() + 1000) / 60_000) * 60_000;
  const again = `/seat step done ${d.step} --incident ${view.incident.id}`;
  return `:hourglass_flowing_sand: probing ${esc(view.incident.site)} for ${who(d.actor)} on replica \`${esc(service.replica())}\`… _No result by ${when(new Date(until).toISOString())}? That replica stopped: \`${esc(again)}\` runs it again._`;
}

export async function showDecision(ctx: SeatContext, client: WebClient, service: IncidentService, r: DecideResult, d: Decision, tell: Tell): Promise<void> {
  if (!r.ok) {
    switch (r.kind) {
      case 'invalid':
        await tell(`:x: ${slackDates(esc(r.message))}`);
        break;
      case 'conflict':
        await tell(conflictText(d.step, r.by, r.at, r.what));
        break;
      case 'running':
        // Held by a lease in the journal: another replica (or this one) runs the step's probe now.
        await tell(`:hourglass: the probe of step \`${esc(d.step)}\` is already running: ${who(r.lease.by)} pressed Done ${when(r.lease.at)} on replica \`${esc(r.lease.replica)}\` (its lease holds until ${when(r.lease.until)}). Its result shows on the step’s message; nothing was recorded for you.`);
        break;
      case 'answered-no':
        await tell(`:memo: recorded: \`${esc(d.step)}\` answered *no* to “${esc(r.question)}” (journal #${r.event.seq}); the step stays open until the answer is yes`);
        break;
      case 'refused': {
        const standing = standingApproval(r.view, d.step, service.deps.now());
        if (standing && actorKey(standing.by) === actorKey(d.actor)) {
          await tell(`:no_entry: you approved override #${standing.req.seq} of *${esc(standing.req.guardrail)}* on step \`${esc(d.step)}\`, so you may not use it: ${who(standing.req.by)} (or anyone on call but you) may press *Done* until ${when(standing.until)}. Your attempt is in the journal as refused.`);
        } else if (!ctx.threads.get(d.incident, `step:${d.step}`)) {
          // A later step, typed: refused now, shown on its message when it comes up (no early copy of it).
          const first = r.refusals[0];
          if (first) await tell(`:no_entry: step \`${esc(d.step)}\` refused by *${esc(first.guardrail)}*: ${slackDates(fit(first.refused, 300))} — ${slackDates(fit(first.instead || first.why, 300))} (journal #${r.event.seq}; the step shows it when it comes up)`);
        }
        break;
      }
    }
    await syncThread(ctx, client, service, d.incident);
    return;
  }
  if (r.retook) {
    const l = r.retook;
    await tell(`:recycle: the probe of step \`${esc(d.step)}\` that ${who(l.by)} started ${when(l.at)} on replica \`${esc(l.replica)}\` did not finish (its lease ran out ${when(l.until)}): it ran again, and this run is recorded (journal #${r.event.seq})`);
  }
  if (r.duplicate) {
    await tell(`:information_source: already recorded (journal event #${r.event.seq} by ${who(r.event.actor)} ${when(r.event.happenedAt)})`);
    return;
  }
  await syncThread(ctx, client, service, d.incident, { touched: d.step });
}

/** A probe step's outcome in one line: the verdict and where the report is. */
function probeLine(view: IncidentView, step: StepView): string | undefined {
  if (step.state.state !== 'done') return undefined;
  const seq0 = step.state.seq;
  const payload = view.events.find((e) => e.seq === seq0)?.payload ?? {};
  const seq = payload.report;
  if (typeof seq !== 'number') return undefined;
  const report = view.events.find((e) => e.seq === seq)?.payload.report as { site?: string; verdict?: { status?: string; headline?: string } } | undefined;
  const status = String(report?.verdict?.status ?? (payload.verdict as { status?: string } | undefined)?.status ?? '?').toUpperCase();
  return `:mag: probe of ${esc(report?.site ?? view.incident.site)}: *${esc(status)}* — ${fit(report?.verdict?.headline ?? '', 600)} (report stored as journal event #${seq})`;
}
