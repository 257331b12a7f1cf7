// The one HTTP request every probe makes: never throws, never follows a redirect, never reads more
// than a cap, and never lets a peer's words out uncleaned or with a key in them. A gateway or a
// backend is a peer we measure, not one we trust.
//
// Wiring: `httpRequest(url, init, { transport: env.http, timeoutMs: env.timeoutMs, maxBytes:
// env.maxBodyBytes, signal, now: env.now, secrets })`. Pass the runner's signal as `signal` (ours,
// with the timeout, is what the transport gets). 'timeout' is our own timer (word it "no answer within
// N ms"); 'stopped' is the caller's signal (the runner's deadline or a cancel: the runner words those).
import { readCapped } from './capped.ts';
import { clean, cut, fmtInt, redact } from './text.ts';
import { isTimeout, realTimer, withTimeout, type SetTimer } from './timeout.ts';
import { createHttpPool, type HttpAnswer, type HttpCall, type HttpPool, type HttpTransport } from './transport.ts';

export type HttpCode = 'ok' | 'http_status' | 'timeout' | 'refused' | 'reset' | 'unreachable' | 'dns' | 'redirect' | 'too_large' | 'bad_answer' | 'stopped' | 'error';

export interface HttpOutcome {
  /** A 2xx whose whole body was read. */
  ok: boolean;
  /** The status line's code, or null when none came. Set with code timeout/reset/error when the body broke off. */
  httpStatus: number | null;
  /** What happened; decide on this, not on httpStatus. 'bad_answer' is never set here: callers judge bodies. */
  code: HttpCode;
  /** One line, cleaned, redacted, at most 160 characters: the body's error message or the transport's. */
  error?: string;
  /** Where a 3xx pointed (not followed), cleaned and redacted. */
  location?: string;
  /** Body bytes read (at most maxBytes plus one chunk). */
  bytes: number;
  latencyMs: number;
}

export interface HttpResult {
  outcome: HttpOutcome;
  /** The parsed body when it was JSON and under the cap; else undefined. */
  json: unknown;
  /** The body as read (under the cap; the first maxBytes when over it). Raw: neither cleaned nor redacted. */
  text: string;
}

/** What is sent: a GET unless said otherwise; the body is a POST's JSON. */
export interface HttpInit {
  method?: 'GET' | 'POST';
  headers?: Record<string, string>;
  body?: string;
}

export interface HttpOptions {
  /** Default: one process-wide pool (made on first use); a probe run passes its own (env.http). */
  transport?: HttpTransport;
  timeoutMs: number;
  /** Default 1 MiB. */
  maxBytes?: number;
  /** The runner's stop: aborted → code 'stopped' (unless our own timeout fired first → 'timeout'). */
  signal?: AbortSignal;
  /**
   * `signal` already aborts by `timeoutMs` at the latest, with a TimeoutError reason (edge/timeout.ts
   * withTimeout): no second timer. A probe task that times its whole work once (listing wait and
   * request together) saves a timer, a controller and a listener per request.
   */
  signalTimed?: boolean;
  /** Monotonic milliseconds, for latency. */
  now?: () => number;
  /** Values redacted from every error line and location. */
  secrets?: readonly string[];
  setTimer?: SetTimer;
  /**
   * A 2xx body is handed to `write` chunk by chunk instead of kept (`json` and `text` stay empty), up
   * to `maxBytes` (in place of the cap above): for an answer that may be large but is read as it comes,
   * such as a gateway's model listing. An error body is still read under the cap above, for its line.
   */
  sink?: { maxBytes: number; write(chunk: Uint8Array): void };
}

export const DEFAULT_MAX_BYTES = 1024 * 1024;
export const MESSAGE_MAX = 160;
const STALE_SOCKET = new Set(['UND_ERR_SOCKET', 'ECONNRESET', 'EPIPE']);
const NO_HEADERS: Record<string, string> = {};
const UTF8 = new TextDecoder();

