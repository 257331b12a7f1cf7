// The command table: every command of both front ends, one row each. "/seat probe fv" in Slack
// and "seat probe fv" in a shell are the same row. A free-text command (a later issue: titles,
// notes, reasons) declares `{ kind: 'text' }` as its last argument: the rest of the line, as typed.
import { z } from 'zod';
import type { StepInput } from '../incident/types.ts';
import { PROBE_GROUPS, type ProbeGroup } from '../probes/types.ts';
import { defineCommand, type CommandFor, type FlagSpec, type FrontEnd } from './spec.ts';

export interface ProbeCommand {
  verb: 'probe';
  site: string;
  only: ProbeGroup[];
  json: boolean;
  timeoutMs: number | null;
  paid: boolean;
  /** Every finding, not only the problems (up rows are otherwise folded into counts). */
  all: boolean;
}
export interface HelpCommand {
  verb: 'help';
  /** A command to explain; none: the usage of every command. */
  topic?: string;
}
export interface CheckCommand { verb: 'check' }
export interface VersionCommand { verb: 'version' }
export interface BotCommand { verb: 'bot' }
export interface VantageCommand { verb: 'vantage' }

export interface IncidentOpenCommand { verb: 'incident open'; site: string; title: string }
export interface IncidentListCommand { verb: 'incident list'; all: boolean }
export interface IncidentCloseCommand { verb: 'incident close'; incident?: number; reason?: string }
export interface RunbookListCommand { verb: 'runbook list' }
export interface RunbookCheckCommand { verb: 'runbook check' }
export interface RunbookStartCommand {
  verb: 'runbook start';
  runbook: string;
  incident?: number;
  site?: string;
  repin: boolean;
  /** The title of an incident it opens (the probe report's Start runbook button gives its verdict); not typed. */
  title?: string;
}
/** Evidence as typed or pointed at: the front end measures a file itself. */
export interface EvidenceArgs { file?: string; sha256?: string; size?: number; value?: string; yes?: boolean }
export interface StepDoneCommand { verb: 'step done'; step: string; incident?: number; evidence: EvidenceArgs; input: StepInput }
export interface StepSkipCommand { verb: 'step skip'; step: string; incident?: number; reason: string }
export interface StepBlockCommand { verb: 'step block'; step: string; incident?: number; reason: string }
export interface StepEvidenceCommand { verb: 'step evidence'; step: string; incident?: number; evidence: EvidenceArgs }
export interface NoteCommand { verb: 'note'; incident?: number; text: string }
export interface JournalCommand { verb: 'journal'; incident?: number }
/** `head`: a head hash someone kept (8 to 64 hex digits, lowercased), checked against the journal. */
export interface JournalVerifyCommand { verb: 'journal verify'; incident?: number; head?: string }
export interface JournalStatusCommand { verb: 'journal status' }
export interface JournalImportCommand { verb: 'journal import'; file: string; into?: number; incident?: number }
export interface WalkCommand { verb: 'walk'; incident?: number }
export interface OverrideRequestCommand { verb: 'override request'; step: string; guardrail: string; incident?: number; reason: string }
export interface OverrideApproveCommand { verb: 'override approve'; request: number; incident?: number }

export interface ExportCommand { verb: 'export'; incident?: number; format: 'md' | 'html'; output?: string }
export interface PowerlogCommand { verb: 'powerlog'; file: string; site?: string }
/** `input`: in the terminal a path or `-` (stdin); in Slack the pasted snippet. */
export interface DiagnoseCommand { verb: 'diagnose'; input?: string; seat?: string; since?: string }
export interface WatchGpusCommand { verb: 'watch gpus'; host: string; forMs: number; everyMs: number; seat?: string; gpu?: number; util?: number }
export interface DrillCommand { verb: 'drill'; scenario?: string; list: boolean }

const Duration = z
  .string()
  .regex(/^\d{1,6}(ms|s|m|h)?$/)
  .transform((v) => {
    const m = /^(\d+)(ms|s|m|h)?$/.exec(v)!;
    const n = Number(m[1]);
    return m[2] === 'ms' ? n : m[2] === 'm' ? n * 60_000 : m[2] === 'h' ? n * 3_600_000 : n * 1000;
  })
  .pipe(z.number().int().min(100).max(24 * 3_600_000));

