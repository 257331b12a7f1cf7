// A runbook step's machine part: the YAML of its ```seat block, validated here. Every problem comes
// back as a path and one sentence that says what was expected, in the words of the person who
// wrote the block; `load.ts` adds the file and line.
import { z } from 'zod';
import type { StepAction, StepKind } from '../incident/types.ts';
import { PROBE_GROUPS, type ProbeGroup } from '../probes/types.ts';
// The guardrails a step may name are the registry's ids: `src/guardrails/` implements one per id (DESIGN.md's table).
import { GUARDRAIL_IDS } from '../guardrails/index.ts';

export const STEP_KINDS = ['probe', 'check', 'action', 'evidence', 'decision'] as const satisfies readonly StepKind[];

export const STEP_ACTIONS = [
  'power-sizing',
  'power-plan',
  'alias-route',
  'seat-move',
  'seat-resize',
  'seat-up',
  'env-edit',
  'container-change',
  'probe',
] as const satisfies readonly StepAction[];

// The lists above name every member of the unions in types.ts: a member added there and not here fails to compile.
type Missing<All, Listed> = [Exclude<All, Listed>] extends [never] ? true : Exclude<All, Listed>;
const everyKind: Missing<StepKind, (typeof STEP_KINDS)[number]> = true;
const everyAction: Missing<StepAction, (typeof STEP_ACTIONS)[number]> = true;
void everyKind;
void everyAction;

export const EVIDENCE_KINDS = ['file', 'value', 'yesno'] as const;

/** Step ids, evidence names, runbook file names. */
export const STRICT_WORD = /^[a-z][a-z0-9-]{0,39}$/;
export const WORD_RULE = 'a strict word (lower-case letters, digits and "-", starting with a letter, at most 40 characters)';

export const MAX_WHY = 200;
const MAX_LINE = 300;
const MAX_PATTERN = 300;

/** A value as shown back in a message: quoted, and cut short. */
export function show(value: unknown): string {
  if (value === null || value === undefined) return 'nothing (empty)';
  if (typeof value === 'string' && value.trim() === '') return 'an empty string';
  if (Array.isArray(value)) return 'a list';
  if (typeof value === 'object') return 'a mapping';
  const s = typeof value === 'string' ? JSON.stringify(value) : String(value);
  return s.length > 60 ? `${s.slice(0, 57)}...` : s;
}

const word = (what: string) =>
  z.string().regex(STRICT_WORD, { error: (iss) => `expected ${what}: ${WORD_RULE}, got ${show(iss.input)}` });

/** One line of text: trimmed, not empty, no line break, at most `max` characters. */
function oneLine(what: string, max: number) {
  return z
    .string()
    .check((ctx) => {
      const text = ctx.value.trim();
      const lines = text.split(/\r?\n/).length;
      const length = [...text].length;
      let message: string | undefined;
      if (text === '') message = `expected ${what}, got an empty string`;
      else if (lines > 1) message = `expected ${what}, got ${lines} lines`;
      else if (length > max) message = `expected ${what} of at most ${max} characters, got ${length}`;
      if (message) ctx.issues.push({ code: 'custom', input: ctx.value, message });
    })
    .transform((s) => s.trim());
}

const pattern = z
  .string()
  .max(MAX_PATTERN, { error: `expected a regular expression of at most ${MAX_PATTERN} characters` })
  .check((ctx) => {
    try {
      new RegExp(ctx.value);
    } catch (err) {
      const why = err instanceof Error ? err.message : String(err);
      ctx.issues.push({ code: 'custom', input: ctx.value, message: `expected a regular expression, got ${show(ctx.value)} (${why})` });
    }
  });

const evidenceOf = word('a name for what the evidence is (power-log, restart-count)');
const label = oneLine('one line saying what to record', MAX_LINE);

