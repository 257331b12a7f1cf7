// HTTP/1.1 on kept-alive sockets, written for the probe's burst: thousands of small exchanges with
// one or two origins. node:http spends about three times the CPU of the exchange itself on each
// request (its agent, outgoing message, incoming stream and parser glue; bench/probe-scale.ts
// measures both clients), and on a fleet of 3,000 aliases that CPU is what holds back the last
// request. Here a request is one string written in one call, and an answer is parsed from the bytes
// as they come, with no stream in between.
//
// Only what a probe needs: GET and POST with a body given whole, answers framed by Content-Length,
// chunked coding or the connection's end; 1xx answers skipped; no upgrade, no pipelining, no
// redirects (the caller's). Everything the peer sends is hostile: a header block over 16 KiB, a
// chunk-size line over 1 KiB, a malformed status line, header or chunk, or a second Content-Length
// end the exchange with an error whose code says which (llhttp's name for it, HPE_…; WIRE_…
// for the two llhttp has none for: an upgrade nobody asked for, a flood of 1xx answers), and the
// connection is never used again.
//
// It refuses every answer node:http's client refuses (test/probes/edge/wire-vs-node-http.test.ts
// serves each crafted answer to both), and three more on purpose: a status line of another version
// than HTTP/1.0 or 1.1, a control character in the reason phrase, and a Transfer-Encoding whose
// last coding is not chunked (llhttp reads those to the connection's end).
//
// Why not undici's Pool (the client under Node's fetch): bench/wire-vs-undici.ts times the whole
// probe in-process with each behind the same transport, alternately in one run (every alias
// answering in 20 ms, concurrency 128; Dec 2026, 2 shared cores): median 38-40 ms with wire.ts vs
// 50-53 ms with undici on 30 aliases (undici 1.31-1.33x), 661-741 ms vs 839-920 ms on 3,000
// (1.24-1.27x). Not within 3%, so the probe keeps this client.
import { channel } from 'node:diagnostics_channel';
import { connect as netConnect, isIP, type Socket } from 'node:net';
import { concat, type BodyRead } from './capped.ts';
import type { HttpAnswer, HttpCall } from './http-types.ts';

/** As node:http's default --max-http-header-size: the status line and every header of one answer. */
export const MAX_HEADER_BYTES = 16 * 1024;
/** A chunk-size line with its extensions. */
const MAX_CHUNK_LINE = 1024;
/** 1xx answers (100 Continue, 103 Early Hints) skipped before the real one, at most. */
const MAX_INFORMATIONAL = 8;

/** The transport's answer (./transport.ts), with readAll always there. */
export type WireAnswer = Required<HttpAnswer>;

/** Where to connect and what to say in Host: parsed once per URL by the caller. */
export interface WireTarget {
  https: boolean;
  /** Scheme, host and port: one pool each. */
  origin: string;
  /** For connect(): no brackets around an IPv6 address. */
  hostname: string;
  port: number;
  /** For the Host header: as the URL wrote it (brackets kept, default port left out). */
  host: string;
  path: string;
}

const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
/** A header value we send: visible ASCII, space and tab; nothing that could end the line. */
const SAFE_VALUE = /^[\t\x20-\x7e]*$/;
const STATUS_LINE = /^HTTP\/1\.([01]) (\d{3})(?: [^\x00-\x08\x0a-\x1f\x7f]*)?$/;
const CONTENT_LENGTH = /^\d{1,15}$/;
const CHUNK_SIZE = /^([0-9A-Fa-f]{1,12})[\t ]*(?:;.*)?$/;
const CRLF = Buffer.from('\r\n');
/** Published as each request is written (bench/rss-preload.cjs times the first and the last). */
const requestStart = channel('seatbelt.http.request.start');
const HEAD_END = Buffer.from('\r\n\r\n');

const HTTP1 = Buffer.from('HTTP/1.');

