// Reading a peer's stream with a cap: what a peer sends costs at most the cap plus one chunk of
// memory, however long it keeps sending. NUT's lines are capped in nut.ts; HTTP bodies here.

/** A body read piece by piece (an HttpAnswer): the next piece, or null at the end. */
export interface ChunkSource {
  read(): Promise<Uint8Array | null>;
  cancel(): void | Promise<void>;
  /** The same reading in one go, where the source can (edge/transport.ts): used when there is no sink. */
  readAll?(max: number): Promise<BodyRead>;
}

/** A body read under a cap: at most `max` bytes kept; `total` counts every byte received; `broke` is
 * the error when the stream failed mid-way. */
export interface BodyRead {
  bytes: Uint8Array;
  total: number;
  over: boolean;
  broke?: unknown;
}

/**
 * Reads a body chunk by chunk and stops past `max` bytes, cancelling the stream so the peer's
 * connection is dropped: an endless chunked answer costs at most `max` plus one chunk of memory.
 * `broke` is the error when the stream failed mid-way (reset, abort). With `sink`, each chunk within
 * the cap is handed to it instead of kept (`bytes` is then empty): memory is one chunk, whatever `max`.
 */
export async function readCapped(
  body: ReadableStream<Uint8Array> | ChunkSource | null,
  max: number,
  sink?: (chunk: Uint8Array) => void,
): Promise<BodyRead> {
  const chunks: Uint8Array[] = [];
  let total = 0;
  if (!body) return { bytes: new Uint8Array(0), total, over: false };
  if (!sink && !('getReader' in body) && body.readAll) return body.readAll(max);
  const source = 'getReader' in body ? streamSource(body) : body;
  const cancel = async (): Promise<void> => {
    try {
      await source.cancel();
    } catch {
      // already broken: nothing more to stop
    }
  };
  try {
    for (;;) {
      const value = await source.read();
      if (value === null) break;
      total += value.byteLength;
      if (total > max) {
        const room = max - (total - value.byteLength);
        if (room > 0 && !sink) chunks.push(value.subarray(0, room));
        await cancel();
        return { bytes: concat(chunks, max), total, over: true };
      }
      if (sink) sink(value);
      else chunks.push(value);
    }
  } catch (err) {
    await cancel();
    return { bytes: concat(chunks, total), total, over: false, broke: err };
  }
  return { bytes: concat(chunks, total), total, over: false };
}

function streamSource(body: ReadableStream<Uint8Array>): ChunkSource {
  const reader = body.getReader();
  return {
    read: async () => {
      const { done, value } = await reader.read();
      return done ? null : value;
    },
    cancel: () => reader.cancel(),
  };
}

/** The pieces as one array of at most `size` bytes (the one piece itself when it is all of them). */
export function concat(chunks: readonly Uint8Array[], size: number): Uint8Array {
  if (chunks.length === 1 && chunks[0]!.byteLength === size) return chunks[0]!;
  const out = new Uint8Array(Math.min(size, chunks.reduce((n, c) => n + c.byteLength, 0)));
  let at = 0;
  for (const c of chunks) {
    out.set(c, at);
    at += c.byteLength;
  }
  return out;
}