export const EvidenceSchema = z.discriminatedUnion('kind', [
  z.strictObject({ kind: z.literal('file'), of: evidenceOf, label }),
  z.strictObject({ kind: z.literal('value'), of: evidenceOf, label, pattern: pattern.optional() }),
  z.strictObject({ kind: z.literal('yesno'), of: evidenceOf, question: oneLine('a yes/no question on one line', MAX_LINE) }),
]);

const probeGroups = PROBE_GROUPS as readonly [ProbeGroup, ...ProbeGroup[]];

/** `probe:` left empty means every group, like `probe: {}`. */
const ProbeSchema = z.preprocess(
  (v) => (v === null ? {} : v),
  z.strictObject({
    only: z
      .array(z.enum(probeGroups))
      .min(1, { error: `expected at least one of ${probeGroups.join(', ')}, or no "only" for every group` })
      .optional(),
  }),
);

export const SeatBlockSchema = z.strictObject({
  id: word('the step id'),
  kind: z.enum(STEP_KINDS),
  why: oneLine('one line saying why this step exists (the lesson it carries)', MAX_WHY),
  probe: ProbeSchema.optional(),
  evidence: EvidenceSchema.optional(),
  action: z.enum(STEP_ACTIONS).optional(),
  guardrails: z.array(z.enum(GUARDRAIL_IDS)).default([]),
});

export type SeatBlock = z.output<typeof SeatBlockSchema>;

/** The keys each mapping of a seat block may hold, for "unknown key ...: expected one of ...". */
export const STEP_KEYS = Object.keys(SeatBlockSchema.shape);
const EVIDENCE_KEYS: Record<string, string[]> = {
  file: ['kind', 'of', 'label'],
  value: ['kind', 'of', 'label', 'pattern'],
  yesno: ['kind', 'of', 'question'],
};

/** What a missing key should have held. */
const EXPECTED: Record<string, string> = {
  id: `the step id: ${WORD_RULE}`,
  kind: `one of ${STEP_KINDS.join(', ')}`,
  why: 'one line saying why this step exists (the lesson it carries)',
  'evidence.kind': `one of ${EVIDENCE_KINDS.join(', ')}`,
  'evidence.of': `a name for what the evidence is: ${WORD_RULE}`,
  'evidence.label': 'one line saying what to record',
  'evidence.question': 'a yes/no question on one line',
};

/** One problem in a seat block: `path` locates it in the YAML, `message` says it, path included. */
export interface SeatIssue {
  path: (string | number)[];
  message: string;
}

export type SeatResult = { ok: true; value: SeatBlock } | { ok: false; issues: SeatIssue[] };

/** The YAML's value (already parsed) → a step's machine part, or every problem found in it. */
export function validateSeatBlock(raw: unknown): SeatResult {
  if (raw === null || raw === undefined) {
    return { ok: false, issues: [{ path: [], message: `the seat block is empty: expected a mapping with ${STEP_KEYS.slice(0, 3).join(', ')} (and optionally ${STEP_KEYS.slice(3).join(', ')})` }] };
  }
  if (typeof raw !== 'object' || Array.isArray(raw)) {
    return { ok: false, issues: [{ path: [], message: `expected a mapping (key: value) with ${STEP_KEYS.slice(0, 3).join(', ')}, got ${show(raw)}` }] };
  }
  const parsed = SeatBlockSchema.safeParse(raw);
  const issues = [...(parsed.success ? [] : parsed.error.issues.flatMap((i) => describe(i, raw))), ...kindRules(raw as Record<string, unknown>)];
  if (issues.length > 0 || !parsed.success) return { ok: false, issues };
  return { ok: true, value: parsed.data };
}

