// Bytes → lines in bounded memory: a 50 MB log, a log with no newline at all, or an endless pipe
// never makes one string larger than the cap. A longer line is read up to the cap and the rest of
// it skipped (counted, so the report can say so). UTF-8 split across chunks is decoded whole.

/** Characters kept of one line. vLLM's longest message (the memory profile) is ~600. */
export const MAX_LINE_CHARS = 64 * 1024;

export interface LineStats {
  truncated: number;
}

export async function* readLines(chunks: AsyncIterable<Uint8Array | string>, stats: LineStats = { truncated: 0 }, maxChars = MAX_LINE_CHARS): AsyncGenerator<string> {
  const decoder = new TextDecoder('utf-8');
  let part = '';
  let skipping = false;
  for await (const chunk of chunks) {
    const text = typeof chunk === 'string' ? chunk : decoder.decode(chunk, { stream: true });
    let from = 0;
    for (;;) {
      const nl = text.indexOf('\n', from);
      const piece = nl < 0 ? text.slice(from) : text.slice(from, nl);
      if (!skipping) {
        const room = maxChars - part.length;
        if (piece.length > room) {
          part += piece.slice(0, room);
          skipping = true;
          stats.truncated++;
        } else {
          part += piece;
        }
      }
      if (nl < 0) break;
      yield part;
      part = '';
      skipping = false;
      from = nl + 1;
    }
  }
  part += decoder.decode();
  if (part !== '') yield part.slice(0, maxChars);
}

/** The lines of a text already in memory, one at a time (a pasted snippet, a command's output). */
export function* splitLines(text: string): Generator<string> {
  let from = 0;
  while (from <= text.length) {
    const nl = text.indexOf('\n', from);
    if (nl < 0) {
      if (from < text.length) yield text.slice(from);
      return;
    }
    yield text.slice(from, nl);
    from = nl + 1;
  }
}
