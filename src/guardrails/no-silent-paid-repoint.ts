// Seed 002: paid coverage only under a new opt-in alias name, never a silent repoint of summarizer/gen/classifier.
import type { Fleet } from '../inventory/fleet.ts';
import type { Guardrail } from '../incident/types.ts';
import { acts } from './facts.ts';

/**
 * Whether the inventory says a backend is paid: by an alias's `backend` of that name, by an alias of
 * that name, or (free) by a seat of that name. null: nothing in the inventory names it.
 */
export function backendPaid(fleet: Fleet, backend: string): boolean | null {
  const flags: boolean[] = [];
  for (const a of fleet.aliases.values()) if (a.alias.backend?.name === backend) flags.push(a.alias.backend.paid);
  const alias = fleet.aliases.get(backend);
  if (alias) flags.push(alias.paid);
  if (fleet.seats.has(backend)) flags.push(false);
  return flags.length === 0 ? null : flags.some((p) => p);
}

/** `<alias>-paid`, or `-paid-2`, `-paid-3` … when the inventory already has it. */
export function paidAliasName(fleet: Fleet, alias: string): string {
  let name = `${alias}-paid`;
  for (let n = 2; fleet.aliases.has(name); n++) name = `${alias}-paid-${n}`;
  return name;
}

const WHY = 'an existing alias never points at a paid backend: its callers would be billed without choosing it; paid coverage goes under a new opt-in alias name';

export const noSilentPaidRepoint: Guardrail<'no-silent-paid-repoint'> = {
  id: 'no-silent-paid-repoint',
  lesson: 'never point an existing alias at a paid backend; paid coverage only under a new opt-in alias name',
  override: false,
  applies: (step, input) => acts(step, input, 'alias-route'),
  check({ input, fleet, step }) {
    const { alias, backend } = input;
    if (!alias || !backend) {
      return {
        ok: false,
        refused: `routing an alias (step ${step.id}) without ${!alias ? 'naming the alias' : `naming the backend for alias ${alias}`}`,
        why: WHY,
        instead: 'name the alias and the backend it is to point at, so the route can be checked against the inventory',
        waitsFor: !alias ? 'the alias' : 'the backend',
      };
    }
    const existing = fleet.aliases.get(alias);
    if (!existing) return { ok: true }; // a new name is the opt-in way
    const paid = backendPaid(fleet, backend);
    if (paid === null) {
      return {
        ok: false,
        refused: `repointing alias ${alias} to ${backend}: not in the inventory, so it cannot be told whether it is paid`,
        why: WHY,
        instead: `add ${backend} to the inventory with paid: true or false (a paid one under its own opt-in alias, such as ${paidAliasName(fleet, alias)}), or point ${alias} at a seat the inventory lists`,
        waitsFor: `${backend} in the inventory, marked paid or not`,
      };
    }
    if (!paid) return { ok: true };
    // Its callers already chose a paid alias by name: a change of paid provider bills no one new.
    if (existing.paid && existing.alias.optIn) return { ok: true };
    const name = paidAliasName(fleet, alias);
    return {
      ok: false,
      refused: `repointing alias ${alias} to ${backend} (paid)`,
      why: WHY,
      instead: `create a new opt-in alias ${name} → ${backend} (paid: true, optIn: true) and tell ${alias}'s callers it exists; leave ${alias} as it is`,
    };
  },
};
