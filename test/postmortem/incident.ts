// A site-dark incident at fv, scripted on a fixed clock so its postmortem is the same bytes every
// run: a real SQLite journal in a temp folder, the real runbooks and guardrails through the
// IncidentService, and probe reports made of findings built by the probes' own constructors
// (test/helpers/findings.ts), diagnosed by the real summarize/decide.
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SCHEMA_VERSION } from '../../src/probes/canonical.ts';
import { sortFindings, type ProbeReport } from '../../src/commands/probe.ts';
import { decide, summarize } from '../../src/diagnose/verdict.ts';
import { IncidentService } from '../../src/incident/service.ts';
import type { Actor } from '../../src/incident/types.ts';
import { Fleet } from '../../src/inventory/fleet.ts';
import { parseInventory } from '../../src/inventory/load.ts';
import { openSqliteJournal } from '../../src/journal/sqlite.ts';
import type { JournalStore } from '../../src/journal/store.ts';
import { makeFinding, measured } from '../../src/probes/finding.ts';
import { failureFindings } from '../../src/probes/gpu/findings.ts';
import type { ProcessRow } from '../../src/probes/gpu/parse.ts';
import type { Finding, ProbeGroup } from '../../src/probes/types.ts';
import { loadRunbooks } from '../../src/runbooks/load.ts';
import { address, alias, gatewayKey, gpus, ok, seat, status, transport, ups } from '../helpers/findings.ts';

export const ANA: Actor = { kind: 'local', name: 'ana' };
export const BOB: Actor = { kind: 'local', name: 'bob' };
export const DAY = '2026-12-03';
export const EXPORTED_AT = new Date(`${DAY}T09:00:00.000Z`);

export async function examplesFleet(): Promise<Fleet> {
  const r = parseInventory(await readFile(new URL('../../examples/fleet.yaml', import.meta.url), 'utf8'));
  if (!r.ok) throw new Error(r.errors.join('\n'));
  return new Fleet(r.value);
}

/** A clock the script moves: the service, the store's recordedAt and the probe reports read it. */
export class ScriptClock {
  private t: number;
  constructor(start: string) {
    this.t = Date.parse(start);
  }
  readonly now = (): Date => new Date(this.t);
  at(hhmmss: string): void {
    this.t = Date.parse(`${DAY}T${hhmmss}.000Z`);
  }
  iso(): string {
    return new Date(this.t).toISOString();
  }
}

export interface Journal {
  dir: string;
  path: string;
  store: JournalStore;
  fleet: Fleet;
  clock: ScriptClock;
  service: IncidentService;
  close(): Promise<void>;
}

/** An empty journal in a temp folder, with a service on the script's clock. */
export async function openJournal(prefix = 'seatbelt-export-', o: { probe?: (site: string, only?: ProbeGroup[]) => ProbeReport } = {}): Promise<Journal> {
  const dir = await mkdtemp(join(tmpdir(), prefix));
  const path = join(dir, 'journal.sqlite');
  const clock = new ScriptClock(`${DAY}T07:00:00.000Z`);
  const store = openSqliteJournal(path, { now: clock.now });
  const fleet = await examplesFleet();
  const { runbooks } = await loadRunbooks();
  const service = new IncidentService({ store, fleet, runbooks, now: clock.now, ...(o.probe ? { probe: async (site: string, spec?: { only?: ProbeGroup[] }) => o.probe!(site, spec?.only) } : {}) });
  return {
    dir,
    path,
    store,
    fleet,
    clock,
    service,
    close: async () => {
      try {
        await store.close();
      } catch {
        // already closed by the test
      }
      await rm(dir, { recursive: true, force: true });
    },
  };
}

// ---------------------------------------------------------------------------------------------
// Probe reports

const FV_ML1 = (fleet: Fleet): Set<string> => new Set([...fleet.aliases.values()].filter((a) => a.seats.some((s) => s.host.name === 'fv-ml1')).map((a) => a.name));

