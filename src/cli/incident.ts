// The incident commands in the terminal: the same service as Slack, the same journal, printed as
// text. Free text (titles, notes, reasons) is shown with control characters removed, as typed
// otherwise. A decision is printed as recorded only after the store returned it (committed).
import { createHash } from 'node:crypto';
import { createReadStream, existsSync } from 'node:fs';
import { stat } from 'node:fs/promises';
import { hostname, userInfo } from 'node:os';
import { resolve as resolvePath } from 'node:path';
import type { EvidenceArgs } from '../commands/table.ts';
import type { Command } from '../commands/parse.ts';
import { runProbe } from '../commands/probe.ts';
import { actorName, IncidentService, type DecideResult, type Refusal } from '../incident/service.ts';
import { currentStep, type IncidentView, type StepView } from '../incident/engine.ts';
import type { Actor, Evidence, EvidenceSpec, Incident, JournalEvent, PowerLogFacts } from '../incident/types.ts';
import { Fleet } from '../inventory/fleet.ts';
import { OnCallSchema, SettingsSchema } from '../inventory/schema.ts';
import { checkKeptHead } from '../journal/kept-head.ts';
import { journalPath } from '../journal/location.ts';
import { detectingReport } from './last-probe.ts';
import { openJournal, shownJournal } from '../journal/open.ts';
import { retookWords, runningWords } from '../incident/lease-words.ts';
import { JournalError, type JournalStore } from '../journal/store.ts';
import { clean } from '../probes/edge/text.ts';
import { HEARTBEAT_STALE_S } from '../journal/heartbeat.ts';
import { importJournal } from '../journal/import.ts';
import { eventSummary } from '../render/journal.ts';
import { loadRunbooks } from '../runbooks/load.ts';
import type { CliIo, ExitCode } from './io.ts';

type IncidentCommand = Exclude<Command, { verb: 'probe' | 'help' | 'check' | 'version' | 'bot' | 'vantage' | 'runbook check' | 'runbook list' | 'export' | 'powerlog' | 'diagnose' | 'watch gpus' | 'drill' | 'walk' }>;

/** The terminal's person: SEAT_USER (a shared on-call box), else the login name. */
export function localActor(env: NodeJS.ProcessEnv): Actor {
  let name = env.SEAT_USER;
  if (!name) {
    try {
      name = userInfo().username;
    } catch {
      name = 'unknown';
    }
  }
  return { kind: 'local', name: clean(name).slice(0, 64) || 'unknown' };
}

/**
 * No fleet, for the commands that only read the journal (run.ts's READS_JOURNAL) when no inventory is given: no
 * site, host, seat or alias, so nothing can be probed or opened against it, and no postmortem line is
 * put beside a fleet. The gateway's URL is empty: nothing reads it on these paths.
 */
export function noFleet(): Fleet {
  return new Fleet({ fleet: 'none', drill: false, settings: SettingsSchema.parse({}), oncall: OnCallSchema.parse({}), gateway: { baseUrl: '', keys: {} }, sites: {}, seats: {}, aliases: {} });
}

/** `fleet` null: no inventory was given (a command that only reads the journal: run.ts's READS_JOURNAL); the journal is SEAT_JOURNAL's or the state folder's. */
export async function openService(fleet: Fleet | null, io: CliIo, inventoryPath: string | null): Promise<{ service: IncidentService; store: JournalStore; where: string }> {
  const where = fleet ? journalPath(io.env, fleet.inventory, inventoryPath ?? undefined) : journalPath(io.env);
  const known = fleet ?? noFleet();
  const store = await openJournal(where.path, io.now ? { now: io.now } : {});
  const { runbooks } = await loadRunbooks();
  const now = io.now ?? (() => new Date());
  const service = new IncidentService({
    store,
    fleet: known,
    runbooks,
    now,
    probe: (site, only) => runProbe(known, { site, only: only?.only ?? ['aliases', 'gpus', 'power'], timeoutMs: null, paid: false }, { ...(io.probeDeps ?? {}), ...(io.env ? { env: io.env } : {}) }),
  });
  return { service, store, where: `${shownJournal(where.path)} (${where.from})` };
}

