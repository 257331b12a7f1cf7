// One subject measured from several vantages is one subject: an alias, a GPU, a seat probed from hq and
// from irv is counted once, as the vantage that saw it best saw it. Up from one vantage and unreachable
// from another is up (the other vantage's own path is the unreachable-from rule's business); down from
// every vantage that measured it is down. The findings themselves stay, each with its own vantage: this
// only picks which of them a count reads. Structured fields only: probe, subject, status, reason, provenance.
import type { Finding, FindingStatus, Reason, Subject } from '../probes/types.ts';
import { vantageOf } from '../probes/vantage.ts';

/** Best first: an answer beats a failure, and a failure measured beats nothing measured. */
const RANK: Record<FindingStatus, number> = { up: 0, degraded: 1, down: 2, unknown: 3 };

/** Failures that say only that this vantage got no answer: a fault measured at the subject says more. */
const NO_ANSWER: ReadonlySet<Reason> = new Set(['timeout', 'refused', 'reset', 'unreachable', 'dns', 'gateway_unreachable', 'no_icmp_reply', 'deadline', 'not_started', 'stopped']);

/** What a finding is about, whoever measured it: the probe and its subject's identity (a GPU's uuid and
 * an alias's `inInventory` are facts about it, not its name). */
export function subjectKey(f: Pick<Finding, 'probe' | 'subject'>): string {
  return `${f.probe}\u0000${identity(f.subject)}`;
}

function identity(s: Subject): string {
  switch (s.kind) {
    case 'gpu':
      return `gpu\u0000${s.host}\u0000${s.index}`;
    case 'alias':
      return `alias\u0000${s.name}`;
    case 'seat':
      return `seat\u0000${s.name}\u0000${s.host}`;
    default:
      return JSON.stringify(s);
  }
}

/**
 * The findings a count reads: with two vantages or more, each subject's findings from one vantage only,
 * the one whose best finding ranks first (up, degraded, down, not measured; between two failures, one
 * measured at the subject over one that got no answer; else the vantage first seen). In the order
 * given. One vantage (or none named): the findings as they are.
 */
export function onePerSubject(findings: readonly Finding[]): Finding[] {
  const groups = new Map<string, Map<string, Finding[]>>();
  for (const f of findings) {
    const key = subjectKey(f);
    const byVantage = groups.get(key) ?? new Map<string, Finding[]>();
    const v = vantageOf(f) ?? '';
    const mine = byVantage.get(v);
    if (mine) mine.push(f);
    else byVantage.set(v, [f]);
    groups.set(key, byVantage);
  }
  if (![...groups.values()].some((g) => g.size > 1)) return [...findings];
  const chosen = new Map<string, string>();
  for (const [key, byVantage] of groups) {
    let best: { v: string; score: number } | null = null;
    for (const [v, mine] of byVantage) {
      const score = Math.min(...mine.map(score1));
      if (best === null || score < best.score) best = { v, score };
    }
    if (best) chosen.set(key, best.v);
  }
  return findings.filter((f) => chosen.get(subjectKey(f)) === (vantageOf(f) ?? ''));
}

/** A finding's place in the order: its status's rank, a failure that got no answer just after one measured. */
function score1(f: Finding): number {
  return RANK[f.status] * 2 + (f.status === 'down' && f.reason !== undefined && NO_ANSWER.has(f.reason) ? 1 : 0);
}