/** null when the first bytes could begin a status line (`HTTP/1.`, then 0 or 1, then a space, as far
 * as they go); else llhttp's name for what is wrong. */
function startsLikeHttp(buf: Buffer): string | null {
  const n = Math.min(buf.length, HTTP1.length);
  if (buf.compare(HTTP1, 0, n, 0, n) !== 0) return 'HPE_INVALID_CONSTANT';
  if (buf.length > 7 && buf[7] !== 0x30 && buf[7] !== 0x31) return 'HPE_INVALID_VERSION';
  return buf.length <= 8 || buf[8] === 0x20 ? null : 'HPE_INVALID_VERSION';
}

/**
 * The first byte from `from` on that no head may hold, up to the head's end: a control character other
 * than tab, CR and LF; a CR not followed by LF; an LF with no CR before it. Linear, each byte once
 * (the caller goes on from where it stopped, less the last byte, whose LF may come next).
 */
function headFault(buf: Buffer, from: number): { code: string; message: string } | null {
  const end = buf.length;
  for (let i = from; i < end; i++) {
    const b = buf[i]!;
    if (b >= 0x20 && b !== 0x7f) continue;
    if (b === 0x09) continue;
    if (b === 0x0d) {
      if (i + 1 < end && buf[i + 1] !== 0x0a) return { code: 'HPE_LF_EXPECTED', message: 'a CR with no LF after it' };
      continue;
    }
    if (b === 0x0a) {
      if (i === 0 || buf[i - 1] !== 0x0d) return { code: 'HPE_CR_EXPECTED', message: 'a line ended by LF alone' };
      // The empty line: the head ends here; what follows is the body's.
      if (i >= 3 && buf[i - 2] === 0x0a && buf[i - 3] === 0x0d) return null;
      continue;
    }
    return { code: 'HPE_INVALID_HEADER_TOKEN', message: 'a control character in the head' };
  }
  return null;
}

function wireError(code: string, message: string): Error & { code: string } {
  return Object.assign(new Error(message), { code });
}

function poolClosed(): Error {
  return wireError('ERR_POOL_CLOSED', 'the HTTP pool was closed');
}

function abortError(signal: AbortSignal): Error {
  return Object.assign(new Error('aborted by the caller'), { name: 'AbortError', code: 'ABORT_ERR', cause: signal.reason as unknown });
}

/** One request as written: the request line, Host, the caller's headers, the length, the body. */
export function requestText(t: WireTarget, call: Pick<HttpCall, 'method' | 'headers' | 'body'>): string {
  let head = `${call.method} ${t.path} HTTP/1.1\r\nHost: ${t.host}\r\nConnection: keep-alive\r\n`;
  for (const name in call.headers) {
    const value = call.headers[name]!;
    if (!TOKEN.test(name)) throw wireError('ERR_INVALID_HTTP_TOKEN', 'a header name that is not a token');
    if (!SAFE_VALUE.test(value)) throw wireError('ERR_INVALID_CHAR', `the ${name} header holds a character that cannot be sent`);
    const lower = name.toLowerCase();
    if (lower === 'host' || lower === 'connection' || lower === 'content-length' || lower === 'transfer-encoding') continue;
    head += `${name}: ${value}\r\n`;
  }
  if (call.body !== undefined) return `${head}Content-Length: ${Buffer.byteLength(call.body)}\r\n\r\n${call.body}`;
  return call.method === 'POST' ? `${head}Content-Length: 0\r\n\r\n` : `${head}\r\n`;
}

type Framing = { kind: 'none' } | { kind: 'length'; left: number } | { kind: 'chunked' } | { kind: 'close' };

/** The head of one answer, parsed; or why it could not be. */
type Head = { ok: true; status: number; keepAlive: boolean; headers: Map<string, string>; framing: Framing } | { ok: false; code: string; message: string };