/** Opens the journal, runs `work` on the service, closes the journal whatever happens. */
export async function withService(fleet: Fleet | null, io: CliIo, inventoryPath: string | null, work: (service: IncidentService) => Promise<ExitCode>): Promise<ExitCode> {
  let opened: Awaited<ReturnType<typeof openService>>;
  try {
    opened = await openService(fleet, io, inventoryPath);
  } catch (err) {
    io.stderr.write(`seat: cannot open the journal: ${err instanceof Error ? err.message.split('\n')[0] : String(err)}\n`);
    return 3;
  }
  try {
    return await work(opened.service);
  } catch (e) {
    // A journal changed outside seatbelt (a row that is not JSON, a cut chain) is told, not crashed on.
    if (!(e instanceof JournalError)) throw e;
    io.stderr.write(`seat: ${e.message.split('\n')[0] ?? ''}\n`);
    return 1;
  } finally {
    await opened.store.close();
  }
}

export async function incidentToTerminal(cmd: IncidentCommand, fleet: Fleet | null, io: CliIo, inventoryPath: string | null): Promise<ExitCode> {
  return withService(fleet, io, inventoryPath, async (service) => run(cmd, service, io));
}

const out = (io: CliIo, s: string): void => void io.stdout.write(`${s}\n`);
const err = (io: CliIo, s: string): 2 => {
  io.stderr.write(`seat: ${s}\n`);
  return 2;
};

