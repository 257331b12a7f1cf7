// The report's sections and what folds: rows that are up become a count per section ("27 aliases
// ok", "2 GPUs ok") unless every row is asked for; a paid alias only listed folds on its own count.
import { fmtInt } from '../probes/edge/text.ts';
import type { Finding, ProbeName, Subject } from '../probes/types.ts';
import { noGpuMeasured } from './gpu.ts';
import { isListedOnly } from './marks.ts';

export type SectionId = 'aliases' | 'seats' | 'gpus' | 'power';

export const SECTIONS: readonly { id: SectionId; title: string; probes: readonly ProbeName[] }[] = [
  { id: 'aliases', title: 'Gateway and aliases', probes: ['gateway', 'alias'] },
  { id: 'seats', title: 'Backend seats (direct)', probes: ['seat', 'container'] },
  { id: 'gpus', title: 'GPU memory', probes: ['gpu'] },
  { id: 'power', title: 'Power and out-of-band', probes: ['ups', 'bmc', 'oob-path', 'firewall', 'host'] },
];

export interface Fold {
  /** `ok`: up rows; `listed`: paid aliases only listed, not called. */
  kind: 'ok' | 'listed';
  subject: Subject['kind'];
  /** Distinct things folded (a subject measured from two vantages counts once). */
  count: number;
  keys?: Set<string>;
}

export interface SectionView {
  id: SectionId;
  title: string;
  findings: Finding[];
  /** The rows to show: every one with `all`, else those not up. */
  shown: Finding[];
  /** What was folded into counts (empty with `all`). */
  folds: Fold[];
  /** Said under the title instead of figures: "no GPU measured: …". */
  note: string | null;
}

export function sectionViews(findings: Finding[], all: boolean): SectionView[] {
  return SECTIONS.flatMap((s) => {
    const rows = findings.filter((f) => s.probes.includes(f.probe));
    if (rows.length === 0) return [];
    const shown = all ? rows : rows.filter((f) => f.status !== 'up');
    const folds: Fold[] = [];
    if (!all) {
      for (const f of rows) {
        if (f.status !== 'up') continue;
        const kind = isListedOnly(f) ? 'listed' : 'ok';
        // Things, not rows: one measured from two vantages is one address ok, not two.
        const key = subjectKey(f.subject);
        const hit = folds.find((x) => x.kind === kind && x.subject === f.subject.kind);
        if (!hit) folds.push({ kind, subject: f.subject.kind, count: 1, keys: new Set([key]) });
        else if (!hit.keys?.has(key)) {
          hit.keys?.add(key);
          hit.count += 1;
        }
      }
    }
    return [{ id: s.id, title: s.title, findings: rows, shown, folds, note: s.id === 'gpus' ? noGpuMeasured(rows) : null }];
  });
}

const NOUN: Record<Subject['kind'], [string, string]> = {
  gateway: ['gateway key', 'gateway keys'],
  alias: ['alias', 'aliases'],
  seat: ['seat', 'seats'],
  gpu: ['GPU', 'GPUs'],
  'gpu-host': ['GPU host', 'GPU hosts'],
  ups: ['UPS', 'UPSes'],
  address: ['address', 'addresses'],
  container: ['container', 'containers'],
};

export function counted(n: number, kind: Subject['kind']): string {
  return `${fmtInt(n)} ${NOUN[kind][n === 1 ? 0 : 1]}`;
}

/** "27 aliases ok · 2 listed (paid, not called) · 2 gateway keys ok" */
export function foldText(folds: Fold[]): string {
  return folds.map((f) => (f.kind === 'listed' ? `${fmtInt(f.count)} listed (paid, not called)` : `${counted(f.count, f.subject)} ok`)).join(' · ');
}

export function foldedCount(views: SectionView[]): number {
  return views.reduce((a, v) => a + v.folds.reduce((b, f) => b + f.count, 0), 0);
}

/** What the run looked at: "30 aliases, 2 gateway keys, 6 seats, 4 GPUs, 1 UPS, 6 addresses". */
export function tally(findings: Finding[]): string {
  // Distinct subjects, not rows: a seat has its /health row and, on its card, its engine's row.
  const seen = new Map<Subject['kind'], Set<string>>();
  for (const f of findings) {
    const set = seen.get(f.subject.kind) ?? new Set<string>();
    set.add(subjectKey(f.subject));
    seen.set(f.subject.kind, set);
  }
  const counts = new Map([...seen].map(([k, set]) => [k, set.size] as const));
  const order = Object.keys(NOUN) as Subject['kind'][];
  return order.flatMap((k) => (counts.has(k) ? [counted(counts.get(k)!, k)] : [])).join(', ');
}

/** One thing measured, whatever rows it has: `inInventory` and a GPU's uuid are facts about it, not names. */
function subjectKey(s: Subject): string {
  switch (s.kind) {
    case 'gpu':
      return `${s.host}\u0000${s.index}`;
    case 'alias':
    case 'seat':
      return s.name;
    default:
      return JSON.stringify(s);
  }
}
