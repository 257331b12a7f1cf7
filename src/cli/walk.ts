// `seat walk`: the runbook's steps as prompts, for the night the incident takes Slack away. The same
// service and journal as Slack: every answer is a decision recorded (or refused) the moment it is
// given. Lines are read from stdin, so a script or a pseudo-terminal drives it as a person would.
import { createInterface } from 'node:readline';
import { actorName, detectingReport, IncidentService } from '../incident/service.ts';
import { currentStep } from '../incident/engine.ts';
import { retookWords, runningWords } from '../incident/lease-words.ts';
import type { Evidence, StepInput, StepSpec } from '../incident/types.ts';
import { clean } from '../probes/edge/text.ts';
import type { WalkCommand } from '../commands/table.ts';
import type { Fleet } from '../inventory/fleet.ts';
import { evidenceAsk, localActor, measureFile, powerLogFacts, printSteps, refusalLines, withService } from './incident.ts';
import type { CliIo, ExitCode } from './io.ts';
import { NUMERIC_INPUTS, STEP_INPUTS } from '../incident/inputs.ts';

const BODY_LINES = 24;



/** `seat walk [N]`: the journal opened for the walk and closed after it. */
export async function walkToTerminal(cmd: WalkCommand, fleet: Fleet, io: CliIo, inventoryPath: string): Promise<ExitCode> {
  return withService(fleet, io, inventoryPath, (service) => walk(service, cmd.incident, io));
}

export async function walk(service: IncidentService, id: number | undefined, io: CliIo): Promise<ExitCode> {
  const say = (s: string): void => void io.stdout.write(`${s}\n`);
  const found = await service.resolve(id);
  if ('error' in found) {
    io.stderr.write(`seat: ${found.error}\n`);
    return 2;
  }
  const actor = localActor(io.env);
  if (!io.stdin) {
    io.stderr.write('seat: walk needs a terminal or lines on standard input\n');
    return 2;
  }
  const rl = createInterface({ input: io.stdin, terminal: false });
  const lines = rl[Symbol.asyncIterator]();
  const ask = async (q: string): Promise<string | null> => {
    io.stdout.write(`${q} `);
    const next = await lines.next();
    return next.done ? null : clean(next.value).trim();
  };
  try {
    let view = (await service.view(found.id))!;
    if (!view.pin) {
      io.stderr.write(`seat: #${found.id} has no runbook yet: seat runbook start <runbook> ${found.id}\n`);
      return 2;
    }
    say(`incident #${view.incident.id} · ${view.incident.site} · ${clean(view.incident.title)} · runbook ${view.pin.runbook} (sha256 ${view.pin.sha256.slice(0, 12)})`);
    const drift = service.pinDrift(view);
    if (drift) say(`note: ${view.pin.file} has changed since it was pinned; this walk follows the pinned copy`);
    for (;;) {
      view = (await service.view(found.id))!;
      const cur = currentStep(view);
      if (!cur) {
        printSteps(io, view);
        return 0;
      }
      const n = view.steps.indexOf(cur) + 1;
      say('');
      say(`step ${n} of ${view.steps.length}: ${cur.spec.title}  [${cur.spec.id}]`);
      say(`why: ${cur.spec.why}`);
      const body = cur.spec.body.trim().split('\n').slice(0, BODY_LINES).map((l) => `  ${clean(l)}`);
      if (body.length > 0 && body[0] !== '  ') say(body.join('\n'));
      if (cur.state.state === 'blocked') say(`last attempt refused by ${cur.state.guardrail}: ${clean(cur.state.refused)}`);
      if (cur.spec.evidence) say(`needs: ${evidenceAsk(cur.spec.evidence)}`);
      const choice = await ask('[d]one, [s]kip, [n]ote, [o]verride request, [q]uit >');
      if (choice === null || choice === 'q' || choice === 'quit') {
        say(choice === null ? 'input ended: stopped; nothing undecided was recorded' : 'stopped; decisions so far are in the journal');
        return 0;
      }
      if (choice === 'n' || choice === 'note') {
        const text = await ask('note:');
        if (text === null) return 0;
        const r = await service.note(view.incident.id, text, actor);
        say('error' in r ? `not recorded: ${r.error}` : `noted (event ${r.event.seq})`);
        continue;
      }
      if (choice === 's' || choice === 'skip') {
        const reason = await ask('why skip it (becomes an action item):');
        if (reason === null) return 0;
        const r = await service.decide({ incident: view.incident.id, step: cur.spec.id, decision: 'skip', actor, reason });
        say(r.ok ? `recorded: skipped by ${actorName(actor)} (event ${r.event.seq}, journal head ${r.event.hash.slice(0, 12)})` : r.kind === 'invalid' ? `not recorded: ${r.message}` : r.kind === 'conflict' ? `already decided by ${actorName(r.by)} at ${r.at}` : 'refused');
        continue;
      }
      if (choice === 'o' || choice === 'override') {
        const blocked = cur.state.state === 'blocked' ? cur.state : undefined;
        if (!blocked) {
          say('nothing refused this step yet: try [d]one first');
          continue;
        }
        const reason = await ask(`why go past ${blocked.guardrail} this time:`);
        if (reason === null) return 0;
        const r = await service.requestOverride({ incident: view.incident.id, step: cur.spec.id, guardrail: blocked.guardrail, reason, actor });
        if ('error' in r) say(`not recorded: ${r.error}`);
        else say(`override request #${r.event.seq} recorded until ${r.expiresAt}; a second on-call person runs: seat override approve ${r.event.seq} --incident ${view.incident.id}`);
        continue;
      }
      if (choice !== 'd' && choice !== 'done') {
        say('answer d, s, n, o or q');
        continue;
      }
      const evidence = await askEvidence(cur.spec, ask, say);
      if (evidence === null) return 0;
      const input = await askInput(cur.spec, ask, say);
      if (input === null) return 0;
      if (cur.spec.kind === 'probe' && !detectingReport(view, input.site ?? view.incident.site, (io.now ?? (() => new Date()))())) say(`probing ${view.incident.site}…`);
      const r = await service.decide({ incident: view.incident.id, step: cur.spec.id, decision: 'done', actor, ...(evidence ? { evidence } : {}), input });
      if (r.ok) {
        if (r.retook) say(retookWords(r.retook));
        say(`recorded: ${cur.spec.id} done by ${actorName(actor)} at ${r.event.happenedAt} (event ${r.event.seq}, journal head ${r.event.hash.slice(0, 12)})`);
        const v = r.event.payload.verdict as { status?: string; runbook?: string | null } | undefined;
        const from = r.event.payload.detected === true ? `the probe that detected the incident, event ${String(r.event.payload.report)}: not polled again` : `report stored as event ${String(r.event.payload.report)}`;
        if (v) say(`probe: ${v.status ?? '?'}${v.runbook ? `, proposes ${v.runbook}` : ''} (${from})`);
      } else if (r.kind === 'refused') {
        for (const l of refusalLines(r.refusals, cur.spec.id, view.incident.id)) say(l);
        say(`the refusal is recorded (event ${r.event.seq}); [o]verride request, [s]kip, or do what it says and try again`);
      } else if (r.kind === 'answered-no') {
        say(`recorded: ${cur.spec.id} answered no (event ${r.event.seq}); the step stays open: [d]one once the answer is yes, or [s]kip`);
      } else if (r.kind === 'conflict') {
        say(`already decided by ${actorName(r.by)} at ${r.at}`);
      } else if (r.kind === 'running') {
        say(runningWords(r.lease));
      } else {
        say(`not recorded: ${r.message}`);
      }
    }
  } finally {
    rl.close();
  }
}

