// The shapes a request and its answer have between httpRequest (./http.ts), the pool (./transport.ts) and
// our HTTP/1.1 client (./wire.ts): in a file of their own so that wire.ts and transport.ts do not import
// each other.
import type { BodyRead } from './capped.ts';

export interface HttpCall {
  method: 'GET' | 'POST';
  headers: Record<string, string>;
  body?: string;
  /** Aborting it destroys the request and its connection. */
  signal: AbortSignal;
}

/** A response whose status line and headers are in; the body is read as it comes. */
export interface HttpAnswer {
  status: number;
  /** A header's value (lower-case name), or null. */
  header(name: string): string | null;
  /** The next piece of the body, or null at its end; rejects when the connection broke mid-answer. */
  read(): Promise<Uint8Array | null>;
  /** Stops reading: the connection is dropped, never handed back to the pool (unless the answer was already
   * whole, when it went back with its end). */
  cancel(): void;
  /**
   * The rest of the body in one go, as readCapped (./capped.ts) would read it piece by piece: past
   * `max` bytes it stops and drops the connection (one whole already has gone back to the pool); a break mid-answer is `broke`. Optional: one
   * promise per answer instead of one per piece, for the thousands of small answers of a probe run.
   */
  readAll?(max: number): Promise<BodyRead>;
}


/** Sends one request; resolves when the status line is in, rejects (with the system's error and its
 * `code`) when no answer came. */
export type HttpTransport = (url: string, call: HttpCall) => Promise<HttpAnswer>;