function aliasFindings(fleet: Fleet, down: (name: string) => boolean): Finding[] {
  const keys = Object.keys(fleet.inventory.gateway.keys).map((k) => gatewayKey(fleet, k, 'ok'));
  const aliases = [...fleet.aliases.keys()].map((n) => (down(n) ? alias(fleet, n, status(500, 'litellm.InternalServerError: Connection error'), transport('timeout')) : alias(fleet, n, 'ok')));
  const seats = [...fleet.seats.values()].map((s) => seat(fleet, s.name, down(s.name) || (s.host.name === 'fv-ml1' && down('*')) ? transport('timeout') : ok()));
  return [...keys, ...aliases, ...seats];
}

function upsDark(fleet: Fleet): Finding {
  const u = fleet.site('fv')!.ups!;
  return makeFinding(() => new Date(0), {
    probe: 'ups',
    target: `${u.name}@${u.host}:${u.port}`,
    subject: { kind: 'ups', site: 'fv', ups: u.name },
    site: 'fv',
    status: 'down',
    reason: 'timeout',
    detail: `upsd unreachable at ${u.host}:${u.port}: no answer within 3000 ms`,
    provenance: measured({ how: 'nut', host: u.host, port: u.port, ups: u.name, command: 'LIST VAR' }),
    latencyMs: null,
    data: { kind: 'ups', ups: { ups: u.name, status: [], loadPct: null, loadW: null, loadWFrom: null, ratedW: u.ratedW ?? null, ratedVA: u.ratedVA ?? null, chargePct: null, runtimeS: null, warnPct: 80, vars: {} } },
  });
}

function oob(answered: boolean): Finding[] {
  return [
    address('fv', 'bmc', 'fv-ml1-bmc', answered),
    address('fv', 'firewall', 'fv firewall', answered),
    address('fv', 'host', 'fv-ml1', answered),
    address('ana', 'control', 'ana firewall', true),
    address('irv', 'control', 'irv firewall', true),
  ];
}

const p = (gpuIndex: number, pid: number, name: string, usedMiB: number): ProcessRow => ({ gpuUuid: null, gpuIndex, pid, name, usedMiB });

/** fv-ml1's four cards: `flash` is what flash-next holds on GPU2 (95,000 puts it under the floor). */
function fvGpus(fleet: Fleet, flash: number): Finding[] {
  const procs = [
    p(0, 4101, 'vllm:gen', 41_200),
    p(0, 4102, 'vllm:coder', 40_900),
    p(1, 4201, 'vllm:summarizer', 28_000),
    p(1, 4202, 'vllm:classifier', 18_500),
    p(1, 4203, 'vllm:vision', 33_000),
    p(2, 4301, 'vllm:flash-next', flash),
    p(3, 4401, 'vllm:reasoning', 57_000),
    p(3, 4402, 'vllm:embed-fv', 9_500),
  ];
  const total = 97_887;
  const used = (i: number): number => procs.filter((x) => x.gpuIndex === i).reduce((a, x) => a + (x.usedMiB ?? 0), 0) + 512;
  return gpus(fleet, 'fv-ml1', [0, 1, 2, 3].map((index) => ({ index, used: used(index), free: total - used(index) })), procs);
}

export function report(fleet: Fleet, findings: Finding[], finishedAt: string): ProbeReport {
  const stamped = sortFindings(findings.map((f) => ({ ...f, observedAt: finishedAt })));
  const summary = summarize(fleet, stamped, ['fv']);
  return {
    schemaVersion: SCHEMA_VERSION,
    site: 'fv',
    fleet: fleet.inventory.fleet,
    drill: fleet.inventory.drill,
    sites: ['fv'],
    startedAt: new Date(Date.parse(finishedAt) - 3000).toISOString(),
    finishedAt,
    durationMs: 3000,
    timeoutMs: fleet.inventory.settings.probeTimeoutMs,
    deadlineMs: fleet.inventory.settings.deadlineMs,
    findings: stamped,
    summary,
    verdict: decide(['fv'], summary),
  };
}