type Ask = (q: string) => Promise<string | null>;

/** undefined: the step needs none; null: input ended. */
async function askEvidence(spec: StepSpec, ask: Ask, say: (s: string) => void): Promise<Evidence | undefined | null> {
  const e = spec.evidence;
  if (!e) return undefined;
  for (;;) {
    if (e.kind === 'yesno') {
      const a = await ask(`${e.question} [y/n]:`);
      if (a === null) return null;
      if (/^y(es)?$/i.test(a)) return { kind: 'yesno', of: e.of, answer: true };
      if (/^no?$/i.test(a)) return { kind: 'yesno', of: e.of, answer: false };
      say('answer y or n');
      continue;
    }
    if (e.kind === 'value') {
      const a = await ask(`${e.label}:`);
      if (a === null) return null;
      if (a === '') continue;
      return { kind: 'value', of: e.of, value: a };
    }
    const a = await ask(`${e.label}: a local path (hashed here), or "sha256 <hex> <bytes>" as declared:`);
    if (a === null) return null;
    const declared = /^sha256\s+([0-9a-fA-F]{64})\s+(\d{1,15})$/.exec(a);
    if (declared) return { kind: 'file', of: e.of, name: e.label, size: Number(declared[2]), sha256: declared[1]!.toLowerCase(), measured: false };
    const m = await measureFile(a);
    if ('error' in m) {
      say(m.error);
      continue;
    }
    say(`measured: ${m.size} bytes, sha256 ${m.sha256}`);
    const facts = e.of === 'power-log' ? await powerLogFacts(a) : undefined;
    if (facts?.peakW != null) say(`power log: peak ${Math.round(facts.peakW)} W summed over ${facts.gpus} GPUs at ${facts.peakAt ?? '?'}; last row ${facts.last ?? '?'}`);
    return { kind: 'file', of: e.of, name: a, size: m.size, sha256: m.sha256, measured: true, ...(facts ? { powerlog: facts } : {}) };
  }
}

async function askInput(spec: StepSpec, ask: Ask, say: (s: string) => void): Promise<StepInput | null> {
  const fields = spec.action ? (STEP_INPUTS[spec.action] ?? []) : [];
  const input: StepInput = {};
  for (const f of fields) {
    for (;;) {
      const a = await ask(`${f}:`);
      if (a === null) return null;
      if (a === '') break;
      if (NUMERIC_INPUTS.has(f)) {
        if (!/^\d{1,12}$/.test(a)) {
          say(`${f} is a whole number`);
          continue;
        }
        (input as Record<string, unknown>)[f] = Number(a);
      } else {
        (input as Record<string, unknown>)[f] = a;
      }
      break;
    }
  }
  return input;
}