/** `7`, `#7` → 7. */
export function incidentNumber(v: string | undefined): number | undefined {
  return v === undefined ? undefined : Number(v.replace(/^#/, ''));
}

const IncidentFlag = z.string().regex(/^#?[1-9]\d{0,8}$/).transform((v) => Number(v.replace(/^#/, '')));
const INCIDENT_FLAG = { type: 'string', value: 'N', schema: IncidentFlag, expect: 'an incident number like 7', help: 'the incident (default: this thread’s, else the newest open one)' } as const satisfies FlagSpec;
const Int = z.string().regex(/^\d{1,12}$/).transform(Number);
const Word = z.string().regex(/^[A-Za-z0-9][A-Za-z0-9._:/-]{0,127}$/);

const EVIDENCE_FLAGS = {
  file: { type: 'string', value: 'PATH', path: true, help: 'a local file: the terminal measures its size and sha256', frontEnds: ['cli'] },
  sha256: { type: 'string', value: 'HEX', schema: z.string().regex(/^[0-9a-fA-F]{64}$/).transform((v) => v.toLowerCase()), expect: '64 hex digits', help: 'a file’s sha256 as typed: recorded as declared, not measured' },
  size: { type: 'string', value: 'BYTES', schema: Int, expect: 'bytes', help: 'the declared file’s size' },
  value: { type: 'string', value: 'TEXT', text: true, schema: z.string().max(500), expect: 'at most 500 characters', help: 'a pasted value (a restart count, a backup name, a log line): quote it when it has spaces' },
  yes: { type: 'boolean', help: 'answer yes to the step’s question' },
  no: { type: 'boolean', help: 'answer no to the step’s question' },
} as const satisfies Record<string, FlagSpec>;

const INPUT_FLAGS = {
  alias: { type: 'string', value: 'ALIAS', schema: Word, expect: 'an alias name', help: 'alias-route: the alias to point' },
  backend: { type: 'string', value: 'NAME', schema: Word, expect: 'a backend name', help: 'alias-route: the backend it is to point at' },
  seat: { type: 'string', value: 'SEAT', schema: Word, expect: 'a seat name', help: 'the seat moved, resized or brought up' },
  host: { type: 'string', value: 'HOST', schema: Word, expect: 'a host name', help: 'the host it goes to' },
  gpu: { type: 'string', value: 'N', schema: Int, expect: 'a GPU index', help: 'the GPU it goes to' },
  'want-mib': { type: 'string', value: 'MIB', schema: Int, expect: 'MiB', help: 'what the seat will take on that GPU (MiB)' },
  backup: { type: 'string', value: 'NAME', schema: Word, expect: 'a file name', help: 'env-edit: the timestamped backup (.env.bak-<why>-yyyyMMdd-HHmmss)' },
  method: { type: 'string', value: 'restart|recreate', schema: z.enum(['restart', 'recreate']), expect: 'restart or recreate', help: 'container-change: how the change is applied' },
  bank: { type: 'string', value: 'battery|surge|bypass', schema: z.enum(['battery', 'surge', 'bypass']), expect: 'battery, surge or bypass', help: 'power-plan: where the load goes' },
  'load-w': { type: 'string', value: 'W', schema: Int, expect: 'watts', help: 'power-plan / power-sizing: the load in watts' },
  site: { type: 'string', value: 'SITE', schema: Word, expect: 'a site', help: 'probe: the site (default: the incident’s)' },
} as const satisfies Record<string, FlagSpec>;

function evidenceOf(f: { file?: string | undefined; sha256?: string | undefined; size?: number | undefined; value?: string | undefined; yes: boolean; no: boolean }): EvidenceArgs {
  const e: EvidenceArgs = {};
  if (f.file !== undefined) e.file = f.file;
  if (f.sha256 !== undefined) e.sha256 = f.sha256;
  if (f.size !== undefined) e.size = f.size;
  if (f.value !== undefined) e.value = f.value;
  if (f.yes) e.yes = true;
  if (f.no) e.yes = false;
  return e;
}

function inputOf(f: Record<string, unknown>): StepInput {
  const i: StepInput = {};
  const str = (k: string): string | undefined => (typeof f[k] === 'string' ? (f[k] as string) : undefined);
  const num = (k: string): number | undefined => (typeof f[k] === 'number' ? (f[k] as number) : undefined);
  if (str('alias')) i.alias = str('alias')!;
  if (str('backend')) i.backend = str('backend')!;
  if (str('seat')) i.seat = str('seat')!;
  if (str('host')) i.host = str('host')!;
  if (num('gpu') !== undefined) i.gpu = num('gpu')!;
  if (num('want-mib') !== undefined) i.wantMiB = num('want-mib')!;
  if (str('backup')) i.backup = str('backup')!;
  if (str('method')) i.method = str('method') as 'restart' | 'recreate';
  if (str('bank')) i.bank = str('bank') as 'battery' | 'surge' | 'bypass';
  if (num('load-w') !== undefined) i.loadW = num('load-w')!;
  if (str('site')) i.site = str('site')!;
  return i;
}

const ProbeGroups = z
  .string()
  .transform((v) => v.split(',').filter(Boolean))
  .check((ctx) => {
    const unknown = ctx.value.filter((g) => !(PROBE_GROUPS as readonly string[]).includes(g));
    if (unknown.length > 0 || ctx.value.length === 0) {
      ctx.issues.push({ code: 'custom', input: ctx.value, message: `unknown probe ${JSON.stringify(unknown.join(','))} (known: ${PROBE_GROUPS.join(', ')})` });
    }
  })
  .transform((groups) => PROBE_GROUPS.filter((g) => groups.includes(g)));

const Milliseconds = z.string().regex(/^\d{1,9}$/).transform(Number).pipe(z.number().int().min(50).max(120_000));

const PROBE_FLAGS = {
  only: { type: 'string', value: PROBE_GROUPS.join(','), schema: ProbeGroups, help: `only these probe groups (${PROBE_GROUPS.join(', ')})` },
  json: { type: 'boolean', help: 'one JSON object instead of text (terminal only)', frontEnds: ['cli'] },
  timeout: { type: 'string', value: 'MS', schema: Milliseconds, expect: 'milliseconds 50-120000', help: 'per-probe timeout (default: the inventory’s settings.probeTimeoutMs)' },
  paid: { type: 'boolean', help: 'also send the one-token request to paid backends (billable); by default they are only listed' },
  all: { type: 'boolean', help: 'show every finding, not only the problems; up rows are folded into counts otherwise' },
} as const satisfies Record<string, FlagSpec>;

export const COMMANDS = [
  defineCommand({
    words: ['probe'],
    summary: 'probe one site (or all): gateway aliases, seats, GPUs, UPS, BMC, firewall',
    frontEnds: ['cli', 'slack'],
    needsInventory: true,
    args: [{ name: 'site', kind: 'site-or-all', required: true, shown: '<site|all>', help: 'a site of the inventory, or all' }],
    flags: PROBE_FLAGS,
    build: ({ args, flags }): ProbeCommand => ({
      verb: 'probe',
      site: args.site,
      only: flags.only ?? [...PROBE_GROUPS],
      json: flags.json,
      timeoutMs: flags.timeout ?? null,
      paid: flags.paid,
      all: flags.all,
    }),
  }),
  defineCommand({
    words: ['help', '--help', '-h'],
    summary: 'usage, or one command’s arguments and flags',
    frontEnds: ['cli', 'slack'],
    needsInventory: false,
    args: [{ name: 'topic', kind: 'command', required: false, shown: '[command]', help: 'the command to explain' }],
    flags: {},
    build: ({ args }): HelpCommand => (args.topic === undefined ? { verb: 'help' } : { verb: 'help', topic: args.topic }),
  }),
  defineCommand({
    words: ['check'],
    summary: 'validate the inventory and print what it describes, never a secret value',
    frontEnds: ['cli'],
    needsInventory: true,
    args: [],
    flags: {},
    build: (): CheckCommand => ({ verb: 'check' }),
  }),
  defineCommand({
    words: ['version', '--version'],
    summary: 'the version of seatbelt',
    frontEnds: ['cli'],
    needsInventory: false,
    args: [],
    flags: {},
    build: (): VersionCommand => ({ verb: 'version' }),
  }),
  defineCommand({
    words: ['bot'],
    summary: 'run the Slack front end',
    frontEnds: ['cli'],
    needsInventory: true,
    args: [],
    flags: {},
    build: (): BotCommand => ({ verb: 'bot' }),
  }),
  defineCommand({
    words: ['vantage'],
    summary: "answer the bot replicas' probe requests from this machine, without Slack: a second vantage point",
    frontEnds: ['cli'],
    needsInventory: true,
    args: [],
    flags: {},
    build: (): VantageCommand => ({ verb: 'vantage' }),
  }),
  defineCommand({
    words: ['incident open'],
    summary: 'open an incident at a site; the title is free text',
    frontEnds: ['cli', 'slack'],
    needsInventory: true,
    args: [
      { name: 'site', kind: 'site', required: true, shown: '<site>', help: 'a site of the inventory' },
      { name: 'title', kind: 'text', required: true, shown: '<title…>', help: 'what is wrong, in any words (at most 200 characters)', maxLength: 200 },
    ],
    flags: {},
    build: ({ args }): IncidentOpenCommand => ({ verb: 'incident open', site: args.site, title: args.title }),
  }),
  defineCommand({
    words: ['incident list'],
    summary: 'the open incidents (with --all, the closed ones too)',
    frontEnds: ['cli', 'slack'],
    needsInventory: true,
    args: [],
    flags: { all: { type: 'boolean', help: 'closed incidents too' } },
    build: ({ flags }): IncidentListCommand => ({ verb: 'incident list', all: flags.all }),
  }),
  defineCommand({
    words: ['incident close'],
    summary: 'close an incident',
    frontEnds: ['cli', 'slack'],
    needsInventory: true,
    args: [
      { name: 'incident', kind: 'incident', required: false, shown: '[incident]', help: 'its number (default: this thread’s, else the newest open one)' },
      { name: 'reason', kind: 'text', required: false, shown: '[reason…]', help: 'how it ended', maxLength: 2000 },
    ],
    flags: {},
    build: ({ args }): IncidentCloseCommand => ({ verb: 'incident close', ...opt('incident', incidentNumber(args.incident)), ...opt('reason', args.reason) }),
  }),
  defineCommand({
    words: ['runbook list'],
    summary: 'the runbooks, with what each is for',
    frontEnds: ['cli', 'slack'],
    needsInventory: false,
    args: [],
    flags: {},
    build: (): RunbookListCommand => ({ verb: 'runbook list' }),
  }),
  defineCommand({
    words: ['runbook check'],
    summary: 'validate every runbook in runbooks/ (file, line and what was expected)',
    frontEnds: ['cli'],
    needsInventory: false,
    args: [],
    flags: {},
    build: (): RunbookCheckCommand => ({ verb: 'runbook check' }),
  }),
  defineCommand({
    words: ['runbook start'],
    summary: 'pin a runbook to an incident and show its first step (opens an incident if none is open)',
    frontEnds: ['cli', 'slack'],
    needsInventory: true,
    args: [
      { name: 'runbook', kind: 'name', required: true, shown: '<runbook>', help: 'a runbook id (runbook list)' },
      { name: 'incident', kind: 'incident', required: false, shown: '[incident]', help: 'its number (default: this thread’s, else the newest open one, else a new one)' },
    ],
    flags: {
      site: { type: 'string', value: 'SITE', schema: Word, expect: 'a site', help: 'the site of the new incident, when one is opened' },
      repin: { type: 'boolean', help: 'pin the runbook file of today to an incident that follows an older copy' },
    },
    build: ({ args, flags }): RunbookStartCommand => ({ verb: 'runbook start', runbook: args.runbook, ...opt('incident', incidentNumber(args.incident)), ...opt('site', flags.site), repin: flags.repin }),
  }),
  defineCommand({
    words: ['step done'],
    summary: 'mark a step done, with its evidence; its guardrails are checked first',
    frontEnds: ['cli', 'slack'],
    needsInventory: true,
    args: [{ name: 'step', kind: 'name', required: true, shown: '<step>', help: 'the step’s id' }],
    flags: { incident: INCIDENT_FLAG, ...EVIDENCE_FLAGS, ...INPUT_FLAGS },
    build: ({ args, flags }): StepDoneCommand => ({ verb: 'step done', step: args.step, ...opt('incident', flags.incident), evidence: evidenceOf(flags), input: inputOf(flags) }),
  }),
  defineCommand({
    words: ['step skip'],
    summary: 'skip a step, saying why (it becomes an action item)',
    frontEnds: ['cli', 'slack'],
    needsInventory: true,
    args: [
      { name: 'step', kind: 'name', required: true, shown: '<step>', help: 'the step’s id' },
      { name: 'reason', kind: 'text', required: true, shown: '<reason…>', help: 'why it is skipped', maxLength: 2000 },
    ],
    flags: { incident: INCIDENT_FLAG },
    build: ({ args, flags }): StepSkipCommand => ({ verb: 'step skip', step: args.step, ...opt('incident', flags.incident), reason: args.reason }),
  }),
  defineCommand({
    words: ['step block'],
    summary: 'mark a step as waiting on something outside the runbook',
    frontEnds: ['cli', 'slack'],
    needsInventory: true,
    args: [
      { name: 'step', kind: 'name', required: true, shown: '<step>', help: 'the step’s id' },
      { name: 'reason', kind: 'text', required: true, shown: '<reason…>', help: 'what it waits for', maxLength: 2000 },
    ],
    flags: { incident: INCIDENT_FLAG },
    build: ({ args, flags }): StepBlockCommand => ({ verb: 'step block', step: args.step, ...opt('incident', flags.incident), reason: args.reason }),
  }),
  defineCommand({
    words: ['step evidence'],
    summary: 'add evidence to a step without finishing it',
    frontEnds: ['cli', 'slack'],
    needsInventory: true,
    args: [{ name: 'step', kind: 'name', required: true, shown: '<step>', help: 'the step’s id' }],
    flags: { incident: INCIDENT_FLAG, ...EVIDENCE_FLAGS },
    build: ({ args, flags }): StepEvidenceCommand => ({ verb: 'step evidence', step: args.step, ...opt('incident', flags.incident), evidence: evidenceOf(flags) }),
  }),
  defineCommand({
    words: ['note'],
    summary: 'write a note in the incident’s journal',
    frontEnds: ['cli', 'slack'],
    needsInventory: true,
    args: [{ name: 'text', kind: 'text', required: true, shown: '<text…>', help: 'the note, in any words', maxLength: 2000 }],
    flags: { incident: INCIDENT_FLAG },
    build: ({ args, flags }): NoteCommand => ({ verb: 'note', ...opt('incident', flags.incident), text: args.text }),
  }),
  defineCommand({
    words: ['journal'],
    summary: 'the incident’s journal: every event, who and when',
    frontEnds: ['cli', 'slack'],
    needsInventory: true,
    args: [{ name: 'incident', kind: 'incident', required: false, shown: '[incident]', help: 'its number (default: this thread’s, else the newest open one)' }],
    flags: {},
    build: ({ args }): JournalCommand => ({ verb: 'journal', ...opt('incident', incidentNumber(args.incident)) }),
  }),
  defineCommand({
    words: ['journal verify'],
    summary: 'recompute the journal’s hash chain: exit 0 when it holds, 1 naming the first event that does not',
    frontEnds: ['cli', 'slack'],
    needsInventory: true,
    args: [{ name: 'incident', kind: 'incident', required: false, shown: '[incident]', help: 'one incident (default: all)' }],
    flags: {
      head: {
        type: 'string',
        value: 'HEX',
        schema: z.string().regex(/^[0-9a-fA-F]{8,64}$/).transform((v) => v.toLowerCase()),
        expect: 'a head hash: 8 to 64 hex digits, as a decision or the postmortem showed it',
        help: 'a head you kept: is it still in the chain? (a chain alone cannot see its newest events removed)',
        frontEnds: ['cli'],
      },
    },
    build: ({ args, flags }): JournalVerifyCommand => ({ verb: 'journal verify', ...opt('incident', incidentNumber(args.incident)), ...opt('head', flags.head) }),
  }),
  defineCommand({
    words: ['journal status'],
    summary: 'which journal, which database server answers and whether it takes writes, and the bot replicas seen with their last heartbeat',
    frontEnds: ['cli'],
    needsInventory: true,
    args: [],
    flags: {},
    build: (): JournalStatusCommand => ({ verb: 'journal status' }),
  }),
  defineCommand({
    words: ['journal import'],
    summary: 'append an incident worked in a local journal file (while the shared one was out of reach) to this journal, as a marked segment; a step decided on both sides is named',
    frontEnds: ['cli'],
    needsInventory: true,
    args: [{ name: 'file', kind: 'path', required: true, shown: '<file>', help: 'the local SQLite journal' }],
    flags: {
      into: { type: 'string', value: 'N', schema: IncidentFlag, expect: 'an incident number like 7', help: 'the shared incident it continues (default: open it anew)' },
      incident: { type: 'string', value: 'N', schema: IncidentFlag, expect: 'an incident number like 7', help: 'only this incident of the local file' },
    },
    build: ({ args, flags }): JournalImportCommand => ({ verb: 'journal import', file: args.file, ...opt('into', flags.into), ...opt('incident', flags.incident) }),
  }),
  defineCommand({
    words: ['walk'],
    summary: 'walk an incident’s runbook step by step, with prompts',
    frontEnds: ['cli'],
    needsInventory: true,
    args: [{ name: 'incident', kind: 'incident', required: false, shown: '[incident]', help: 'its number (default: the newest open one)' }],
    flags: {},
    build: ({ args }): WalkCommand => ({ verb: 'walk', ...opt('incident', incidentNumber(args.incident)) }),
  }),
  defineCommand({
    words: ['override request'],
    summary: 'ask a second on-call person to let a refused step past one guardrail (15 minutes)',
    frontEnds: ['cli', 'slack'],
    needsInventory: true,
    args: [
      { name: 'step', kind: 'name', required: true, shown: '<step>', help: 'the refused step' },
      { name: 'guardrail', kind: 'name', required: true, shown: '<guardrail>', help: 'the guardrail that refused it' },
      { name: 'reason', kind: 'text', required: true, shown: '<reason…>', help: 'why going past it is right this time', maxLength: 2000 },
    ],
    flags: { incident: INCIDENT_FLAG },
    build: ({ args, flags }): OverrideRequestCommand => ({ verb: 'override request', step: args.step, guardrail: args.guardrail, ...opt('incident', flags.incident), reason: args.reason }),
  }),
  defineCommand({
    words: ['override approve'],
    summary: 'approve another person’s override request (never your own)',
    frontEnds: ['cli', 'slack'],
    needsInventory: true,
    args: [{ name: 'request', kind: 'number', required: true, shown: '<request>', help: 'the request’s number (#N in the journal)' }],
    flags: { incident: INCIDENT_FLAG },
    build: ({ args, flags }): OverrideApproveCommand => ({ verb: 'override approve', request: Number(args.request.replace(/^#/, '')), ...opt('incident', flags.incident) }),
  }),
  defineCommand({
    words: ['export'],
    summary: 'the incident’s postmortem: Markdown (default) or one self-contained HTML file; uploaded to the thread in Slack',
    frontEnds: ['cli', 'slack'],
    needsInventory: true,
    args: [{ name: 'incident', kind: 'incident', required: false, shown: '[incident]', help: 'its number (default: this thread’s, else the newest open one)' }],
    flags: {
      format: { type: 'string', value: 'md|html', schema: z.enum(['md', 'html']), expect: 'md or html', help: 'Markdown (default) or HTML with charts' },
      output: { type: 'string', short: 'o', value: 'FILE', path: true, help: 'write to FILE instead of standard output', frontEnds: ['cli'] },
    },
    build: ({ args, flags }): ExportCommand => ({ verb: 'export', ...opt('incident', incidentNumber(args.incident)), format: flags.format ?? 'md', ...opt('output', flags.output) }),
  }),
  defineCommand({
    words: ['powerlog'],
    summary: 'read a GPU power log (nvidia-smi --query-gpu=… --format=csv -l N): peak and last minutes per GPU and summed, against the site UPS’s rating',
    frontEnds: ['cli'],
    needsInventory: true,
    args: [{ name: 'file', kind: 'path', required: true, shown: '<file|->', help: 'the log, or - for standard input' }],
    flags: { site: { type: 'string', value: 'SITE', schema: Word, expect: 'a site', help: 'the site whose UPS rating to compare with' } },
    build: ({ args, flags }): PowerlogCommand => ({ verb: 'powerlog', file: args.file, ...opt('site', flags.site) }),
  }),
  defineCommand({
    words: ['diagnose'],
    summary: 'read vLLM logs: KV-cache and start-up memory errors, allocator OOMs, FlashInfer fallbacks per minute, KV cache size and concurrency',
    frontEnds: ['cli', 'slack'],
    needsInventory: false,
    args: [{ name: 'input', kind: 'text', required: false, shown: '<file|-|snippet…>', help: 'terminal: a file or - (stdin); Slack: the pasted log lines', maxLength: 40_000 }],
    flags: {
      seat: { type: 'string', value: 'SEAT', schema: Word, expect: 'a seat', help: 'read the seat’s recent `docker logs` over ssh (when the inventory names its container)' },
      since: { type: 'string', value: 'DURATION', schema: z.string().regex(/^\d{1,5}[smh]$/), expect: 'like 30m', help: 'with --seat: how far back (default 30m)' },
    },
    build: ({ args, flags }): DiagnoseCommand => ({ verb: 'diagnose', ...opt('input', args.input), ...opt('seat', flags.seat), ...opt('since', flags.since) }),
  }),
  defineCommand({
    words: ['watch gpus'],
    summary: 'sample a host’s GPU free memory over a window: min / median free and OOM fallbacks; with --seat --gpu --util, judge a planned move on the measurement',
    frontEnds: ['cli'],
    needsInventory: true,
    args: [{ name: 'host', kind: 'name', required: true, shown: '<host>', help: 'a GPU host of the inventory' }],
    flags: {
      for: { type: 'string', value: 'DURATION', schema: Duration, expect: 'like 6m, 90s', help: 'how long to sample (default 6m)' },
      every: { type: 'string', value: 'DURATION', schema: Duration, expect: 'like 10s', help: 'between samples (default 10s)' },
      seat: { type: 'string', value: 'SEAT', schema: Word, expect: 'a seat', help: 'the seat planned to move' },
      gpu: { type: 'string', value: 'N', schema: Int, expect: 'a GPU index', help: 'the target GPU' },
      util: { type: 'string', value: 'FRACTION', schema: z.string().regex(/^0?\.\d{1,4}$|^1(\.0+)?$/).transform(Number), expect: 'like 0.38', help: 'the planned --gpu-memory-utilization' },
    },
    build: ({ args, flags }): WatchGpusCommand => ({ verb: 'watch gpus', host: args.host, forMs: flags.for ?? 360_000, everyMs: flags.every ?? 10_000, ...opt('seat', flags.seat), ...opt('gpu', flags.gpu), ...opt('util', flags.util) }),
  }),
  defineCommand({
    words: ['drill'],
    summary: 'play a seed as a drill on loopback stand-ins, in a console: fv-site-dark, ana-gpu-oom, brutus-kv-boot',
    frontEnds: ['cli'],
    needsInventory: false,
    args: [{ name: 'scenario', kind: 'name', required: false, shown: '[scenario]', help: 'fv-site-dark (default), ana-gpu-oom or brutus-kv-boot' }],
    flags: { list: { type: 'boolean', help: 'list the scenarios' } },
    build: ({ args, flags }): DrillCommand => ({ verb: 'drill', ...opt('scenario', args.scenario), list: flags.list }),
  }),
] as const;

/** `{ key: value }` when the value is there, `{}` when not (no undefined fields). */
function opt<K extends string, V>(key: K, value: V | undefined): { [P in K]?: V } {
  return (value === undefined ? {} : { [key]: value }) as { [P in K]?: V };
}

/** Flags of the terminal itself, taken off argv before the grammar sees it (a path is no token). */
export const CLI_GLOBAL_FLAGS = {
  inventory: { type: 'string', short: 'i', value: 'FILE', help: 'the fleet inventory (YAML); or set SEAT_INVENTORY' },
} as const satisfies Record<string, FlagSpec>;

/** Every command, in the terminal's hands. */
export type Command = CommandFor<typeof COMMANDS, FrontEnd>;
/** What a front end can be asked: `/seat check` is no Slack command. */
export type CommandOf<E extends FrontEnd> = CommandFor<typeof COMMANDS, E>;
export type SlackCommand = CommandOf<'slack'>;
