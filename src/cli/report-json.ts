// `seat probe --json` written while the probes wait: each finding is serialised as it is worded (on a
// big fleet most of them seconds before the last hanging target times out), and once the run goes
// quiet those are laid end to end in report order (`prepare`), so that after the last answer only the
// report around them and the few findings that came later are made. The bytes are
// JSON.stringify(reportJson(report), null, 2) plus a newline, whichever way they were made.
import { findingJson, reportJson, sortFindings, type ProbeReport } from '../commands/probe.ts';
import type { Finding } from '../probes/types.ts';

/** Between two findings, each at the depth of the report's `findings` array. */
const BETWEEN = Buffer.from(',\n    ');
/** Where the findings go in the report serialised without them: top-level keys sit two spaces in, and
 * no JSON string holds a raw newline, so this is found once and only at the key. */
const EMPTY = '\n  "findings": []';

export class JsonReport {
  private readonly written = new Map<Finding, Buffer>();
  /** The findings written by the last prepare(), in report order with BETWEEN between them, and where each stands. */
  private draft: { buf: Buffer; at: Map<Finding, { start: number; end: number }> } | null = null;
  private sinceDraft = 0;

  /** Serialises findings as they come (a finding seen again is not serialised twice). */
  add(findings: readonly Finding[]): void {
    for (const f of findings) {
      if (this.written.has(f)) continue;
      this.written.set(f, serialise(f));
      this.sinceDraft += 1;
    }
  }

  /** Lays the findings written so far end to end in report order: worth doing while the slowest targets
   * are awaited. Those that come after it are put between them at the end. */
  prepare(): void {
    if (this.sinceDraft === 0) return;
    const parts: Buffer[] = [];
    const at = new Map<Finding, { start: number; end: number }>();
    let pos = 0;
    for (const f of sortFindings([...this.written.keys()])) {
      if (pos > 0) {
        parts.push(BETWEEN);
        pos += BETWEEN.length;
      }
      const b = this.written.get(f)!;
      at.set(f, { start: pos, end: pos + b.length });
      parts.push(b);
      pos += b.length;
    }
    this.draft = { buf: Buffer.concat(parts, pos), at };
    this.sinceDraft = 0;
  }

  /** The whole report, its findings in the report's order, as pieces to write one after the other: the
   * findings that stand side by side in the prepared draft go as one slice of it (no copy). */
  pieces(report: ProbeReport): Buffer[] {
    const around = JSON.stringify(reportJson(report, []), null, 2);
    const at = around.indexOf(EMPTY);
    if (at === -1 || report.findings.length === 0) return [Buffer.from(`${around}\n`)];
    const parts: Buffer[] = [Buffer.from(`${around.slice(0, at)}\n  "findings": [\n    `)];
    const draft = this.draft;
    // A run of findings adjacent in the draft: [start, end) of it, not yet pushed.
    let start = -1;
    let end = -1;
    const flush = (): void => {
      if (start === -1 || !draft) return;
      parts.push(draft.buf.subarray(start, end));
      start = -1;
    };
    report.findings.forEach((f, i) => {
      const d = draft?.at.get(f);
      if (d && start !== -1 && d.start === end + BETWEEN.length) {
        end = d.end;
        return;
      }
      flush();
      if (i > 0) parts.push(BETWEEN);
      if (d) {
        start = d.start;
        end = d.end;
      } else parts.push(this.written.get(f) ?? serialise(f));
    });
    flush();
    parts.push(Buffer.from(`\n  ]${around.slice(at + EMPTY.length)}\n`));
    return parts;
  }

  /** The whole report as one buffer. */
  bytes(report: ProbeReport): Buffer {
    return Buffer.concat(this.pieces(report));
  }
}

/** A finding as it stands in the report: pretty, indented to its depth there (keys six spaces in). */
function serialise(f: Finding): Buffer {
  return Buffer.from(JSON.stringify(findingJson(f), null, 2).replaceAll('\n', '\n    '));
}