/** What each kind of step must (or must not) carry. */
function kindRules(raw: Record<string, unknown>): SeatIssue[] {
  const issues: SeatIssue[] = [];
  const has = (key: string) => Object.hasOwn(raw, key);
  if (raw.kind === 'probe' && !has('probe')) {
    issues.push({ path: ['kind'], message: 'probe: missing: a probe step says what it probes: expected probe: {} for every group, or probe: { only: [gpus] }' });
  }
  if (typeof raw.kind === 'string' && raw.kind !== 'probe' && has('probe')) {
    issues.push({ path: ['probe'], message: `probe: only a probe step runs a probe: expected kind: probe, or no probe key (this step is kind: ${raw.kind})` });
  }
  if (raw.kind === 'evidence' && !has('evidence')) {
    issues.push({ path: ['kind'], message: `evidence: missing: an evidence step says what it needs: expected evidence: { kind: ${EVIDENCE_KINDS.join(' | ')}, of: ..., ... }` });
  }
  if (Array.isArray(raw.guardrails)) {
    const seen = new Set<unknown>();
    raw.guardrails.forEach((g, i) => {
      if (seen.has(g)) issues.push({ path: ['guardrails', i], message: `${pathWords(['guardrails', i])}: ${show(g)} is listed twice: expected each guardrail once` });
      seen.add(g);
    });
  }
  return issues;
}

/** `evidence.kind`, `guardrails[2]`: the path as the YAML's writer reads it. */
export function pathWords(path: readonly (string | number)[]): string {
  return path.map((p, i) => (typeof p === 'number' ? `[${p}]` : i === 0 ? p : `.${p}`)).join('');
}

function describe(issue: z.core.$ZodIssue, raw: unknown): SeatIssue[] {
  const path = issue.path.filter((p): p is string | number => typeof p !== 'symbol');
  const words = pathWords(path);
  const at = (message: string) => (words ? `${words}: ${message}` : message);
  if (issue.code === 'unrecognized_keys') {
    const known = knownKeys(path, raw);
    return issue.keys.map((key) => ({ path: [...path, key], message: at(`unknown key ${JSON.stringify(key)}: expected one of ${known.join(', ')}`) }));
  }
  const here = locate(raw, path);
  const named = EXPECTED[path.filter((p) => typeof p === 'string').join('.')];
  if (!here.present) return [{ path, message: at(`missing: expected ${named ?? expectedType(issue)}`) }];
  // zod's own wording ("Invalid input: ...") is replaced; our messages already say what was expected.
  const zodWords = /^Invalid /.test(issue.message);
  if (issue.code === 'invalid_value' && zodWords) return [{ path, message: at(`expected one of ${issue.values.map(String).join(', ')}, got ${show(here.value)}`) }];
  if (issue.code === 'invalid_union' && 'options' in issue && Array.isArray(issue.options)) {
    return [{ path, message: at(`expected one of ${issue.options.map(String).join(', ')}, got ${show(here.value)}`) }];
  }
  if (issue.code === 'invalid_type' && zodWords) return [{ path, message: at(`expected ${named ?? expectedType(issue)}, got ${show(here.value)}`) }];
  return [{ path, message: at(zodWords ? `${issue.message.replace(/^Invalid input: /, '')}, got ${show(here.value)}` : issue.message) }];
}

function expectedType(issue: z.core.$ZodIssue): string {
  if (issue.code !== 'invalid_type') return 'a value';
  if (issue.expected === 'object') return 'a mapping (key: value)';
  if (issue.expected === 'array') return 'a list';
  return /^[aeiou]/.test(issue.expected) ? `an ${issue.expected}` : `a ${issue.expected}`;
}

function knownKeys(path: readonly (string | number)[], raw: unknown): string[] {
  if (path.length === 0) return STEP_KEYS;
  if (path[0] === 'probe') return ['only'];
  if (path[0] === 'evidence') {
    const kind = locate(raw, ['evidence', 'kind']).value;
    return EVIDENCE_KEYS[String(kind)] ?? ['kind', 'of', 'label', 'pattern', 'question'];
  }
  return [];
}

/** The value at a path, by own properties only. */
function locate(raw: unknown, path: readonly (string | number)[]): { present: boolean; value: unknown } {
  let cur: unknown = raw;
  for (const key of path) {
    if (cur === null || typeof cur !== 'object' || !Object.hasOwn(cur, key)) return { present: false, value: undefined };
    cur = (cur as Record<string | number, unknown>)[key];
  }
  return { present: true, value: cur };
}