const GROUP_OF: Partial<Record<Finding['probe'], ProbeGroup>> = { gateway: 'aliases', alias: 'aliases', seat: 'aliases', gpu: 'gpus', ups: 'power', bmc: 'power', firewall: 'power', host: 'power' };

/** Only the findings of the groups a step probes (`only`), as the runner would have planned them. */
function groups(findings: Finding[], only?: ProbeGroup[]): Finding[] {
  return only ? findings.filter((f) => only.includes(GROUP_OF[f.probe] ?? ('?' as ProbeGroup))) : findings;
}

/** Every probe at fv while it is dark: its aliases fail, nothing at the site answers, the other sites do. */
export function darkReport(fleet: Fleet, at: string, only?: ProbeGroup[]): ProbeReport {
  const onFv = FV_ML1(fleet);
  const host = fleet.hosts.get('fv-ml1')!;
  const gpuDown = failureFindings(
    { clock: () => new Date(0), host, provenance: measured({ how: 'exec', argv: ['ssh', '-o', 'BatchMode=yes', '-o', 'ConnectTimeout=3', 'ops@192.0.2.10', 'nvidia-smi'] }), latencyMs: null, floorMiB: 4096 },
    { status: 'down', reason: 'unreachable', detail: 'ssh: connect to host 192.0.2.10 port 22: Connection timed out' },
  );
  return report(fleet, groups([...aliasFindings(fleet, (n) => onFv.has(n) || n === '*'), ...gpuDown, upsDark(fleet), ...oob(false)], only), at);
}

/** The site back on power: the UPS online at `watts`, every address answers; `flash` MiB on GPU2. */
export function backReport(fleet: Fleet, at: string, o: { watts: number; charge: number; flash: number; down?: Set<string>; only?: ProbeGroup[] }): ProbeReport {
  const u = ups(fleet, 'fv', { 'ups.status': 'OL CHRG', 'ups.load': String(Math.round((o.watts / 900) * 100)), 'ups.realpower': String(o.watts), 'ups.realpower.nominal': '900', 'battery.charge': String(o.charge), 'battery.runtime': '540' });
  const down = o.down ?? new Set<string>();
  return report(fleet, groups([...aliasFindings(fleet, (n) => down.has(n)), ...fvGpus(fleet, o.flash), u, ...oob(true)], o.only), at);
}

// ---------------------------------------------------------------------------------------------
// The incident

export interface Scripted extends Journal {
  id: number;
}

const must = <T>(r: T | { error: string }): T => {
  if (typeof r === 'object' && r !== null && 'error' in r) throw new Error((r as { error: string }).error);
  return r as T;
};

/**
 * Walks site-dark at fv from 07:01 to 08:10 UTC: a dark report, the opening, notes, a correction,
 * the blast radius probed once the quiet quarter hour is over, the UPS reset, a measured power log, two refusals and a skip, an override asked by ana and approved by
 * bob, a report that comes back ok, the close.
 */