/** `name: value` as [lower-case name, value without its surrounding blanks], or null when the name is
 * not a token. Control characters never get here (the head's bytes were checked as they came). */
function headerField(line: string): [string, string] | null {
  const colon = line.indexOf(':');
  if (colon <= 0) return null;
  const name = line.slice(0, colon);
  if (!TOKEN.test(name)) return null;
  let from = colon + 1;
  let to = line.length;
  while (from < to && isBlank(line.charCodeAt(from))) from++;
  while (to > from && isBlank(line.charCodeAt(to - 1))) to--;
  return [name.toLowerCase(), line.slice(from, to)];
}

const isBlank = (c: number): boolean => c === 0x20 || c === 0x09;

/** A line of a chunked body (a chunk size with its extensions, a trailer) holding a control character. */
const CONTROL = /[\x00-\x08\x0a-\x1f\x7f]/;

/** Parses one header block (the status line and headers, without the empty line that ends them). */
export function parseHead(block: string): Head {
  const lines = block.split('\r\n');
  const m = STATUS_LINE.exec(lines[0]!);
  if (!m) return { ok: false, code: 'HPE_INVALID_STATUS', message: 'not an HTTP/1.x status line with a three-digit code' };
  const minor = m[1]!;
  const status = Number(m[2]);
  const headers = new Map<string, string>();
  const lengths: string[] = [];
  for (let i = 1; i < lines.length; i++) {
    const field = headerField(lines[i]!);
    if (!field) return { ok: false, code: 'HPE_INVALID_HEADER_TOKEN', message: 'a header line that is not `name: value`' };
    const [key, value] = field;
    if (key === 'content-length') lengths.push(value);
    const had = headers.get(key);
    headers.set(key, had === undefined ? value : `${had}, ${value}`);
  }
  const connection = headers.get('connection')?.toLowerCase();
  let keepAlive = connection === undefined ? minor === '1' : minor === '1' ? !/(^|,)\s*close\s*(,|$)/.test(connection) : /(^|,)\s*keep-alive\s*(,|$)/.test(connection);
  let framing: Framing;
  const te = headers.get('transfer-encoding');
  if (status === 204 || status === 304 || (status >= 100 && status < 200)) {
    framing = { kind: 'none' };
  } else if (te !== undefined) {
    const codings = te.toLowerCase().split(',').map((c) => c.trim());
    const chunkedAt = codings.indexOf('chunked');
    // Stricter than llhttp, which reads to the connection's end when chunked is not last: refused.
    if (chunkedAt !== -1 && chunkedAt !== codings.length - 1) return { ok: false, code: 'HPE_INVALID_TRANSFER_ENCODING', message: 'chunked is not the last transfer coding' };
    // As llhttp: both framings named (the request-smuggling shape) is refused.
    if (chunkedAt !== -1 && lengths.length > 0) return { ok: false, code: 'HPE_UNEXPECTED_CONTENT_LENGTH', message: 'both Content-Length and chunked' };
    framing = chunkedAt === -1 ? { kind: 'close' } : { kind: 'chunked' };
    if (lengths.length > 0 || chunkedAt === -1) keepAlive = false;
  } else if (lengths.length === 1 && CONTENT_LENGTH.test(lengths[0]!)) {
    framing = { kind: 'length', left: Number(lengths[0]) };
  } else if (lengths.length > 0) {
    // As llhttp: a Content-Length is one number; a second one (or a list), equal or not, is refused.
    if (lengths.length > 1 || lengths[0]!.includes(',')) return { ok: false, code: 'HPE_UNEXPECTED_CONTENT_LENGTH', message: 'more than one Content-Length' };
    return { ok: false, code: 'HPE_INVALID_CONTENT_LENGTH', message: 'a Content-Length that is not a number' };
  } else {
    framing = { kind: 'close' };
    keepAlive = false;
  }
  return { ok: true, status, keepAlive, headers, framing };
}

