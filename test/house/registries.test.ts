// One registry per kind, at home with its kind: a probe, a guardrail, a diagnosis rule or a log
// recogniser is one file in its folder and one line in that folder's index.ts. A module written and
// not registered would never run; each test reads the folder and fails on it, by name.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, statSync } from 'node:fs';
import { GUARDRAILS } from '../../src/guardrails/index.ts';
import { RULES } from '../../src/diagnose/rules/index.ts';
import { RECOGNISERS } from '../../src/logdiag/recognisers/index.ts';
import { PLANNERS } from '../../src/probes/index.ts';

const src = new URL('../../src/', import.meta.url);

/** The modules of a folder, but its registry and the helpers named (with why they are not of the kind). */
function modules(folder: string, helpers: Record<string, string>): string[] {
  return readdirSync(new URL(folder, src))
    .filter((f) => f.endsWith('.ts') && f !== 'index.ts' && !(f in helpers))
    .sort();
}

async function exportsOf(folder: string, file: string): Promise<[string, unknown][]> {
  return Object.entries((await import(new URL(`${folder}${file}`, src).href)) as Record<string, unknown>);
}

/** Each function a module exports that `registered` lacks, as `file: name`. */
async function unregisteredFunctions(folder: string, helpers: Record<string, string>, registered: readonly unknown[]): Promise<string[]> {
  const out: string[] = [];
  for (const file of modules(folder, helpers)) {
    for (const [name, value] of await exportsOf(folder, file)) if (typeof value === 'function' && !registered.includes(value)) out.push(`${file}: ${name}`);
  }
  return out;
}

test('every probe kind’s folder has its planner in the probes’ table (src/probes/index.ts)', async () => {
  const registered: readonly unknown[] = Object.values(PLANNERS).flat();
  const kinds = readdirSync(new URL('probes/', src)).filter((d) => d !== 'edge' && statSync(new URL(`probes/${d}`, src)).isDirectory());
  const found: unknown[] = [];
  const missing: string[] = [];
  for (const kind of kinds.sort()) {
    const planners = (await exportsOf(`probes/${kind}/`, 'plan.ts')).filter(([name, v]) => /^plan[A-Z]\w*Tasks$/.test(name) && typeof v === 'function');
    assert.ok(planners.length > 0, `src/probes/${kind}/plan.ts exports a plan…Tasks planner (edge/ is the shared plumbing, the one folder that is no probe kind)`);
    for (const [name, v] of planners) {
      found.push(v);
      if (!registered.includes(v)) missing.push(`${kind}/plan.ts: ${name}`);
    }
  }
  assert.deepEqual(missing, []);
  // And nothing in the table comes from outside the kinds' folders.
  assert.equal(registered.length, found.length);
});

test('every guardrail file is registered under its own name (src/guardrails/index.ts)', async () => {
  // A module that exports no guardrail is a helper of the guardrails (facts.ts: what they read).
  const isGuardrail = (v: unknown): boolean => typeof v === 'object' && v !== null && 'id' in v && 'lesson' in v && 'check' in v && 'applies' in v;
  const wrong: string[] = [];
  let files = 0;
  for (const file of modules('guardrails/', {})) {
    const id = file.replace(/\.ts$/, '');
    const guardrails = (await exportsOf('guardrails/', file)).filter(([, v]) => isGuardrail(v));
    if (guardrails.length === 0) continue;
    files += 1;
    if (guardrails.length > 1) wrong.push(`${file}: exports ${guardrails.length} guardrails, not one`);
    for (const [name, g] of guardrails) if (GUARDRAILS.get(id) !== g) wrong.push(`${file}: ${name} is not GUARDRAILS.get(${JSON.stringify(id)})`);
  }
  assert.deepEqual(wrong, []);
  assert.equal(GUARDRAILS.size, files, 'one guardrail a file');
});

test('every diagnosis rule file is in RULES (src/diagnose/rules/index.ts)', async () => {
  const helpers = { 'types.ts': 'the Rule and Proposal types', 'answered.ts': 'what several rules ask of the facts' };
  assert.deepEqual(await unregisteredFunctions('diagnose/rules/', helpers, RULES), []);
  assert.equal(RULES.length, modules('diagnose/rules/', helpers).length, 'one rule a file');
});

test('every log recogniser is in RECOGNISERS (src/logdiag/recognisers/index.ts)', async () => {
  const helpers = { 'read.ts': 'the number readers the recognisers share', 'flashinfer.ts': 'a fallback flag read per log, not a reading' };
  assert.deepEqual(await unregisteredFunctions('logdiag/recognisers/', helpers, RECOGNISERS), []);
});
