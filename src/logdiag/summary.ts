// Findings → one group per kind, counted, with the first and the newest kept: what a person reads.
// Bounded by the number of kinds, however many times a log repeats itself.
import { directFixFirst, notBootOrder } from './boot-order.ts';
import type { Diagnosis, FindingGroup, FindingKind, LogFinding, Severity } from './types.ts';

const ORDER: Record<Severity, number> = { problem: 0, note: 1, info: 2 };

export class Summary {
  private readonly groups = new Map<FindingKind, FindingGroup>();
  private problems = 0;

  add(f: LogFinding): void {
    if (f.severity === 'problem') this.problems++;
    const g = this.groups.get(f.kind);
    if (!g) {
      this.groups.set(f.kind, { kind: f.kind, severity: f.severity, count: 1, first: f, last: f });
      return;
    }
    g.count++;
    g.last = f;
    // A figure can turn into a note (a later restart at 1.02x): the group takes the gravest, and
    // shows the first finding that was that grave.
    if (ORDER[f.severity] < ORDER[g.severity]) {
      g.severity = f.severity;
      g.first = f;
    }
  }

  result(lines: number, truncatedLines: number): Diagnosis {
    let groups = [...this.groups.values()].sort((a, b) => ORDER[a.severity] - ORDER[b.severity] || a.first.line - b.first.line);
    // A KV-cache shortfall the log itself rules out as the boot race: the direct fix first.
    const why = notBootOrder(groups);
    if (why !== null) groups = groups.map((g) => (g.kind === 'kv_cache_insufficient' ? { ...g, first: directFixFirst(g.first, why), last: directFixFirst(g.last, why) } : g));
    return { lines, truncatedLines, problems: this.problems, groups };
  }
}