interface Origin {
  target: WireTarget;
  idle: Conn[];
  /** Connections open or opening. */
  open: number;
  queue: { take(c: Conn): void; fail(e: Error): void }[];
}

/** One socket and the exchange on it, if any. */
class Conn {
  readonly socket: Socket;
  private exchange: Exchange | null = null;
  dead = false;

  constructor(
    readonly origin: Origin,
    private readonly pool: WirePool,
    socket: Socket,
  ) {
    this.socket = socket;
    socket.on('data', (chunk: Buffer) => {
      if (this.exchange) this.exchange.feed(chunk);
      else this.destroy(); // bytes nobody asked for: the connection is out of step
    });
    socket.on('error', (err) => this.exchange?.broke(err));
    socket.on('end', () => this.exchange?.ended());
    socket.on('close', () => {
      this.exchange?.broke(wireError('ECONNRESET', 'socket hang up'));
      this.gone();
    });
  }

  start(x: Exchange, text: string): void {
    this.exchange = x;
    this.socket.ref();
    this.socket.write(text);
    if (requestStart.hasSubscribers) requestStart.publish({ origin: this.origin.target.origin });
  }

  /** The exchange is over and the connection may carry another. */
  release(): void {
    this.exchange = null;
    // Paused by a reader that had chunks waiting: they are the exchange's now, not the socket's.
    if (this.socket.isPaused()) this.socket.resume();
    if (this.dead || this.socket.destroyed || !this.socket.writable) return this.destroy();
    this.pool.released(this);
  }

  /** Closes the connection; an exchange still on it ends with `why` (its promise, a pending read). */
  destroy(why: Error = wireError('ECONNRESET', 'the connection was closed')): void {
    const x = this.exchange;
    this.exchange = null;
    this.socket.destroy();
    this.gone();
    x?.broke(why);
  }

  private gone(): void {
    if (this.dead) return;
    this.dead = true;
    this.pool.lost(this);
  }
}

type Phase = 'head' | 'body' | 'chunk-size' | 'chunk-data' | 'chunk-end' | 'trailers' | 'done';

/** One request and its answer: the head parsed as bytes come, then the body handed to a reader. */
class Exchange implements WireAnswer {
  status = 0;
  private headers = new Map<string, string>();
  private phase: Phase = 'head';
  private pending: Buffer | null = null;
  /** How far into `pending` the end of the head was already looked for. */
  private scanned = 0;
  /** How far into `pending` the head's bytes were already checked (headFault). */
  private checked = 0;
  private informational = 0;
  private framing: Framing = { kind: 'none' };
  private keepAlive = false;
  private chunkLeft = 0;
  private trailerBytes = 0;
  private answered = false;
  private onHead: { resolve(a: WireAnswer): void; reject(e: unknown): void } | null;
  // The body, as a pull reader: at most a few chunks buffered before the socket is paused.
  private chunks: Buffer[] = [];
  private finished = false;
  private failed: unknown = null;
  private wake: (() => void) | null = null;
  private gather: { max: number; total: number; kept: Buffer[]; done(r: BodyRead): void } | null = null;

  constructor(
    private readonly conn: Conn,
    private readonly signal: AbortSignal,
    resolve: (a: WireAnswer) => void,
    reject: (e: unknown) => void,
  ) {
    this.onHead = { resolve, reject };
    signal.addEventListener('abort', this.onAbort, { once: true });
  }

  private readonly onAbort = (): void => {
    this.broke(abortError(this.signal));
    this.conn.destroy();
  };

  header(name: string): string | null {
    return this.headers.get(name) ?? null;
  }