async function run(cmd: IncidentCommand, service: IncidentService, io: CliIo): Promise<ExitCode> {
  const actor = localActor(io.env);
  const pick = (id: number | undefined): Promise<Incident | { error: string }> => service.resolve(id);
  switch (cmd.verb) {
    case 'incident open': {
      const r = await service.open({ site: cmd.site, title: cmd.title, actor });
      if ('error' in r) return err(io, r.error);
      out(io, `opened ${incidentLine(r.incident)}`);
      out(io, `next:    seat runbook start <runbook> ${r.incident.id}   (seat runbook list)`);
      return 0;
    }
    case 'incident list': {
      const list = await service.deps.store.incidents(cmd.all ? {} : { status: 'open' });
      if (list.length === 0) out(io, cmd.all ? 'no incidents in the journal' : 'no open incidents (seat incident list --all for closed ones)');
      for (const i of list) out(io, incidentLine(i));
      return 0;
    }
    case 'incident close': {
      const i = await pick(cmd.incident);
      if ('error' in i) return err(io, i.error);
      const r = await service.close(i.id, actor, cmd.reason);
      if ('error' in r) return err(io, r.error);
      out(io, `closed ${incidentLine(r.incident)}`);
      return 0;
    }
    case 'runbook start': {
      let incident: Incident | { error: string } = cmd.incident === undefined ? (await service.deps.store.newestOpen() ?? { error: '' }) : await pick(cmd.incident);
      if ('error' in incident) {
        if (cmd.incident !== undefined) return err(io, incident.error);
        const site = cmd.site ?? (service.deps.fleet.siteNames.length === 1 ? service.deps.fleet.siteNames[0] : undefined);
        if (!site) return err(io, `no open incident: say where with --site (${service.deps.fleet.siteNames.join(', ')})`);
        const r = await service.open({ site, title: cmd.title ?? `runbook ${cmd.runbook}`, actor });
        if ('error' in r) return err(io, r.error);
        incident = r.incident;
        out(io, `opened ${incidentLine(incident)}`);
        // The probe that proposed this runbook here is the incident's first finding: time to detect counts from it.
        const seen = detectingReport(service.deps.store.path, site, cmd.runbook, (io.now ?? (() => new Date()))());
        if (seen && await service.attachReport(incident.id, seen)) out(io, `detected by the probe of ${site} at ${seen.finishedAt} (journalled as the incident's first finding)`);
      }
      const before = await service.view(incident.id);
      if (before?.pin && before.pin.runbook === cmd.runbook && !cmd.repin) {
        const drift = service.pinDrift(before);
        out(io, `#${incident.id} follows ${before.pin.runbook} pinned at sha256 ${before.pin.sha256.slice(0, 12)}`);
        if (drift) out(io, `note:    ${before.pin.file} has changed since (now ${drift.slice(0, 12)}); this incident keeps its copy until: seat runbook start ${cmd.runbook} ${incident.id} --repin`);
        printSteps(io, before);
        return 0;
      }
      const r = await service.pin(incident.id, cmd.runbook, actor);
      if ('error' in r) return err(io, r.error);
      out(io, `${r.repinned ? 're-pinned' : 'pinned'} ${cmd.runbook} to #${incident.id} (sha256 ${r.view.pin!.sha256.slice(0, 12)})`);
      printSteps(io, r.view);
      return 0;
    }
    case 'step done':
    case 'step evidence': {
      const i = await pick(cmd.incident);
      if ('error' in i) return err(io, i.error);
      const view = (await service.view(i.id))!;
      const step = view.steps.find((s) => s.spec.id === cmd.step);
      if (!step) return err(io, view.pin ? `runbook ${view.pin.runbook} has no step "${cmd.step}" (steps: ${view.steps.map((s) => s.spec.id).join(', ')})` : `#${i.id} has no runbook yet: seat runbook start <runbook> ${i.id}`);
      const evidence = await evidenceFrom(cmd.evidence, step.spec.evidence);
      if ('error' in evidence) return err(io, evidence.error);
      if (cmd.verb === 'step evidence') {
        if (!evidence.value) return err(io, 'step evidence needs --file, --sha256 with --size, --value, --yes or --no');
        const r = await service.addEvidence({ incident: i.id, step: cmd.step, evidence: evidence.value, actor });
        if ('error' in r) return err(io, r.error);
        out(io, `recorded evidence on ${cmd.step}: ${evidenceText(evidence.value)}`);
        return 0;
      }
      const r = await service.decide({ incident: i.id, step: cmd.step, decision: 'done', actor, ...(evidence.value ? { evidence: evidence.value } : {}), input: cmd.input });
      return printDecision(io, r, cmd.step);
    }
    case 'step skip': {
      const i = await pick(cmd.incident);
      if ('error' in i) return err(io, i.error);
      return printDecision(io, await service.decide({ incident: i.id, step: cmd.step, decision: 'skip', actor, reason: cmd.reason }), cmd.step);
    }
    case 'step block': {
      const i = await pick(cmd.incident);
      if ('error' in i) return err(io, i.error);
      const r = await service.block({ incident: i.id, step: cmd.step, reason: cmd.reason, actor });
      if ('error' in r) return err(io, r.error);
      if ('conflict' in r) return err(io, `${cmd.step} was decided meanwhile by ${actorName(r.conflict.by)} at ${r.conflict.at}`);
      out(io, `recorded: ${cmd.step} blocked, waiting for: ${clean(cmd.reason)} (event ${r.event.seq}, journal head ${r.event.hash.slice(0, 12)})`);
      return 0;
    }
    case 'note': {
      const i = await pick(cmd.incident);
      if ('error' in i) return err(io, i.error);
      const r = await service.note(i.id, cmd.text, actor);
      if ('error' in r) return err(io, r.error);
      out(io, `noted in #${i.id} (event ${r.event.seq})`);
      return 0;
    }
    case 'journal': {
      const i = await pick(cmd.incident);
      if ('error' in i) return err(io, i.error);
      // The break first: what follows it is not proven.
      const v = await service.deps.store.verify(i.id);
      if (!v.ok) out(io, `journal does NOT hold for #${i.id}: event ${v.seq}: ${v.why}${v.part === 'row' ? ' (shown below as its events say)' : '; the events below are not proven'} (seat journal verify ${i.id})`);
      out(io, incidentLine(i));
      for (const e of await service.deps.store.events(i.id)) out(io, eventLine(e));
      return v.ok ? 0 : 1;
    }
    case 'journal import': {
      let local: JournalStore;
      try {
        if (!existsSync(cmd.file)) return err(io, `${cmd.file}: no such file`);
        local = await openJournal(cmd.file);
      } catch (e) {
        return err(io, `cannot open ${cmd.file}: ${e instanceof Error ? (e.message.split('\n')[0] ?? '') : String(e)}`);
      }
      try {
        if (resolvePath(cmd.file) === resolvePath(service.deps.store.path)) return err(io, `${cmd.file} is this journal itself: name the local file to import`);
        const r = await importJournal(local, service.deps.store, { file: cmd.file, actor, host: hostname().split('.')[0] || 'host', at: (io.now ?? (() => new Date()))().toISOString(), ...(cmd.into !== undefined ? { into: cmd.into } : {}), ...(cmd.incident !== undefined ? { incident: cmd.incident } : {}) });
        if (!r.ok) return err(io, r.error);
        for (const i of r.incidents) {
          out(io, `imported local #${i.local} into #${i.shared}${i.opened ? ' (opened here)' : ''}: ${i.appended} event${i.appended === 1 ? '' : 's'} appended${i.already ? `, ${i.already} already imported before` : ''}`);
          for (const b of i.bothSides) out(io, `  step ${b.step} was decided on both sides: here event ${b.shared.seq} (${b.shared.kind} by ${actorName(b.shared.by)}), there event ${b.local.seq} (${b.local.kind} by ${actorName(b.local.by)}): the shared decision stands; the local one is kept as a note`);
        }
        return 0;
      } finally {
        await local.close();
      }
    }
    case 'journal status': {
      const store = service.deps.store;
      const side = store.replicaSide;
      const st = await side.status();
      out(io, `journal: ${shownJournal(st.where)} (${st.kind})`);
      out(io, st.kind === 'postgres' ? `database: ${st.server}, ${st.primary ? 'the primary: takes writes' : 'a standby: read-only, decisions are not recorded here'}` : 'database: this file, on this machine (one site; PostgreSQL for replicas at several)');
      const seen = await side.replicas();
      const now = (io.now ?? (() => new Date()))().getTime();
      out(io, seen.length === 0 ? 'replicas seen: none (a bot sends a heartbeat every 15 s while it runs)' : `replicas seen (${seen.length}):`);
      for (const r of seen) {
        const ago = Math.max(0, Math.round((now - Date.parse(r.lastSeen)) / 1000));
        const stale = ago > HEARTBEAT_STALE_S ? ` — no heartbeat for ${ago} s: stopped, or cut off from the database` : '';
        out(io, `  ${clean(r.replica)}  site ${clean(r.site)}  host ${clean(r.host)}  seatbelt ${clean(r.version)}  last seen ${ago} s ago (since ${r.started})${stale}`);
      }
      return 0;
    }
    case 'journal verify': {
      if (cmd.incident !== undefined && !await service.deps.store.incident(cmd.incident)) return err(io, `no incident #${cmd.incident}`);
      const r = await service.deps.store.verify(cmd.incident);
      if (r.ok) {
        const heads = [...r.heads.entries()].map(([id, h]) => `#${id} ${h.slice(0, 12)}`).join(', ');
        out(io, `journal holds: ${r.events} events in ${r.incidents} incident${r.incidents === 1 ? '' : 's'}, every hash and link recomputed${heads ? ` (heads: ${heads})` : ''}`);
        if (cmd.head === undefined) return 0;
        const kept = await checkKeptHead(service.deps.store, cmd.head, cmd.incident, r.heads);
        io.stdout.write(`${kept.ok ? '' : 'journal does NOT hold: '}${kept.line}\n`);
        return kept.ok ? 0 : 1;
      }
      io.stdout.write(`journal does NOT hold: incident #${r.incident}, event ${r.seq}: ${r.why} (${r.events} events checked)\n`);
      return 1;
    }
    case 'override request': {
      const i = await pick(cmd.incident);
      if ('error' in i) return err(io, i.error);
      const r = await service.requestOverride({ incident: i.id, step: cmd.step, guardrail: cmd.guardrail, reason: cmd.reason, actor });
      if ('error' in r) return err(io, r.error);
      out(io, `override request #${r.event.seq} recorded: ${cmd.step} past ${cmd.guardrail}, until ${r.expiresAt}`);
      out(io, `next:    a second on-call person (not you) runs: seat override approve ${r.event.seq} --incident ${i.id}`);
      return 0;
    }
    case 'override approve': {
      const i = await pick(cmd.incident);
      if ('error' in i) return err(io, i.error);
      const r = await service.approveOverride({ incident: i.id, request: cmd.request, actor });
      if ('error' in r) return err(io, r.error);
      out(io, `override #${cmd.request} approved by ${actorName(actor)} (event ${r.event.seq}, journal head ${r.event.hash.slice(0, 12)}); the step can now be done by someone other than you`);
      return 0;
    }
  }
}