export async function scriptSiteDark(): Promise<Scripted> {
  // What the site answers when a step probes it: the groups the runbook's step asks for.
  const queue: ((only?: ProbeGroup[]) => ProbeReport)[] = [];
  const j = await openJournal('seatbelt-export-', {
    probe: (_site, only) => {
      const r = queue.shift();
      if (!r) throw new Error('no probe report queued');
      return r(only);
    },
  });
  const { service, store, fleet, clock } = j;
  const decide = async (step: string, actor: Actor, extra: Partial<Parameters<IncidentService['decide']>[0]> = {}): Promise<void> => {
    const r = await service.decide({ incident: id, step, decision: 'done', actor, ...extra });
    if (!r.ok && r.kind !== 'refused') throw new Error(`${step}: ${JSON.stringify(r)}`);
  };

  clock.at('07:02:00');
  const id = must(await service.open({ site: 'fv', title: 'FV dark: UPS tripped under two loaded cards', actor: ANA, drill: false })).incident.id;
  clock.at('07:02:05');
  await service.attachReport(id, darkReport(fleet, `${DAY}T07:01:20.000Z`));
  clock.at('07:03:00');
  must(await service.pin(id, 'site-dark', ANA));
  clock.at('07:04:00');
  must(await service.note(id, 'called the site: Jo is driving over', ANA));
  clock.at('07:06:00');
  const blame = must(await service.note(id, 'Bob failed to notice the UPS alarm yesterday', BOB)).event.seq;
  clock.at('07:07:00');
  await store.append({ incident: id, kind: 'correction', actor: BOB, happenedAt: clock.iso(), amends: blame, payload: { text: 'The UPS alarm went to a mailbox nobody reads' } });
  // Past no-poll-dark-site's quiet quarter hour after the dark report: the site is probed again, still dark.
  clock.at('07:17:00');
  queue.push((only) => darkReport(fleet, clock.iso(), only));
  await decide('blast-radius', ANA);
  clock.at('07:20:00');
  await store.append({ incident: id, kind: 'evidence', actor: ANA, happenedAt: clock.iso(), step: 'no-polling', payload: { evidence: { kind: 'yesno', of: 'ups-reset', answer: true } } });
  clock.at('07:21:00');
  queue.push((only) => backReport(fleet, clock.iso(), { watts: 612, charge: 41, flash: 95_000, down: new Set(['gen-large']), ...(only ? { only } : {}) }));
  await decide('no-polling', ANA);
  // The users' coverage before any power work.
  clock.at('07:22:00');
  await decide('paid-coverage', ANA, { input: { alias: 'summarizer', backend: 'openrouter' } });
  clock.at('07:23:00');
  const skip = await service.decide({ incident: id, step: 'paid-coverage', decision: 'skip', actor: ANA, reason: 'free aliases on ana-ml2 cover the callers; we should have asked the users first' });
  if (!skip.ok) throw new Error(JSON.stringify(skip));
  clock.at('07:25:00');
  await decide('recover-power-log', ANA, { evidence: { kind: 'file', of: 'power-log', name: '/tank/aimodels/flash-next-mtp-bench/power.log', size: 18_432, sha256: '9f2c4a1be0d3c57a86e2f1b4d09c3e7a5b6f8d2c1e0a9b7c6d5e4f3a2b1c0d9e', measured: true } });
  clock.at('07:30:00');
  await decide('ups-rating', BOB);
  clock.at('07:32:00');
  await decide('power-plan', BOB, { input: { bank: 'surge', loadW: 1200 } });
  clock.at('07:33:00');
  await decide('power-plan', BOB, { input: { bank: 'battery', loadW: 600 } });
  clock.at('07:50:00');
  await decide('recreate-containers', ANA, { input: { method: 'restart' } });
  clock.at('07:51:00');
  const req = must(await service.requestOverride({ incident: id, step: 'recreate-containers', guardrail: 'recreate-not-restart', reason: 'compose file lost with the host; labels unchanged since creation', actor: ANA }));
  clock.at('07:52:00');
  must(await service.approveOverride({ incident: id, request: req.event.seq, actor: BOB }));
  clock.at('07:53:00');
  await decide('recreate-containers', ANA, { input: { method: 'restart' } });
  clock.at('08:05:00');
  await service.attachReport(id, backReport(fleet, clock.iso(), { watts: 540, charge: 78, flash: 90_000 }));
  clock.at('08:06:00');
  await decide('seat-reachable', BOB, { input: { seat: 'gen' } });
  clock.at('08:10:00');
  must(await service.close(id, BOB, 'UPS reset by Jo; every seat answers from outside'));
  const view = (await service.view(id))!;
  const open = view.steps.filter((s) => s.state.state !== 'done' && s.state.state !== 'skipped');
  if (open.length > 0) throw new Error(`steps left open: ${open.map((s) => `${s.spec.id} ${JSON.stringify(s.state)}`).join('; ')}`);
  return { ...j, id };
}