  feed(data: Buffer): void {
    let buf = this.pending ? Buffer.concat([this.pending, data]) : data;
    this.pending = null;
    while (buf.length > 0 && this.phase !== 'done') {
      switch (this.phase) {
        case 'head': {
          // Searched from where the last piece ended (less the three bytes a split CRLFCRLF could
          // leave): a head that drips in byte by byte is not scanned again from its start each time.
          // A peer that is not speaking HTTP (an ssh banner, a database), or a head with a byte no
          // head may hold, is told as those bytes come, not after 16 KiB or the timeout.
          const start = startsLikeHttp(buf);
          if (start !== null) return this.protocol(start, 'it does not begin with HTTP/1.0 or HTTP/1.1 and a space');
          const fault = headFault(buf, this.checked);
          if (fault !== null) return this.protocol(fault.code, fault.message);
          const end = buf.indexOf(HEAD_END, this.scanned);
          if (end === -1) {
            if (buf.length > MAX_HEADER_BYTES) return this.protocol('HPE_HEADER_OVERFLOW', `headers over ${MAX_HEADER_BYTES} bytes`);
            this.scanned = Math.max(0, buf.length - 3);
            // The last byte is checked again with the next piece: a CR's LF may be in it.
            this.checked = Math.max(0, buf.length - 1);
            this.pending = buf;
            return;
          }
          this.scanned = 0;
          this.checked = 0;
          if (end > MAX_HEADER_BYTES) return this.protocol('HPE_HEADER_OVERFLOW', `headers over ${MAX_HEADER_BYTES} bytes`);
          const head = parseHead(buf.toString('latin1', 0, end));
          buf = buf.subarray(end + 4);
          if (!head.ok) return this.protocol(head.code, head.message);
          if (head.status >= 100 && head.status < 200) {
            if (head.status === 101) return this.protocol('WIRE_UNASKED_UPGRADE', 'switched protocols unasked');
            if (++this.informational > MAX_INFORMATIONAL) return this.protocol('WIRE_TOO_MANY_1XX', `more than ${MAX_INFORMATIONAL} 1xx answers`);
            continue;
          }
          this.status = head.status;
          this.headers = head.headers;
          this.framing = head.framing;
          this.keepAlive = head.keepAlive;
          this.phase = head.framing.kind === 'none' ? 'done' : head.framing.kind === 'chunked' ? 'chunk-size' : 'body';
          this.answered = true;
          const h = this.onHead;
          this.onHead = null;
          h?.resolve(this);
          if (head.framing.kind === 'length' && head.framing.left === 0) this.phase = 'done';
          break;
        }
        case 'body': {
          if (this.framing.kind === 'length') {
            const take = Math.min(this.framing.left, buf.length);
            this.push(take === buf.length ? buf : buf.subarray(0, take));
            this.framing.left -= take;
            buf = buf.subarray(take);
            if (this.framing.left === 0) this.phase = 'done';
          } else {
            this.push(buf);
            buf = buf.subarray(buf.length);
          }
          break;
        }
        case 'chunk-size':
        case 'chunk-end':
        case 'trailers': {
          const eol = buf.indexOf(CRLF);
          if (eol === -1) {
            // However TCP cut the bytes, the same limits: a chunk-size line 1 KiB, the trailers 16 KiB in
            // all, and after a chunk's data nothing but its CRLF.
            if (this.phase === 'chunk-size' && buf.length > MAX_CHUNK_LINE) return this.protocol('HPE_CHUNK_EXTENSIONS_OVERFLOW', 'a chunk line over 1 KiB');
            if (this.phase === 'trailers' && this.trailerBytes + buf.length > MAX_HEADER_BYTES) return this.protocol('HPE_HEADER_OVERFLOW', `trailers over ${MAX_HEADER_BYTES} bytes`);
            if (this.phase === 'chunk-end' && (buf[0] !== 0x0d || buf.length > 1)) return this.protocol('HPE_STRICT', 'no line end after a chunk');
            this.pending = buf;
            return;
          }
          const line = buf.toString('latin1', 0, eol);
          buf = buf.subarray(eol + 2);
          if (CONTROL.test(line)) return this.protocol('HPE_INVALID_HEADER_TOKEN', 'a control character in a chunk line or trailer');
          if (this.phase === 'chunk-end') {
            if (line !== '') return this.protocol('HPE_STRICT', 'no line end after a chunk');
            this.phase = 'chunk-size';
          } else if (this.phase === 'trailers') {
            this.trailerBytes += eol + 2;
            if (this.trailerBytes > MAX_HEADER_BYTES) return this.protocol('HPE_HEADER_OVERFLOW', `trailers over ${MAX_HEADER_BYTES} bytes`);
            if (line === '') this.phase = 'done';
            else if (!headerField(line)) return this.protocol('HPE_INVALID_HEADER_TOKEN', 'a trailer that is not `name: value`');
          } else {
            if (eol > MAX_CHUNK_LINE) return this.protocol('HPE_CHUNK_EXTENSIONS_OVERFLOW', 'a chunk line over 1 KiB');
            const m = CHUNK_SIZE.exec(line);
            if (!m) return this.protocol('HPE_INVALID_CHUNK_SIZE', 'a chunk size that is not hexadecimal');
            this.chunkLeft = parseInt(m[1]!, 16);
            this.phase = this.chunkLeft === 0 ? 'trailers' : 'chunk-data';
          }
          break;
        }
        case 'chunk-data': {
          const take = Math.min(this.chunkLeft, buf.length);
          this.push(take === buf.length ? buf : buf.subarray(0, take));
          this.chunkLeft -= take;
          buf = buf.subarray(take);
          if (this.chunkLeft === 0) this.phase = 'chunk-end';
          break;
        }
      }
      if (this.conn.dead) return; // the reader stopped (a cap, a cancel) while we pushed
    }
    if (this.phase === 'done') this.complete(buf.length === 0);
  }

