// A Network UPS Tools client: one `LIST VAR <ups>` over upsd's line protocol (TCP 3493).
// The parser is pure and separate from the socket; both return results, never throw.
import { connect as netConnect, type Socket } from 'node:net';

export type NutErrorCode =
  | 'nut_access_denied'
  | 'nut_unknown_ups'
  | 'nut_data_stale'
  | 'nut_driver_not_connected'
  | 'nut_error' // any other `ERR <word>`
  | 'connect_refused'
  | 'connect_failed' // no route, host unreachable, reset before an answer, bad address
  | 'connect_timeout' // no TCP connection within the timeout
  | 'answer_timeout' // connected, but no complete answer within the timeout
  | 'closed' // the peer hung up before END LIST VAR
  | 'protocol' // not a NUT answer
  | 'aborted';

export interface NutError {
  code: NutErrorCode;
  message: string;
  /** The word after `ERR` (`DATA-STALE`), for `nut_*` codes. */
  nutCode?: string;
  /** The socket error code (`ECONNREFUSED`), for `connect_*` codes. */
  errno?: string;
}

export type ListVarParse =
  | { status: 'partial' }
  | { status: 'ok'; vars: Record<string, string>; skipped: string[] }
  | { status: 'error'; error: NutError };

const ERR_CODES: Record<string, NutErrorCode> = {
  'ACCESS-DENIED': 'nut_access_denied',
  'UNKNOWN-UPS': 'nut_unknown_ups',
  'DATA-STALE': 'nut_data_stale',
  'DRIVER-NOT-CONNECTED': 'nut_driver_not_connected',
};

const VAR_LINE = /^VAR (\S+) (\S+) "((?:[^"\\]|\\.)*)"\s*$/;

/**
 * Parses upsd's answer to `LIST VAR <ups>`. Only complete lines count, so it can be fed a growing buffer:
 * `partial` until `END LIST VAR <ups>` (or an `ERR`) arrives. Lines inside the list that are not
 * `VAR` lines for this UPS are skipped and reported, not fatal: formats drift.
 */
export function parseListVar(ups: string, text: string): ListVarParse {
  const complete = text.lastIndexOf('\n');
  if (complete < 0) return { status: 'partial' };
  const lines = text.slice(0, complete).split('\n').map((l) => l.replace(/\r$/, ''));
  const vars: Record<string, string> = {};
  const skipped: string[] = [];
  let begun = false;
  for (const line of lines) {
    if (line.trim() === '') continue;
    if (line.startsWith('ERR ') || line === 'ERR') return { status: 'error', error: errLine(line) };
    if (!begun) {
      if (line.trim() === `BEGIN LIST VAR ${ups}`) {
        begun = true;
        continue;
      }
      return { status: 'error', error: { code: 'protocol', message: `not a NUT answer to LIST VAR ${ups}: got ${quote(line)}` } };
    }
    if (line.trim() === `END LIST VAR ${ups}`) return { status: 'ok', vars, skipped };
    const m = VAR_LINE.exec(line);
    if (m && m[1] === ups) vars[m[2]!] = unescapeValue(m[3]!);
    else skipped.push(line);
  }
  return { status: 'partial' };
}

/** `\"` → `"`, `\\` → `\`; any other escaped character stands for itself. */
export function unescapeValue(raw: string): string {
  return raw.replace(/\\(.)/g, '$1');
}

function errLine(line: string): NutError {
  const word = line.slice(4).trim().split(/\s+/)[0] ?? '';
  return { code: ERR_CODES[word] ?? 'nut_error', nutCode: word || '(none)', message: `upsd answered ${quote(line.trim())}` };
}

function quote(line: string): string {
  const s = line.length > 80 ? `${line.slice(0, 77)}...` : line;
  return JSON.stringify(s);
}

export type NutResult =
  | { ok: true; vars: Record<string, string>; skipped: string[]; latencyMs: number }
  | { ok: false; error: NutError; latencyMs: number };

export interface ListVarOptions {
  host: string;
  port: number;
  /** Everything — connect, answer — must finish within this. */
  timeoutMs: number;
  signal?: AbortSignal;
  now?: () => number;
  connect?: (port: number, host: string) => Socket;
}

/** Connects, asks `LIST VAR <ups>`, says `LOGOUT`. Resolves with the variables or a typed error; never rejects. */
export function listVars(ups: string, opts: ListVarOptions): Promise<NutResult> {
  const now = opts.now ?? (() => performance.now());
  const t0 = now();
  const elapsed = (): number => Math.round((now() - t0) * 10) / 10;
  const fail = (error: NutError): NutResult => ({ ok: false, error, latencyMs: elapsed() });
  if (opts.signal?.aborted) return Promise.resolve(fail({ code: 'aborted', message: 'stopped before connecting' }));

  return new Promise<NutResult>((resolve) => {
    const socket = (opts.connect ?? ((p, h) => netConnect({ port: p, host: h })))(opts.port, opts.host);
    socket.setEncoding('utf8');
    let connected = false;
    let buffer = '';
    let settled = false;

    const finish = (result: NutResult, logout: boolean): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      opts.signal?.removeEventListener('abort', onAbort);
      if (logout && socket.writable) {
        socket.end('LOGOUT\n');
        // upsd answers `OK Goodbye` and hangs up; a peer that does not cannot hold the socket.
        setTimeout(() => socket.destroy(), 250).unref();
      } else {
        socket.destroy();
      }
      resolve(result);
    };
    const onAbort = (): void => finish(fail({ code: 'aborted', message: 'stopped' }), false);
    const timer = setTimeout(() => {
      finish(
        fail(
          connected
            ? { code: 'answer_timeout', message: `connected, but no complete answer to LIST VAR ${ups} within ${opts.timeoutMs} ms` }
            : { code: 'connect_timeout', message: `no TCP connection within ${opts.timeoutMs} ms` },
        ),
        false,
      );
    }, opts.timeoutMs);
    opts.signal?.addEventListener('abort', onAbort, { once: true });

    socket.on('connect', () => {
      connected = true;
      socket.write(`LIST VAR ${ups}\n`);
    });
    socket.on('data', (chunk: string) => {
      buffer += chunk;
      const parsed = parseListVar(ups, buffer);
      if (parsed.status === 'ok') finish({ ok: true, vars: parsed.vars, skipped: parsed.skipped, latencyMs: elapsed() }, true);
      else if (parsed.status === 'error') finish(fail(parsed.error), parsed.error.code !== 'protocol');
      else if (buffer.length > 1_000_000) finish(fail({ code: 'protocol', message: 'answer over 1 MB without END LIST VAR' }), false);
    });
    socket.on('error', (err: NodeJS.ErrnoException) => {
      const errno = err.code ?? 'error';
      if (errno === 'ECONNREFUSED') finish(fail({ code: 'connect_refused', errno, message: 'connection refused' }), false);
      else finish(fail({ code: 'connect_failed', errno, message: connected ? `connection failed: ${errno}` : errno }), false);
    });
    socket.on('close', () => {
      finish(fail({ code: 'closed', message: connected ? `upsd closed the connection before END LIST VAR ${ups}` : 'connection closed' }), false);
    });
  });
}