let processPool: HttpPool | null = null;
/** For a caller that brings no transport: made on first use, never at import; idle sockets do not hold the process. */
function defaultTransport(): HttpTransport {
  return (processPool ??= createHttpPool()).transport;
}

export async function httpRequest(url: string, init: HttpInit, opts: HttpOptions): Promise<HttpResult> {
  const now = opts.now ?? (() => performance.now());
  const maxBytes = opts.maxBytes ?? DEFAULT_MAX_BYTES;
  const secrets = opts.secrets ?? [];
  const t0 = now();
  const { signal, clear } =
    opts.signalTimed && opts.signal ? { signal: opts.signal, clear: () => {} } : withTimeout(opts.signal, opts.timeoutMs, opts.setTimer ?? realTimer);
  const fail = (code: HttpCode, error: string, httpStatus: number | null = null, bytes = 0, text = ''): HttpResult => ({
    outcome: { ok: false, httpStatus, code, error: line(error, secrets), bytes, latencyMs: Math.round(now() - t0) },
    json: undefined,
    text,
  });
  const aborted = (): HttpCode => (isTimeout(signal) ? 'timeout' : 'stopped');
  const abortWords = (): string => (isTimeout(signal) ? `no answer within ${opts.timeoutMs} ms` : 'stopped before an answer');
  const method = init.method ?? 'GET';
  const transport = opts.transport ?? defaultTransport();
  const call: HttpCall = { method, headers: init.headers ?? NO_HEADERS, signal };
  if (init.body !== undefined) call.body = init.body;
  try {
    let res: HttpAnswer | undefined;
    for (let attempt = 0; !res; attempt++) {
      try {
        res = await transport(url, call);
      } catch (err) {
        if (signal.aborted) return fail(aborted(), abortWords());
        const raw = rawCode(err);
        // A kept-alive connection the server closed (a gateway restart) fails once before any byte is
        // answered; only a GET is safe to send again on a fresh one.
        if (attempt === 0 && STALE_SOCKET.has(raw.code) && method === 'GET') continue;
        return fail(transportCode(raw.code), raw.code || raw.message);
      }
    }
    const status = res.status;
    const ok = status >= 200 && status < 300;
    if (status >= 300 && status < 400) {
      res.cancel();
      const where = res.header('location');
      const location = where === null ? undefined : cut(redact(clean(where), secrets), 200);
      const r = fail('redirect', `redirected to ${location ?? 'nowhere named'}: not followed`, status);
      if (location !== undefined) r.outcome.location = location;
      return r;
    }
    const sink = ok ? opts.sink : undefined;
    const cap = sink ? sink.maxBytes : maxBytes;
    const declared = Number(res.header('content-length') ?? NaN);
    if (declared > cap) {
      res.cancel();
      return fail('too_large', `answer over ${fmtInt(cap)} bytes, cut`, status);
    }
    const body = await readCapped(res, cap, sink ? (chunk) => sink.write(chunk) : undefined);
    // TextDecoder, not Buffer#toString: it drops a leading byte order mark, which JSON.parse would refuse.
    const text = body.bytes.length === 0 ? '' : UTF8.decode(body.bytes);
    if (body.broke) {
      if (signal.aborted) return fail(aborted(), `answer cut off: ${abortWords()}`, status, body.total, text);
      const broke = rawCode(body.broke);
      // Our client's own refusal of a malformed body (a bad chunk) says which rule it broke.
      const why = broke.code.startsWith('HPE_') ? `the body is not HTTP/1.1 as written (${broke.code})` : 'connection broke mid-answer';
      return fail(transportCode(broke.code), `answer cut off: ${why}`, status, body.total, text);
    }
    if (body.over) return fail('too_large', `answer over ${fmtInt(cap)} bytes, cut`, status, body.total, text);
    let json: unknown;
    try {
      json = text === '' ? undefined : JSON.parse(text);
    } catch {
      json = undefined;
    }
    const outcome: HttpOutcome = { ok, httpStatus: status, code: ok ? 'ok' : 'http_status', bytes: body.total, latencyMs: Math.round(now() - t0) };
    if (!ok) {
      const error = errorLine(json, text, secrets);
      if (error) outcome.error = error;
    }
    return { outcome, json, text };
  } catch (err) {
    // Nothing above should throw; if it does, it is still an outcome, not a crash of the probe.
    return fail(signal.aborted ? aborted() : 'error', err instanceof Error ? err.message : String(err));
  } finally {
    clear();
  }
}

