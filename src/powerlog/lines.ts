// Bytes → lines in constant memory. A line longer than the cap is cut (its head is kept, one char
// over the cap, so the reader can tell it was too long) and the rest of it dropped up to the next
// newline: a binary file or a log with no newlines never grows a buffer. The unterminated tail
// of the input is marked partial: a log cut by a power loss ends mid-line.

export interface Line {
  text: string;
  /** Not ended by a newline: the last bytes before the input stopped. */
  partial: boolean;
}

export const MAX_LINE_CHARS = 4096;

export async function* splitLines(chunks: AsyncIterable<Uint8Array | string> | Iterable<Uint8Array | string>, maxChars = MAX_LINE_CHARS): AsyncGenerator<Line> {
  const decoder = new TextDecoder('utf-8');
  let pending = '';
  // Inside a line already past the cap: drop everything up to its newline.
  let dropping = false;
  for await (const chunk of chunks) {
    const text = typeof chunk === 'string' ? chunk : decoder.decode(chunk, { stream: true });
    let start = 0;
    for (let nl = text.indexOf('\n'); nl >= 0; nl = text.indexOf('\n', start)) {
      const piece = text.slice(start, nl);
      start = nl + 1;
      if (dropping) dropping = false;
      else yield { text: trimCr(pending + piece).slice(0, maxChars + 1), partial: false };
      pending = '';
    }
    if (dropping) continue;
    pending += text.slice(start);
    if (pending.length > maxChars) {
      yield { text: pending.slice(0, maxChars + 1), partial: false };
      pending = '';
      dropping = true;
    }
  }
  pending += decoder.decode();
  if (!dropping && pending !== '') yield { text: trimCr(pending), partial: true };
}

function trimCr(s: string): string {
  return s.endsWith('\r') ? s.slice(0, -1) : s;
}