export function incidentLine(i: Incident): string {
  const closed = i.status === 'closed' ? ` · closed ${i.closedAt ?? '?'} by ${i.closedBy ? actorName(i.closedBy) : '?'}` : '';
  // Shown as its events say; a row that says otherwise is named, not believed.
  const problems = i.problems ? `\n      ! the journal's row for #${i.id} disagrees with its events: seat journal verify ${i.id}` : '';
  return `#${i.id} [${i.status}]${i.drill ? ' DRILL' : ''} ${clean(i.site)} · ${clean(i.title)} · opened ${i.openedAt} by ${clean(actorName(i.openedBy))}${closed}${problems}`;
}

export function eventLine(e: JournalEvent): string {
  const what = eventSummary(e, evidenceText);
  const step = e.step ? ` ${e.step}` : '';
  return `  ${String(e.seq).padStart(3)} ${e.happenedAt} ${actorName(e.actor).padEnd(10)} ${e.kind}${step}${what ? ` — ${what}` : ''}`;
}

export function evidenceText(e: Evidence): string {
  switch (e.kind) {
    case 'file': {
      const p = e.powerlog;
      const power = p?.peakW != null ? ` · peak ${Math.round(p.peakW)} W summed over ${p.gpus} GPUs at ${p.peakAt ?? '?'}, last row ${p.last ?? '?'}` : '';
      return `${clean(e.name)} ${e.size} bytes sha256 ${e.sha256.slice(0, 12)}… (${e.measured ? 'measured' : 'declared, not measured'})${power}`;
    }
    case 'value':
      return clean(e.value);
    case 'yesno':
      return e.answer ? 'yes' : 'no';
  }
}

