// Every guardrail, by id, and the one call that gates a step: the guardrails its runbook names, and
// every guardrail whose action it is — a rule applies to its move whether or not the runbook named it.
import type { GuardContext, Guardrail, GuardVerdict } from '../incident/types.ts';
import { backupBeforeEdit } from './backup-before-edit.ts';
import { measuredMargin } from './measured-margin.ts';
import { noPollDarkSite } from './no-poll-dark-site.ts';
import { noSilentPaidRepoint } from './no-silent-paid-repoint.ts';
import { noSurgeOutlets } from './no-surge-outlets.ts';
import { powerLogFirst } from './power-log-first.ts';
import { reachableNotHealthy } from './reachable-not-healthy.ts';
import { recreateNotRestart } from './recreate-not-restart.ts';
import { siteAnswersFirst } from './site-answers-first.ts';

// The registry: a guardrail is its file here and its line in this list. The ids a runbook step may
// name (runbooks/schema.ts) are read from it, never listed again.
const ALL = [powerLogFirst, noSilentPaidRepoint, noPollDarkSite, measuredMargin, reachableNotHealthy, noSurgeOutlets, backupBeforeEdit, recreateNotRestart, siteAnswersFirst] as const;

type IdsOf<T extends readonly Guardrail[]> = { -readonly [K in keyof T]: T[K] extends Guardrail<infer Id> ? Id : never };

/** Every guardrail's id, in the registry's order, each as its literal. */
export const GUARDRAIL_IDS = ALL.map((g) => g.id) as IdsOf<typeof ALL>;
export type GuardrailId = (typeof GUARDRAIL_IDS)[number];

export const GUARDRAILS: ReadonlyMap<string, Guardrail> = new Map(ALL.map((g) => [g.id, g]));

export type Refusal = { guardrail: Guardrail; verdict: GuardVerdict & { ok: false } };

/** The guardrails that gate a step: the ones it names, in its order, then the ones its action brings. Throws on an id no guardrail has. */
export function guardrailsFor(ctx: Pick<GuardContext, 'step' | 'input'>): Guardrail[] {
  const unknown = ctx.step.guardrails.filter((id) => !GUARDRAILS.has(id));
  if (unknown.length > 0) {
    throw new Error(
      `step ${ctx.step.id} names ${unknown.length === 1 ? 'a guardrail that does not exist' : 'guardrails that do not exist'}: ${unknown.map((id) => JSON.stringify(id)).join(', ')} (known: ${[...GUARDRAILS.keys()].join(', ')})`,
    );
  }
  const out = new Set(ctx.step.guardrails.flatMap((id) => GUARDRAILS.get(id) ?? []));
  for (const g of GUARDRAILS.values()) if (g.applies(ctx.step, ctx.input)) out.add(g);
  return [...out];
}

/** Runs every guardrail that gates the step; the refusals, in that order (empty: the step may be done). */
export function checkStep(ctx: GuardContext): Refusal[] {
  const out: Refusal[] = [];
  for (const guardrail of guardrailsFor(ctx)) {
    const verdict = guardrail.check(ctx);
    if (!verdict.ok) out.push({ guardrail, verdict });
  }
  return out;
}