/**
 * The first line of an error body, cleaned, redacted and cut to 160: LiteLLM's `error.message`,
 * vLLM's `message`, FastAPI's `detail` (a string, or the first validation error's `msg`), or the
 * text. LiteLLM's doubled class name and its "Received Model Group=" tail are dropped.
 */
export function errorLine(json: unknown, text: string, secrets: readonly string[]): string {
  const j = json as { error?: { message?: unknown } | string; message?: unknown; detail?: unknown } | null | undefined;
  const detail0 = Array.isArray(j?.detail) ? (j.detail[0] as { msg?: unknown } | undefined)?.msg : j?.detail;
  const msg =
    j?.error && typeof j.error === 'object' && typeof j.error.message === 'string'
      ? j.error.message
      : typeof j?.error === 'string'
        ? j.error
        : typeof j?.message === 'string'
          ? j.message
          : typeof detail0 === 'string'
            ? detail0
            : // JSON with no message where one is looked for: its text as parsed, so a key written with
              // escapes (\u0073k-…) is redacted like any other.
              json !== undefined
              ? JSON.stringify(json)
              : text;
  const first = (msg.split(/\r\n|[\n\r\u2028\u2029]/).find((l) => clean(l) !== '') ?? '')
    .replace(/^(litellm\.)?(\w+): \2: /, '$1$2: ')
    .replace(/\.? Received Model Group=\S*$/, '');
  return line(first, secrets);
}

/** clean → redact → cut: the order that leaves neither an escape nor half a key. */
function line(s: string, secrets: readonly string[]): string {
  return cut(redact(clean(s), secrets), MESSAGE_MAX);
}

/** Our client (./wire.ts) and node's sockets put the system error's code on the error (or on an
 * AggregateError's first error when every address failed); undici (a fetch transport) puts it in `cause`. */
function rawCode(err: unknown): { code: string; message: string } {
  const e = err as { cause?: { code?: unknown; errors?: { code?: unknown }[]; message?: unknown }; code?: unknown; errors?: { code?: unknown }[] } | null | undefined;
  const cause = e?.cause;
  const code = cause?.code ?? cause?.errors?.[0]?.code ?? e?.code ?? e?.errors?.[0]?.code;
  const message = typeof cause?.message === 'string' ? cause.message : err instanceof Error ? err.message : String(err);
  return { code: typeof code === 'string' ? code : '', message };
}

/** undici's and the system's codes → ours. Anything unknown is 'error', with the raw code as its words. */
export function transportCode(raw: string): HttpCode {
  switch (raw) {
    case 'ECONNREFUSED':
      return 'refused';
    case 'ECONNRESET':
    case 'UND_ERR_SOCKET':
    case 'EPIPE':
      return 'reset';
    case 'EHOSTUNREACH':
    case 'ENETUNREACH':
    case 'EHOSTDOWN':
    case 'ENETDOWN':
      return 'unreachable';
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return 'dns';
    case 'UND_ERR_CONNECT_TIMEOUT':
    case 'UND_ERR_HEADERS_TIMEOUT':
    case 'UND_ERR_BODY_TIMEOUT':
    case 'ETIMEDOUT':
      return 'timeout';
    default:
      return 'error';
  }
}
