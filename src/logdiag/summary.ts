// Findings → one group per kind, counted, with the first and the newest kept: what a person reads.
// Bounded by the number of kinds, however many times a log repeats itself.
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
    const groups = [...this.groups.values()].sort((a, b) => ORDER[a.severity] - ORDER[b.severity] || a.first.line - b.first.line);
    return { lines, truncatedLines, problems: this.problems, groups };
  }
}