  /** The peer ended its side: the end of a body framed by the close, or a break. */
  ended(): void {
    if (this.phase === 'body' && this.framing.kind === 'close') {
      this.phase = 'done';
      this.keepAlive = false;
      this.complete(false);
    }
  }

  /** The connection failed or closed before the exchange was over. */
  broke(err: unknown): void {
    if (this.phase === 'done' && this.finished) return;
    this.detach();
    this.phase = 'done';
    if (!this.answered) {
      const h = this.onHead;
      this.onHead = null;
      h?.reject(err);
      return;
    }
    this.failed ??= err;
    if (this.gather && !this.finished) this.gathered(this.failed);
    this.poke();
  }

  private protocol(code: string, message: string): void {
    this.keepAlive = false;
    this.broke(wireError(code, `the answer is not HTTP/1.1 as written: ${message}`));
    this.conn.destroy();
  }

  private complete(clean: boolean): void {
    this.detach();
    this.finished = true;
    if (this.gather) this.gathered();
    this.poke();
    // Bytes after the answer, or a peer that said close: the connection is not used again.
    if (this.keepAlive && clean) this.conn.release();
    else this.conn.destroy();
  }

  private detach(): void {
    this.signal.removeEventListener('abort', this.onAbort);
  }

  private push(c: Buffer): void {
    if (c.length === 0) return;
    if (this.gather) return this.take(c);
    this.chunks.push(c);
    if (this.chunks.length >= 4) this.conn.socket.pause();
    this.poke();
  }

  private poke(): void {
    const w = this.wake;
    this.wake = null;
    w?.();
  }

  private gathered(broke?: unknown): void {
    const g = this.gather!;
    g.done({ bytes: concat(g.kept, g.total), total: g.total, over: false, ...(broke === undefined ? {} : { broke }) });
  }

  private take(c: Buffer): void {
    const g = this.gather!;
    const before = g.total;
    g.total += c.byteLength;
    if (g.total <= g.max) {
      g.kept.push(c);
      return;
    }
    const room = g.max - before;
    if (room > 0) g.kept.push(c.subarray(0, room));
    this.chunks.length = 0;
    const done = g.done;
    done({ bytes: concat(g.kept, g.max), total: g.total, over: true });
    // Still coming in: the rest is not wanted, nor the connection. Complete already: the connection
    // went back to the pool with the answer's end and may carry another request now; it is not ours.
    if (!this.finished) {
      this.detach();
      this.conn.destroy();
    }
  }

