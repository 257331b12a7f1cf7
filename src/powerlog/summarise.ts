// The drivers: a byte stream (a file, stdin) or lines already split, through the reader. Reading
// stops as soon as the input is known not to be a power log.
import { splitLines } from './lines.ts';
import { PowerLogReader, WINDOW_MS } from './reader.ts';
import type { PowerLogResult } from './types.ts';

export interface SummariseOptions {
  /** The span of the "last minutes" mean (default 5 minutes). */
  windowMs?: number;
}

/** A stream of bytes or text chunks (a `Readable` is one; an array of them will do): its unterminated tail is the cut. */
export async function summarisePowerLog(chunks: AsyncIterable<Uint8Array | string> | Iterable<Uint8Array | string>, options: SummariseOptions = {}): Promise<PowerLogResult> {
  const reader = new PowerLogReader(options.windowMs ?? WINDOW_MS);
  try {
    for await (const line of splitLines(chunks)) {
      if (line.partial) reader.partial(line.text);
      else reader.line(line.text);
      if (reader.done) break;
    }
  } catch (err) {
    return { ok: false, code: 'read_failed', message: `cannot read it (${readError(err)})` };
  }
  return reader.finish();
}

/** Lines already split (no newlines in them); `endsMidLine` says the last one was cut short. */
export async function summarisePowerLogLines(lines: AsyncIterable<string> | Iterable<string>, options: SummariseOptions & { endsMidLine?: boolean } = {}): Promise<PowerLogResult> {
  const reader = new PowerLogReader(options.windowMs ?? WINDOW_MS);
  // One line is held back: only at the end is it known to be the last.
  let held: string | null = null;
  for await (const line of lines) {
    if (held !== null) reader.line(held);
    if (reader.done) return reader.finish();
    held = line;
  }
  if (held !== null) {
    if (options.endsMidLine) reader.partial(held);
    else reader.line(held);
  }
  return reader.finish();
}

function readError(err: unknown): string {
  const code = (err as NodeJS.ErrnoException | null)?.code;
  if (typeof code === 'string') return code;
  return (err instanceof Error ? err.message : String(err)).split('\n')[0] ?? 'unknown error';
}
