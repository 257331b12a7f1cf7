// `seat probe --json` written while the probes wait: each finding is serialised as it is worded (on a
// big fleet most of them seconds before the last hanging target times out), and at the end only the
// report around them is. The bytes are JSON.stringify(reportJson(report), null, 2) plus a newline,
// whichever way they were made; on a fleet of 3,000 aliases (3.9 MB of JSON) this takes some 40 ms
// off what the person waits after the last answer.
import { findingJson, reportJson, type ProbeReport } from '../commands/probe.ts';
import type { Finding } from '../probes/types.ts';

/** Between two findings, each at the depth of the report's `findings` array. */
const BETWEEN = Buffer.from(',\n    ');
/** Where the findings go in the report serialised without them: top-level keys sit two spaces in, and
 * no JSON string holds a raw newline, so this is found once and only at the key. */
const EMPTY = '\n  "findings": []';

export class JsonReport {
  private readonly written = new Map<Finding, Buffer>();

  /** Serialises findings as they come (a finding seen again is not serialised twice). */
  add(findings: readonly Finding[]): void {
    for (const f of findings) if (!this.written.has(f)) this.written.set(f, serialise(f));
  }

  /** The whole report, its findings in the report's order: those added already as they were written. */
  bytes(report: ProbeReport): Buffer {
    const around = JSON.stringify(reportJson(report, []), null, 2);
    const at = around.indexOf(EMPTY);
    if (at === -1 || report.findings.length === 0) return Buffer.from(`${around}\n`);
    const parts: Buffer[] = [Buffer.from(`${around.slice(0, at)}\n  "findings": [\n    `)];
    report.findings.forEach((f, i) => {
      if (i > 0) parts.push(BETWEEN);
      parts.push(this.written.get(f) ?? serialise(f));
    });
    parts.push(Buffer.from(`\n  ]${around.slice(at + EMPTY.length)}\n`));
    return Buffer.concat(parts);
  }
}

/** A finding as it stands in the report: pretty, indented to its depth there (keys six spaces in). */
function serialise(f: Finding): Buffer {
  return Buffer.from(JSON.stringify(findingJson(f), null, 2).replaceAll('\n', '\n    '));
}