  async read(): Promise<Uint8Array | null> {
    for (;;) {
      const c = this.chunks.shift();
      if (c) {
        // Once the answer is complete its connection may be another exchange's, paused for that one.
        if (this.chunks.length === 0 && !this.finished && this.conn.socket.isPaused()) this.conn.socket.resume();
        return c;
      }
      if (this.finished) return null;
      if (this.failed !== null) throw this.failed;
      await new Promise<void>((r) => (this.wake = r));
    }
  }

  readAll(max: number): Promise<BodyRead> {
    return new Promise<BodyRead>((resolve) => {
      let answered = false;
      this.gather = {
        max,
        total: 0,
        kept: [],
        done: (r) => {
          if (answered) return;
          answered = true;
          resolve(r);
        },
      };
      for (const c of this.chunks.splice(0)) if (!answered) this.take(c);
      if (answered) return;
      if (this.finished) return this.gathered();
      if (this.failed !== null) return this.gathered(this.failed);
      if (!this.finished && this.conn.socket.isPaused()) this.conn.socket.resume();
    });
  }

  cancel(): void {
    this.chunks.length = 0;
    if (this.finished) return;
    this.detach();
    // A read() still waiting ends with this.
    this.conn.destroy(wireError('ABORT_ERR', 'cancelled by the reader'));
  }
}

/** Connections per origin, at most `maxSockets` each; requests beyond wait their turn in order. */
export class WirePool {
  private readonly origins = new Map<string, Origin>();
  private tls: Promise<typeof import('node:tls')> | null = null;
  private closed = false;
  /** Set by drain(): how many connections may stay idle (as many as the tasks still running). */
  private keepIdle: (() => number) | null = null;

  constructor(private readonly maxSockets: number) {}

  request(t: WireTarget, call: HttpCall): Promise<WireAnswer> {
    let text: string;
    try {
      if (this.closed) throw poolClosed();
      call.signal.throwIfAborted();
      text = requestText(t, call);
    } catch (e) {
      return Promise.reject(e);
    }
    let got: Conn | Promise<Conn>;
    try {
      got = this.connection(this.originOf(t), call.signal);
    } catch (e) {
      return Promise.reject(e);
    }
    // A connection at hand (idle, or opened now) is written to in this turn: no wait in between.
    if (got instanceof Conn) return this.send(got, call, text);
    return got.then((conn) => this.send(conn, call, text));
  }

  private send(conn: Conn, call: HttpCall, text: string): Promise<WireAnswer> {
    return new Promise<WireAnswer>((resolve, reject) => {
      const x = new Exchange(conn, call.signal, resolve, reject);
      if (call.signal.aborted) {
        x.broke(abortError(call.signal));
        return conn.destroy();
      }
      conn.start(x, text);
    });
  }

  close(): void {
    this.closed = true;
    for (const o of this.origins.values()) {
      for (const w of o.queue.splice(0)) w.fail(poolClosed());
      for (const c of o.idle.splice(0)) c.destroy();
    }
    // Not a reset (which a caller may answer by asking again): the pool is gone.
    for (const c of this.live) c.destroy(poolClosed());
    this.origins.clear();
  }

  /**
   * Every task of a run has been started: from now on no more connections stay idle than `keep()` says
   * (the tasks still running, each of which may ask once more: a seat's /health, then its /v1/models).
   * The rest are closed as they fall idle, while the run waits on its slowest targets, rather than all
   * at once in close() after the last answer, when a person is waiting for the report. A request that
   * finds none idle opens a fresh connection, as ever.
   */
  drain(keep: () => number = () => 0): void {
    this.keepIdle = keep;
    this.trim(keep());
  }

