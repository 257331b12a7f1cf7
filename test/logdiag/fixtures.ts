// The fixtures of test/fixtures/logdiag/, read the way the terminal reads a file: streamed.
import { createReadStream } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { diagnoseLines } from '../../src/logdiag/diagnose.ts';
import { readLines } from '../../src/logdiag/lines.ts';
import type { FindingKind, LogFinding, LogFindingOf } from '../../src/logdiag/types.ts';

export const FIXTURES = fileURLToPath(new URL('../fixtures/logdiag/', import.meta.url));

export function fixture(name: string): string {
  return FIXTURES + name;
}

export async function findingsOf(name: string): Promise<LogFinding[]> {
  const out: LogFinding[] = [];
  for await (const f of diagnoseLines(readLines(createReadStream(fixture(name))))) out.push(f);
  return out;
}

export function only<K extends FindingKind>(all: LogFinding[], kind: K): LogFindingOf<K>[] {
  return all.filter((f) => f.kind === kind) as unknown as LogFindingOf<K>[];
}
