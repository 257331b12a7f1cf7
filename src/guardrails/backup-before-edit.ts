// Seed 000: an .env edit records its backup first as .env.bak-<why>-yyyyMMdd-HHmmss (.env.bak-preShrink-165133 said no date).
import type { Evidence, Guardrail } from '../incident/types.ts';
import { acts, evidenceIn, incidentEvents } from './facts.ts';

const FORM = '.env.bak-<why>-yyyyMMdd-HHmmss';
const NAME = /^\.env\.bak-([A-Za-z0-9-]+)-(\d{4})(\d{2})(\d{2})-(\d{2})(\d{2})(\d{2})$/;

/** Why a backup name does not do; null when it does. A path is judged by its last part. */
export function backupProblem(name: string): string | null {
  const base = name.slice(name.lastIndexOf('/') + 1);
  const m = NAME.exec(base);
  if (!m) {
    if (!base.startsWith('.env.bak-')) return `it is not named ${FORM}`;
    return /-\d{8}-\d{6}$/.test(base) ? `its reason is missing or has characters other than letters, digits and "-" (${FORM})` : `it has no date and time (${FORM})`;
  }
  const [y, mo, d, h, mi, s] = m.slice(2).map(Number) as [number, number, number, number, number, number];
  const at = new Date(Date.UTC(y, mo - 1, d));
  if (h > 23 || mi > 59 || s > 59) return `${m[5]}${m[6]}${m[7]} is not a time of day`;
  if (at.getUTCFullYear() !== y || at.getUTCMonth() !== mo - 1 || at.getUTCDate() !== d) return `${m[2]}${m[3]}${m[4]} is not a calendar date`;
  return null;
}

function named(e: Evidence): string | null {
  if (e.kind === 'value') return typeof e.value === 'string' ? e.value : null;
  if (e.kind === 'file') return typeof e.name === 'string' ? e.name : null;
  return null;
}

export const backupBeforeEdit: Guardrail<'backup-before-edit'> = {
  id: 'backup-before-edit',
  lesson: 'an .env edit records its timestamped backup name first: .env.bak-<why>-yyyyMMdd-HHmmss',
  override: true,
  applies: (step, input) => acts(step, input, 'env-edit'),
  check(ctx) {
    // The backup this edit names wins; else the last one recorded in the incident.
    const recorded = evidenceIn(incidentEvents(ctx), 'env-backup').flatMap((r) => named(r.evidence) ?? []);
    const name = ctx.input.backup ?? recorded[recorded.length - 1];
    const why = 'an .env edit records its timestamped backup first: the name says what it was before and when, so it can be put back';
    const instead = 'copy it first, with sudo where the compose folder is root-owned: cp .env .env.bak-<why>-$(date +%Y%m%d-%H%M%S), and record that name';
    if (name === undefined) {
      return { ok: false, refused: `editing .env (step ${ctx.step.id}) with no backup recorded`, why, instead, waitsFor: `the backup's name, ${FORM}` };
    }
    const problem = backupProblem(name);
    if (problem === null) return { ok: true };
    return { ok: false, refused: `editing .env with backup ${JSON.stringify(name)}: ${problem}`, why, instead, waitsFor: `the backup's name, ${FORM}` };
  },
};
