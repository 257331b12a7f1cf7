// The incident verbs of `/seat` (everything but probe and help): acked before this runs; each
// decision is recorded under the request's trigger_id, so a replayed request records nothing new.
// Reading (incident list, journal, runbook list) is for anyone in the channel; recording is for
// the on-call people only.
import type { RespondFn } from '@slack/bolt';
import type { ProbeReport } from '../../../commands/probe.ts';
import type { EvidenceArgs, SlackCommand } from '../../../commands/table.ts';
import { overrideState } from '../../../incident/overrides.ts';
import type { IncidentService } from '../../../incident/service.ts';
import type { Evidence, EvidenceSpec, Incident } from '../../../incident/types.ts';
import { userAllowed } from '../../authz.ts';
import type { SeatContext, WebClient } from '../../context.ts';
import { evidenceText, plain, slackDates, who } from '../../incident-blocks.ts';
import { actorOf, conflictText, decideInSlack, ensureThread, guarded, post, postCurrentStep, refreshParent, serviceOf, syncThread, tellByResponse, type Tell } from '../../incident-flow.ts';
import { incidentListMessage, journalMessage, runbookListMessage } from '../../journal-blocks.ts';
import { slackErrorCode } from '../../errors.ts';
import { esc } from '../../mrkdwn.ts';

export type IncidentVerb = Exclude<SlackCommand, { verb: 'probe' | 'help' }>;

/** Verbs that only read the journal: open to anyone the channel allows. */
const READS: ReadonlySet<IncidentVerb['verb']> = new Set(['incident list', 'journal', 'journal verify', 'runbook list']);

export interface IncidentRequest {
  cmd: IncidentVerb;
  user: { id: string; name: string };
  channel: string;
  triggerId: string;
  client: WebClient;
  respond: RespondFn;
  /** The probe report that led to this (Start runbook): journalled as a new incident's first finding. */
  detected?: ProbeReport;
}

export async function incidentCommand(req: IncidentRequest, ctx: SeatContext): Promise<void> {
  const tell = tellByResponse(ctx, req.respond);
  const service = serviceOf(ctx);
  if (!service) {
    await tell(`:x: ${'missing' in ctx.incidents ? ctx.incidents.missing : ''}`);
    return;
  }
  if (!READS.has(req.cmd.verb)) {
    const who = await userAllowed(ctx.fleet.inventory, req.user.id, { groupMembers: (g) => ctx.groupMembers(req.client, g) });
    if (!who.ok) {
      await tell(`:no_entry: ${who.reason.replace('may use /seat', 'may record decisions')}`);
      return;
    }
  }
  await guarded(ctx, tell, `/seat ${req.cmd.verb}`, () => run(req, service, ctx, tell));
}

