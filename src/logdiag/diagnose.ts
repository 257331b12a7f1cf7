// The core of `seat diagnose`, for both front ends: lines in, findings out as they complete, and a
// diagnosis (one group per kind) at the end. The terminal streams files and stdin through it; Slack
// hands it the pasted text.
import { MAX_LINE_CHARS, readLines, splitLines, type LineStats } from './lines.ts';
import { LogScanner } from './scanner.ts';
import { records } from './snippet.ts';
import { Summary } from './summary.ts';
import type { Diagnosis, LogFinding } from './types.ts';

/** Findings in log order, each as soon as its message is complete; the fallback count comes last. */
export async function* diagnoseLines(lines: AsyncIterable<string> | Iterable<string>): AsyncGenerator<LogFinding> {
  const scanner = new LogScanner();
  for await (const line of lines) yield* scanner.push(line);
  yield* scanner.end();
}

/** A whole log, streamed: a file, stdin, a command's output. */
export async function diagnoseStream(chunks: AsyncIterable<Uint8Array | string>): Promise<Diagnosis> {
  const stats: LineStats = { truncated: 0 };
  const scanner = new LogScanner();
  const summary = new Summary();
  for await (const line of readLines(chunks, stats)) for (const f of scanner.push(line)) summary.add(f);
  for (const f of scanner.end()) summary.add(f);
  return summary.result(scanner.lines, stats.truncated);
}

/** Lines already split (a merged `docker logs`), read at once. */
export function diagnoseLineList(lines: Iterable<string>): Diagnosis {
  const scanner = new LogScanner();
  const summary = new Summary();
  let truncated = 0;
  for (const line of lines) {
    if (line.length > MAX_LINE_CHARS) truncated++;
    for (const f of scanner.push(line.length > MAX_LINE_CHARS ? line.slice(0, MAX_LINE_CHARS) : line)) summary.add(f);
  }
  for (const f of scanner.end()) summary.add(f);
  return summary.result(scanner.lines, truncated);
}

/** A pasted snippet (Slack's `/seat diagnose <text>`, a terminal argument). Without line breaks
 * (a command line turns them into spaces) it is cut where log records start: "line" N is then the
 * Nth record. */
export function diagnoseText(text: string): Diagnosis {
  return diagnoseLineList(text.includes('\n') ? splitLines(text) : records(text));
}

/** 0: nothing recognised as a problem; 1: problems found. */
export function exitCodeOf(d: Diagnosis): 0 | 1 {
  return d.problems > 0 ? 1 : 0;
}
