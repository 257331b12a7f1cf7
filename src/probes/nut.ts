// A Network UPS Tools client: one `LIST VAR <ups>` over upsd's line protocol (TCP 3493).
// The parser is pure and separate from the socket; both return results, never throw.
import { connect as netConnect, type Socket } from 'node:net';
import { clean, cut } from './edge/text.ts';

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
/** A variable's name as NUT writes them (`ups.status`, `battery.charge`); anything else is skipped. */
const VAR_NAME = /^[A-Za-z0-9._-]{1,64}$/;
/** Longer than this, a line is not NUT's (its longest lines are a few hundred characters). */
export const MAX_LINE = 4096;
/** More variables than this, an answer is not one UPS's (a UPS has some 50 to 150). */
export const MAX_VARS = 1024;
/** A variable's value as kept (cleaned, then cut): what is shown and journalled. */
export const MAX_VALUE = 256;
const MAX_SKIPPED = 16;
const PARTIAL: ListVarParse = { status: 'partial' };

/**
 * upsd's answer to `LIST VAR <ups>`, read as it comes: each complete line once, so an answer fed a few
 * bytes at a time costs no more than one fed whole. `partial` until `END LIST VAR <ups>` (or an `ERR`)
 * arrives, then that answer for good. Lines inside the list that are not `VAR` lines for this UPS are
 * skipped and reported (the first 16), not fatal: formats drift. Not NUT, and refused: a line over
 * MAX_LINE, more than MAX_VARS variables, or one variable given twice with two values (which would
 * leave the verdict to whichever came last: `OB LB`, then `OL`).
 */
export class ListVarParser {
  private rest = '';
  private begun = false;
  private count = 0;
  private readonly vars: Record<string, string> = {};
  private readonly skipped: string[] = [];
  private result: ListVarParse | null = null;

  constructor(private readonly ups: string) {}

  feed(chunk: string): ListVarParse {
    if (this.result) return this.result;
    this.rest += chunk;
    let start = 0;
    for (let nl = this.rest.indexOf('\n'); nl >= 0; nl = this.rest.indexOf('\n', start)) {
      const line = this.rest.slice(start, nl);
      start = nl + 1;
      const r = this.line(line.endsWith('\r') ? line.slice(0, -1) : line);
      if (r) return (this.result = r);
    }
    this.rest = this.rest.slice(start);
    if (this.rest.length > MAX_LINE) return (this.result = tooLong());
    return PARTIAL;
  }

  private line(line: string): ListVarParse | null {
    if (line.length > MAX_LINE) return tooLong();
    const trimmed = line.trim();
    if (trimmed === '') return null;
    if (line.startsWith('ERR ') || line === 'ERR') return { status: 'error', error: errLine(line) };
    const ups = this.ups;
    if (!this.begun) {
      if (trimmed === `BEGIN LIST VAR ${ups}`) {
        this.begun = true;
        return null;
      }
      return { status: 'error', error: { code: 'protocol', message: `not a NUT answer to LIST VAR ${ups}: got ${quote(line)}` } };
    }
    if (trimmed === `END LIST VAR ${ups}`) return { status: 'ok', vars: this.vars, skipped: this.skipped };
    const m = VAR_LINE.exec(line);
    const name = m?.[2];
    if (!m || m[1] !== ups || name === undefined || !VAR_NAME.test(name) || name === '__proto__') {
      if (this.skipped.length < MAX_SKIPPED) this.skipped.push(cut(clean(line), 120));
      return null;
    }
    const value = cut(clean(unescapeValue(m[3]!)), MAX_VALUE);
    const before = Object.hasOwn(this.vars, name) ? this.vars[name] : undefined;
    if (before !== undefined && before !== value) {
      return { status: 'error', error: { code: 'protocol', message: `upsd gave ${name} twice, as ${quote(before)} and as ${quote(value)}` } };
    }
    if (before === undefined && ++this.count > MAX_VARS) {
      return { status: 'error', error: { code: 'protocol', message: `over ${MAX_VARS} variables for ${ups}: not one UPS's answer` } };
    }
    this.vars[name] = value;
    return null;
  }
}

function tooLong(): ListVarParse {
  return { status: 'error', error: { code: 'protocol', message: `a line over ${MAX_LINE} characters: not a NUT answer` } };
}

/** The whole of an answer at once (see ListVarParser): only complete lines count. */
export function parseListVar(ups: string, text: string): ListVarParse {
  return new ListVarParser(ups).feed(text);
}

/** `\"` → `"`, `\\` → `\`; any other escaped character stands for itself. */
export function unescapeValue(raw: string): string {
  return raw.replace(/\\(.)/g, '$1');
}

function errLine(line: string): NutError {
  const word = line.slice(4).trim().split(/\s+/)[0] ?? '';
  return { code: ERR_CODES[word] ?? 'nut_error', nutCode: cut(clean(word), 40) || '(none)', message: `upsd answered ${quote(line.trim())}` };
}

/** What the peer said, cleaned (no escape, control or bidi character), cut, in quotes. */
function quote(line: string): string {
  const s = clean(line);
  return JSON.stringify(s.length > 80 ? `${s.slice(0, 77)}...` : s);
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
    let received = 0;
    let settled = false;
    const parser = new ListVarParser(ups);

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
      // Answered: what a peer sends after it is not read (the socket goes at LOGOUT or 250 ms later).
      if (settled) return;
      received += chunk.length;
      const parsed = parser.feed(chunk);
      if (parsed.status === 'ok') finish({ ok: true, vars: parsed.vars, skipped: parsed.skipped, latencyMs: elapsed() }, true);
      else if (parsed.status === 'error') finish(fail(parsed.error), parsed.error.code !== 'protocol');
      else if (received > 1_000_000) finish(fail({ code: 'protocol', message: 'answer over 1 MB without END LIST VAR' }), false);
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