  /** Closes idle connections beyond `room` in all, the least recently used first (idle is used from its end). */
  private trim(room: number): void {
    let idle = 0;
    for (const o of this.origins.values()) {
      const over = o.idle.length - Math.max(0, room - idle);
      if (over > 0) for (const c of o.idle.splice(0, over)) c.destroy();
      idle += o.idle.length;
    }
  }

  /** Every open connection, idle or busy, so close() reaches the busy ones too. */
  private readonly live = new Set<Conn>();

  released(c: Conn): void {
    const next = c.origin.queue.shift();
    if (next) return next.take(c);
    c.socket.unref();
    c.origin.idle.push(c);
    // Draining: as tasks end, fewer may ask again.
    if (this.keepIdle) this.trim(this.keepIdle());
  }

  lost(c: Conn): void {
    this.live.delete(c);
    const o = c.origin;
    const at = o.idle.indexOf(c);
    if (at !== -1) o.idle.splice(at, 1);
    o.open -= 1;
    // A waiting request gets the place the lost connection held.
    if (o.queue.length > 0 && !this.closed) {
      const next = o.queue.shift()!;
      try {
        const fresh = this.open(o);
        if (fresh instanceof Conn) next.take(fresh);
        else fresh.then((c) => next.take(c), (e: Error) => next.fail(e));
      } catch (e) {
        next.fail(e as Error);
      }
    }
  }

  private originOf(t: WireTarget): Origin {
    let o = this.origins.get(t.origin);
    if (!o) this.origins.set(t.origin, (o = { target: t, idle: [], open: 0, queue: [] }));
    return o;
  }

  private connection(o: Origin, signal: AbortSignal): Conn | Promise<Conn> {
    for (;;) {
      const c = o.idle.pop(); // the most recently used: the least likely to have been closed by the peer
      if (!c) break;
      if (!c.dead && !c.socket.destroyed && c.socket.writable && c.socket.readable) return c;
      c.destroy();
    }
    if (o.open < this.maxSockets) return this.open(o);
    return new Promise<Conn>((resolve, reject) => {
      const waiter = {
        take: (c: Conn) => {
          signal.removeEventListener('abort', onAbort);
          if (signal.aborted) {
            this.released(c);
            return reject(abortError(signal));
          }
          resolve(c);
        },
        fail: (e: Error) => {
          signal.removeEventListener('abort', onAbort);
          reject(e);
        },
      };
      const onAbort = (): void => {
        const at = o.queue.indexOf(waiter);
        if (at !== -1) o.queue.splice(at, 1);
        reject(abortError(signal));
      };
      signal.addEventListener('abort', onAbort, { once: true });
      o.queue.push(waiter);
    });
  }

  /** A new connection: at once for http, once node:tls is loaded for https. */
  private open(o: Origin): Conn | Promise<Conn> {
    o.open += 1;
    const t = o.target;
    const made = (socket: Socket): Conn => {
      const c = new Conn(o, this, socket);
      this.live.add(c);
      return c;
    };
    const failed = (e: unknown): never => {
      o.open -= 1;
      throw e;
    };
    if (!t.https) {
      try {
        return made(netConnect({ host: t.hostname, port: t.port, noDelay: true }));
      } catch (e) {
        return failed(e);
      }
    }
    // Loaded on first use: TLS costs start-up time that an all-http fleet should not pay.
    return (this.tls ??= import('node:tls'))
      .then((tls) => {
        // Closed while node:tls loaded: nothing is opened, nothing is sent.
        if (this.closed) throw poolClosed();
        return made(tls.connect({ host: t.hostname, port: t.port, ALPNProtocols: ['http/1.1'], ...(isIP(t.hostname) ? {} : { servername: t.hostname }) }));
      })
      .catch(failed);
  }
}