export function stepLine(s: StepView): string {
  const st = s.state;
  switch (st.state) {
    case 'pending':
      return `  [ ] ${s.spec.id} — ${s.spec.title}`;
    case 'done':
      return `  [x] ${s.spec.id} — done by ${actorName(st.by)} ${st.at}${st.evidence ? ` · ${evidenceText(st.evidence)}` : ''}`;
    case 'skipped':
      return `  [-] ${s.spec.id} — skipped by ${actorName(st.by)}: ${clean(st.reason)}`;
    case 'blocked':
      return `  [!] ${s.spec.id} — refused by ${st.guardrail}: ${clean(st.refused)}`;
  }
}

export function printSteps(io: CliIo, view: IncidentView): void {
  for (const s of view.steps) out(io, stepLine(s));
  const cur = currentStep(view);
  if (cur) {
    out(io, '');
    out(io, `step:    ${cur.spec.id} — ${cur.spec.title}`);
    out(io, `why:     ${cur.spec.why}`);
    if (cur.spec.evidence) out(io, `needs:   ${evidenceAsk(cur.spec.evidence)}`);
    out(io, `next:    seat step done ${cur.spec.id} --incident ${view.incident.id}   (or: seat walk ${view.incident.id})`);
  } else if (view.pin) {
    out(io, `every step is decided: seat incident close ${view.incident.id}`);
  }
}

export function evidenceAsk(e: EvidenceSpec): string {
  switch (e.kind) {
    case 'file':
      return `${e.label}: a file (--file PATH, measured here; or --sha256 HEX --size BYTES, declared)`;
    case 'value':
      return `${e.label} (--value TEXT)`;
    case 'yesno':
      return `${e.question} (--yes or --no)`;
  }
}

export function refusalLines(refusals: Refusal[], step: string, incident: number): string[] {
  const lines: string[] = [];
  for (const r of refusals) {
    lines.push(`refused by ${r.guardrail}: ${r.refused}`);
    lines.push(`  why:     ${r.why}`);
    lines.push(`  instead: ${r.instead}`);
    if (r.waitsFor) lines.push(`  waits for: ${r.waitsFor}`);
    lines.push(r.override ? `  override: a second on-call person may approve it: seat override request ${step} ${r.guardrail} <reason…> --incident ${incident}` : '  override: none: this guardrail has no override');
  }
  return lines;
}