async function run(req: IncidentRequest, service: IncidentService, ctx: SeatContext, tell: Tell): Promise<void> {
  const { cmd, client, channel } = req;
  const actor = actorOf(req.user);
  const key = `slack:trigger:${req.triggerId}`;
  const pick = async (id: number | undefined): Promise<Incident | null> => {
    const r = await service.resolve(id);
    if (!('error' in r)) return r;
    await tell(`:x: ${esc(r.error)}`);
    return null;
  };
  const thread = (i: Incident) => ensureThread(ctx, client, service, i, channel, tell);
  const inThread = async (i: Incident, text: string, detail?: string): Promise<void> => {
    const t = await thread(i);
    if (!t) return;
    await post(ctx, client, t.channel, t.thread, { text, blocks: [{ type: 'section', text: { type: 'mrkdwn', text } }, ...(detail ? [{ type: 'context' as const, elements: [plain(detail)] }] : [])] });
  };

  switch (cmd.verb) {
    case 'incident open': {
      const r = await service.open({ site: cmd.site, title: cmd.title, actor, dedupe: key });
      if ('error' in r) return tell(`:x: ${esc(r.error)}`);
      if (r.duplicate && r.incident.slack) return;
      await thread(r.incident);
      return;
    }
    case 'incident list':
      return reply(req.respond, ctx, incidentListMessage(await service.deps.store.incidents(cmd.all ? {} : { status: 'open' }), cmd.all));
    case 'incident close': {
      const i = await pick(cmd.incident);
      if (!i) return;
      const r = await service.close(i.id, actor, cmd.reason, key);
      if ('error' in r) return tell(`:x: ${esc(r.error)}`);
      await refreshParent(ctx, client, service, i.id);
      await inThread(r.incident, `:white_check_mark: incident #${i.id} closed by ${who(actor)}${await closedRequests(service, i.id)}`, cmd.reason ? `how it ended: ${cmd.reason}` : undefined);
      return;
    }
    case 'runbook list':
      return reply(req.respond, ctx, runbookListMessage(service.deps.runbooks));
    case 'runbook start': {
      let incident: Incident | null;
      if (cmd.incident !== undefined) incident = await pick(cmd.incident);
      else {
        incident = await service.deps.store.newestOpen() ?? null;
        if (!incident) {
          const sites = service.deps.fleet.siteNames;
          const site = cmd.site ?? (sites.length === 1 ? sites[0] : undefined);
          if (!site) return tell(`:x: no open incident: say where with --site (${sites.map(esc).join(', ')})`);
          const r = await service.open({ site, title: cmd.title ?? `runbook ${cmd.runbook}`, actor, dedupe: `${key}:open` });
          if ('error' in r) return tell(`:x: ${esc(r.error)}`);
          incident = r.incident;
          // The incident begins when it was detected: the report that led here is its first finding (time to detect ≥ 0).
          const seen = req.detected;
          if (!r.duplicate && seen && seen.site === site && seen.verdict.runbook === cmd.runbook) await service.attachReport(incident.id, seen);
        }
      }
      if (!incident) return;
      const before = await service.view(incident.id);
      const same = before?.pin?.runbook === cmd.runbook && !cmd.repin;
      if (!same) {
        const r = await service.pin(incident.id, cmd.runbook, actor, `${key}:pin`);
        if ('error' in r) return tell(`:x: ${esc(r.error)}`);
      }
      const t = await thread((await service.deps.store.incident(incident.id))!);
      if (!t) return;
      await refreshParent(ctx, client, service, incident.id);
      const view = (await service.view(incident.id))!;
      if (same) {
        const drift = service.pinDrift(view);
        if (drift) await tell(`:information_source: ${esc(view.pin!.file)} has changed since it was pinned; #${incident.id} keeps its copy until \`/seat runbook start ${esc(cmd.runbook)} ${incident.id} --repin\``);
      }
      await postCurrentStep(ctx, client, service, view);
      if (t.channel !== channel) await tell(`:information_source: incident #${incident.id} lives in <#${t.channel}>: its steps are in the thread there`);
      return;
    }
    case 'step done':
    case 'step skip': {
      const i = await pick(cmd.incident);
      if (!i) return;
      const t = await thread(i);
      if (!t) return;
      const msg = { channel: t.channel, ts: null };
      if (cmd.verb === 'step skip') return decideInSlack(ctx, client, service, { incident: i.id, step: cmd.step, decision: 'skip', actor, reason: cmd.reason, dedupe: key }, msg, tell);
      const spec = (await service.view(i.id))?.steps.find((s) => s.spec.id === cmd.step)?.spec;
      const evidence = typedEvidence(cmd.evidence, spec?.evidence);
      if ('error' in evidence) return tell(`:x: ${esc(evidence.error)}`);
      return decideInSlack(ctx, client, service, { incident: i.id, step: cmd.step, decision: 'done', actor, input: cmd.input, ...(evidence.value ? { evidence: evidence.value } : {}), dedupe: key }, msg, tell);
    }
    case 'step block': {
      const i = await pick(cmd.incident);
      if (!i) return;
      const r = await service.block({ incident: i.id, step: cmd.step, reason: cmd.reason, actor, dedupe: key });
      if ('error' in r) return tell(`:x: ${esc(r.error)}`);
      if ('conflict' in r) return tell(conflictText(cmd.step, r.conflict.by, r.conflict.at, r.conflict.kind));
      if (!r.duplicate) await thread(i);
      await syncThread(ctx, client, service, i.id);
      if (!r.duplicate) await tell(`:construction: step \`${esc(cmd.step)}\` is marked blocked (journal #${r.event.seq}): its message and the checklist say so`);
      return;
    }
    case 'step evidence': {
      const i = await pick(cmd.incident);
      if (!i) return;
      const step = (await service.view(i.id))?.steps.find((s) => s.spec.id === cmd.step);
      if (!step) return tell(`:x: no step "${esc(cmd.step)}" in incident #${i.id}`);
      const evidence = typedEvidence(cmd.evidence, step.spec.evidence);
      if ('error' in evidence) return tell(`:x: ${esc(evidence.error)}`);
      if (!evidence.value) return tell(':x: `step evidence` needs --sha256 with --size, --value, --yes or --no (or press *Evidence* on the step to upload a file)');
      const r = await service.addEvidence({ incident: i.id, step: cmd.step, evidence: evidence.value, actor, dedupe: key });
      if ('error' in r) return tell(`:x: ${esc(r.error)}`);
      if (!r.duplicate) await inThread(i, `:paperclip: evidence on step \`${esc(cmd.step)}\` from ${who(actor)}`, evidenceText(evidence.value));
      await syncThread(ctx, client, service, i.id);
      return;
    }
    case 'note': {
      const i = await pick(cmd.incident);
      if (!i) return;
      const r = await service.note(i.id, cmd.text, actor, key);
      if ('error' in r) return tell(`:x: ${esc(r.error)}`);
      await inThread(i, `:memo: note from ${who(actor)} (journal #${r.event.seq})`, cmd.text);
      return;
    }
    case 'journal': {
      const i = await pick(cmd.incident);
      if (!i) return;
      // The break first: the events after it are not proven.
      const v = await service.deps.store.verify(i.id);
      if (!v.ok) await tell(`:rotating_light: the journal of #${i.id} does NOT hold: event ${v.seq}: ${esc(v.why)}${v.part === 'row' ? ' (shown as its events say)' : '; the events shown are not proven'}`);
      return reply(req.respond, ctx, journalMessage(i, await service.deps.store.events(i.id)));
    }
    case 'journal verify': {
      if (cmd.incident !== undefined && !await service.deps.store.incident(cmd.incident)) return tell(`:x: no incident #${cmd.incident}`);
      const r = await service.deps.store.verify(cmd.incident);
      if (r.ok) return tell(`:white_check_mark: the journal holds: ${r.events} events in ${r.incidents} incident${r.incidents === 1 ? '' : 's'}, every hash and link recomputed`);
      return tell(`:rotating_light: the journal does NOT hold: incident #${r.incident}, event ${r.seq}: ${esc(r.why)} (${r.events} events checked)`);
    }
    case 'override request': {
      const i = await pick(cmd.incident);
      if (!i) return;
      const r = await service.requestOverride({ incident: i.id, step: cmd.step, guardrail: cmd.guardrail, reason: cmd.reason, actor, dedupe: key });
      if ('error' in r) return tell(`:x: ${slackDates(esc(r.error))}`);
      await postOverride(ctx, client, service, i, r.event.seq, channel, tell);
      return;
    }
    case 'override approve': {
      const i = await pick(cmd.incident);
      if (!i) return;
      const r = await service.approveOverride({ incident: i.id, request: cmd.request, actor, dedupe: key });
      if ('error' in r) return tell(`:no_entry: ${slackDates(esc(r.error))}`);
      await postOverride(ctx, client, service, i, cmd.request, channel, tell);
      return;
    }
    case 'export': {
      const i = await pick(cmd.incident);
      if (!i) return;
      const { exportDocument } = await import('../../../postmortem/document.ts');
      const r = await exportDocument(service, i.id, cmd.format, service.deps.now(), ctx.fleet);
      if (!r.ok) return tell(`:x: ${esc(r.error)}`);
      const t = await thread(i);
      if (!t) return;
      try {
        await client.files.uploadV2({
          channel_id: t.channel,
          thread_ts: t.thread,
          content: r.doc,
          filename: `postmortem-${i.id}${i.drill ? '-drill' : ''}.${cmd.format}`,
          title: `${i.drill ? 'DRILL ' : ''}Postmortem #${i.id} (journal head ${r.head.slice(0, 12)})`,
        });
      } catch (err) {
        return tell(`:warning: the postmortem could not be uploaded (${slackErrorCode(err)}): \`seat export ${i.id} --format ${cmd.format} -o FILE\` in a terminal writes it`);
      }
      await tell(`:page_facing_up: the postmortem of incident #${i.id} (${cmd.format}) is uploaded to its thread${t.channel !== channel ? ` in <#${t.channel}>` : ''}: journal head \`${r.head.slice(0, 12)}\``);
      return;
    }
    case 'diagnose': {
      // A pasted log is read before the grammar (diagnose.ts); here: `--seat SEAT`, its docker logs over ssh.
      if (cmd.seat === undefined) return tell(':x: paste the log lines after `/seat diagnose`, or name a seat: `/seat diagnose --seat SEAT`');
      const { readSeatLogs, DEFAULT_SINCE } = await import('../../../logdiag/seat-logs.ts');
      const { renderDiagnosis } = await import('../../../logdiag/render.ts');
      const deps = ctx.probeDeps ?? {};
      const r = await readSeatLogs(cmd.seat, cmd.since ?? DEFAULT_SINCE, ctx.fleet, { env: deps.env ?? process.env, ...(deps.reaper ? { reaper: deps.reaper } : {}), ...(deps.pathPrefix ? { pathPrefix: deps.pathPrefix } : {}) });
      if (!r.ok) return tell(`:x: ${esc(r.error)}`);
      const text = renderDiagnosis(r.diagnosis, { source: r.source });
      const shown = text.length > 3500 ? `${text.slice(0, 3500)}\n… (cut: run seat diagnose --seat ${cmd.seat} in a terminal for all of it)` : text;
      const head = r.diagnosis.problems > 0 ? `:mag: *${r.diagnosis.problems} problem${r.diagnosis.problems === 1 ? '' : 's'}* in ${esc(r.source)}` : `:mag: nothing wrong recognised in ${esc(r.source)}`;
      return tell(`${head}${r.warning ? ` (${esc(r.warning)})` : ''}\n\`\`\`${esc(shown)}\`\`\``);
    }
    default: {
      const unhandled: never = cmd;
      await tell(`:x: \`${esc((unhandled as { verb: string }).verb)}\` is not offered in Slack yet`);
    }
  }
}

/** The override request in the thread (posted once, with Approve while it waits), and the step and checklist with it. */
export async function postOverride(ctx: SeatContext, client: WebClient, service: IncidentService, i: Incident, seq: number, channel: string, tell: Tell): Promise<void> {
  const t = await ensureThread(ctx, client, service, i, channel, tell);
  if (!t) return;
  await syncThread(ctx, client, service, i.id, { requests: [seq] });
}

/** ", closing override requests #4, #9" for the requests the close ended. */
async function closedRequests(service: IncidentService, id: number): Promise<string> {
  const view = await service.view(id);
  if (!view) return '';
  const now = service.deps.now();
  const closed = view.overrides.filter((r) => {
    const st = overrideState(view, r, now);
    return st.state === 'closed' && st.why === 'incident-closed' && Date.parse(r.expiresAt) >= now.getTime();
  });
  return closed.length > 0 ? `; override request${closed.length === 1 ? '' : 's'} ${closed.map((r) => `#${r.seq}`).join(', ')} closed with it` : '';
}

async function reply(respond: RespondFn, ctx: SeatContext, m: { text: string; blocks: unknown[] }): Promise<void> {
  try {
    await respond({ response_type: 'ephemeral', replace_original: false, text: m.text, blocks: m.blocks as never });
  } catch (err) {
    ctx.log.warn(`respond failed: ${err instanceof Error ? err.message : String(err)}`);
  }
}

/** Evidence from the typed flags: a sha256 and size are declared (the bot read no bytes). */
export function typedEvidence(a: EvidenceArgs, spec: EvidenceSpec | undefined): { value?: Evidence } | { error: string } {
  const of = spec?.of ?? 'evidence';
  if (a.sha256 !== undefined) {
    if (a.size === undefined) return { error: '--sha256 needs --size BYTES too' };
    return { value: { kind: 'file', of, name: a.value ?? (spec && 'label' in spec ? spec.label : of), size: a.size, sha256: a.sha256, measured: false } };
  }
  if (a.size !== undefined) return { error: '--size goes with --sha256' };
  if (a.value !== undefined) return { value: { kind: 'value', of, value: a.value } };
  if (a.yes !== undefined) return { value: { kind: 'yesno', of, answer: a.yes } };
  return {};
}