/** The short head hash a person can keep: `seat journal verify --head` checks it later. */
export function headOf(view: IncidentView): string {
  return view.events.at(-1)?.hash.slice(0, 12) ?? '?';
}

function printDecision(io: CliIo, r: DecideResult, step: string): ExitCode {
  if (r.ok) {
    const e = r.event;
    if (r.retook) out(io, retookWords(r.retook));
    out(io, `${r.duplicate ? 'already recorded' : 'recorded'}: ${step} ${e.kind === 'step.done' ? 'done' : 'skipped'} by ${actorName(e.actor)} at ${e.happenedAt} (event ${e.seq}, journal head ${headOf(r.view)})`);
    if (e.kind === 'step.done' && typeof e.payload.report === 'number') out(io, e.payload.detected === true ? `the probe that detected the incident is this step's report (event ${e.payload.report}): the site was not polled again` : `probe report stored as evidence (event ${e.payload.report})`);
    printSteps(io, r.view);
    return 0;
  }
  switch (r.kind) {
    case 'invalid':
      return err(io, r.message);
    case 'running':
      return err(io, runningWords(r.lease));
    case 'conflict':
      return err(io, `${step} was already decided by ${actorName(r.by)} at ${r.at} (${r.what})`);
    case 'answered-no':
      out(io, `${r.duplicate ? 'already recorded' : 'recorded'}: ${step} answered no to "${r.question}" (event ${r.event.seq}, journal head ${headOf(r.view)}); the step stays open until the answer is yes`);
      return 0;
    case 'refused':
      for (const l of refusalLines(r.refusals, step, r.view.incident.id)) out(io, l);
      out(io, `recorded the refusal (event ${r.event.seq}, journal head ${headOf(r.view)})`);
      return 1;
  }
}

/** Evidence from flags: a path is hashed here (measured); a typed sha256 is declared. */
export async function evidenceFrom(a: EvidenceArgs, spec: EvidenceSpec | undefined): Promise<{ value?: Evidence } | { error: string }> {
  const of = spec?.of ?? 'evidence';
  if (a.file !== undefined) {
    const m = await measureFile(a.file);
    if ('error' in m) return m;
    const facts = of === 'power-log' ? await powerLogFacts(a.file) : undefined;
    return { value: { kind: 'file', of, name: a.file, size: m.size, sha256: m.sha256, measured: true, ...(facts ? { powerlog: facts } : {}) } };
  }
  if (a.sha256 !== undefined) {
    if (a.size === undefined) return { error: '--sha256 needs --size BYTES too' };
    return { value: { kind: 'file', of, name: a.value ?? of, size: a.size, sha256: a.sha256, measured: false } };
  }
  if (a.value !== undefined) return { value: { kind: 'value', of, value: a.value } };
  if (a.yes !== undefined) return { value: { kind: 'yesno', of, answer: a.yes } };
  return {};
}

/** A power log given as evidence is read too: its figures go into the journal beside its hash. */
export async function powerLogFacts(path: string): Promise<PowerLogFacts | undefined> {
  const { openPowerLog, summarisePowerLog, powerLogFactsOf } = await import('../powerlog/index.ts');
  const source = await openPowerLog(path, undefined);
  if (!source.ok) return undefined;
  const r = await summarisePowerLog(source.chunks);
  return r.ok ? powerLogFactsOf(r.summary) : undefined;
}

/** Size and sha256 of a regular file, read by the bot itself. */
export async function measureFile(path: string): Promise<{ size: number; sha256: string } | { error: string }> {
  try {
    const s = await stat(path);
    if (!s.isFile()) return { error: `${path}: not a regular file` };
    const hash = createHash('sha256');
    let size = 0;
    for await (const chunk of createReadStream(path) as AsyncIterable<Buffer>) {
      hash.update(chunk);
      size += chunk.length;
    }
    return { size, sha256: hash.digest('hex') };
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    return { error: `${path}: cannot read it${code ? ` (${code})` : ''}` };
  }
}
