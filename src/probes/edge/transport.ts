// How an HTTP request leaves the process: node:http with one keep-alive pool per origin, sized by the
// run's concurrency. Not fetch: undici costs ~70 ms to load and ~12 MiB before the first request, and
// a probe run is a burst of small requests to one or two origins, which a pool of kept-alive sockets
// serves with no handshake after the first. `fetchTransport` adapts any fetch to the same shape (tests
// hand one in to shape an answer; nothing else loads undici).
//
// The transport only moves bytes: caps, redirects (never followed: node:http does not follow them),
// timeouts, retries and words are httpRequest's (./http.ts).
import { Agent, request, type ClientRequest, type IncomingMessage } from 'node:http';
import { concat, type BodyRead } from './capped.ts';

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
  /** Stops reading: the connection is dropped, never handed back to the pool. */
  cancel(): void;
  /**
   * The rest of the body in one go, as readCapped (./capped.ts) would read it piece by piece: past
   * `max` bytes it stops and drops the connection; a break mid-answer is `broke`. Optional: one
   * promise per answer instead of one per piece, for the thousands of small answers of a probe run.
   */
  readAll?(max: number): Promise<BodyRead>;
}


/** Sends one request; resolves when the status line is in, rejects (with the system's error and its
 * `code`) when no answer came. */
export type HttpTransport = (url: string, call: HttpCall) => Promise<HttpAnswer>;

export interface HttpPool {
  transport: HttpTransport;
  /** Drops every connection, idle or busy. */
  close(): void;
}

export interface PoolOptions {
  /** Connections per origin at most; more requests queue. Default 128, the inventory's default concurrency. */
  maxSockets?: number;
}

/** A URL as request() takes it, parsed once per run. */
interface Target {
  https: boolean;
  origin: string;
  protocol: string;
  hostname: string;
  port: string | undefined;
  path: string;
}

/** One keep-alive pool per origin (scheme, host and port). Idle sockets do not keep the process alive. */
export function createHttpPool(opts: PoolOptions = {}): HttpPool {
  const maxSockets = Math.max(1, opts.maxSockets ?? 128);
  const agents = new Map<string, Agent>();
  let https: Promise<typeof import('node:https')> | null = null;
  const agentOf = (origin: string, make: () => Agent): Agent => {
    let agent = agents.get(origin);
    if (!agent) agents.set(origin, (agent = make()));
    return agent;
  };
  // A run asks a handful of URLs thousands of times: each is parsed once, into what request() takes.
  const targets = new Map<string, Target>();
  const targetOf = (url: string): Target => {
    let t = targets.get(url);
    if (!t) {
      const u = new URL(url);
      if (u.protocol !== 'http:' && u.protocol !== 'https:') throw Object.assign(new Error(`not an http(s) URL: ${u.protocol}`), { code: 'ERR_INVALID_URL_SCHEME' });
      t = { https: u.protocol === 'https:', origin: `${u.protocol}//${u.host}`, protocol: u.protocol, hostname: u.hostname.replace(/^\[|\]$/g, ''), port: u.port || undefined, path: `${u.pathname}${u.search}` };
      if (targets.size >= 4096) targets.clear();
      targets.set(url, t);
    }
    return t;
  };
  const transport: HttpTransport = async (url, call) => {
    const t = targetOf(url);
    let agent: Agent;
    let send: typeof request;
    if (t.https) {
      // Loaded on first use: TLS costs start-up time that an all-http fleet should not pay.
      const mod = await (https ??= import('node:https'));
      agent = agentOf(t.origin, () => new mod.Agent({ keepAlive: true, maxSockets, scheduling: 'lifo' }));
      send = mod.request;
    } else {
      agent = agentOf(t.origin, () => new Agent({ keepAlive: true, maxSockets, scheduling: 'lifo' }));
      send = request;
    }
    call.signal.throwIfAborted();
    const req = send({ protocol: t.protocol, hostname: t.hostname, port: t.port, path: t.path, method: call.method, headers: call.headers, agent });
    // Our own listener rather than request({ signal }), whose stream plumbing costs more per request
    // than the rest of sending it; removed when the exchange is over (the response read or dropped).
    const signal = call.signal;
    const onAbort = (): void => {
      req.destroy(Object.assign(new Error('aborted by the caller'), { name: 'AbortError', code: 'ABORT_ERR', cause: signal.reason as unknown }));
    };
    signal.addEventListener('abort', onAbort, { once: true });
    req.once('close', () => signal.removeEventListener('abort', onAbort));
    return answerOf(req, call.body);
  };
  return {
    transport,
    close: () => {
      for (const a of agents.values()) a.destroy();
      agents.clear();
    },
  };
}

function answerOf(req: ClientRequest, body: string | undefined): Promise<HttpAnswer> {
  return new Promise<HttpAnswer>((resolve, reject) => {
    let answered = false;
    // Kept for the request's whole life: a socket error after the status line is emitted here too,
    // and the body reader sees it as the response closing early.
    req.on('error', (err) => {
      if (!answered) reject(err);
    });
    req.once('response', (res: IncomingMessage) => {
      answered = true;
      resolve(reader(req, res));
    });
    req.end(body);
  });
}

/** A pull reader over a response: at most a few chunks are buffered before the socket is paused. Or,
 * with readAll, the whole rest of the body gathered under a cap in one promise. */
function reader(req: ClientRequest, res: IncomingMessage): HttpAnswer {
  const chunks: Buffer[] = [];
  let ended = false;
  let failed: unknown = null;
  let wake: (() => void) | null = null;
  /** Set by readAll: chunks go here, and it answers at the end, past the cap or at a break. */
  let gather: { max: number; total: number; kept: Buffer[]; done(r: BodyRead): void } | null = null;
  const poke = (): void => {
    const w = wake;
    wake = null;
    w?.();
  };
  /** What was gathered so far, as the answer: the whole body at its end, or what came before a break. */
  const gathered = (broke?: unknown): void => {
    const g = gather!;
    g.done({ bytes: concat(g.kept, g.total), total: g.total, over: false, ...(broke === undefined ? {} : { broke }) });
  };
  const take = (c: Buffer): void => {
    const g = gather!;
    const before = g.total;
    g.total += c.byteLength;
    if (g.total <= g.max) {
      g.kept.push(c);
      return;
    }
    const room = g.max - before;
    if (room > 0) g.kept.push(c.subarray(0, room));
    chunks.length = 0;
    res.destroy();
    req.destroy();
    g.done({ bytes: concat(g.kept, g.max), total: g.total, over: true });
  };
  res.on('data', (c: Buffer) => {
    if (gather) return take(c);
    chunks.push(c);
    if (chunks.length >= 4) res.pause();
    poke();
  });
  res.on('end', () => {
    ended = true;
    if (gather) gathered();
    poke();
  });
  res.on('error', (err) => {
    failed ??= err;
    poke();
  });
  res.on('close', () => {
    // Closed before its end: the connection broke (or was cancelled) mid-answer.
    if (!ended) failed ??= Object.assign(new Error('aborted'), { code: 'ECONNRESET' });
    if (gather && !ended) gathered(failed);
    poke();
  });
  return {
    status: res.statusCode ?? 0,
    header: (name) => {
      const v = res.headers[name];
      return v === undefined ? null : Array.isArray(v) ? v.join(', ') : v;
    },
    read: async () => {
      for (;;) {
        const c = chunks.shift();
        if (c) {
          if (chunks.length === 0 && res.isPaused()) res.resume();
          return c;
        }
        if (ended) return null;
        if (failed !== null) throw failed;
        await new Promise<void>((r) => (wake = r));
      }
    },
    readAll: (max) =>
      new Promise<BodyRead>((resolve) => {
        let answered = false;
        gather = {
          max,
          total: 0,
          kept: [],
          done: (r) => {
            if (answered) return;
            answered = true;
            resolve(r);
          },
        };
        for (const c of chunks.splice(0)) if (!answered) take(c);
        if (answered) return;
        if (ended) return gathered();
        if (failed !== null) return gathered(failed);
        if (res.isPaused()) res.resume();
      }),
    cancel: () => {
      chunks.length = 0;
      res.destroy();
      req.destroy();
    },
  };
}

/** Any fetch as a transport: redirects left to the caller ('manual'), the body read as a stream. */
export function fetchTransport(f: typeof fetch): HttpTransport {
  return async (url, call) => {
    const res = await f(url, { method: call.method, headers: call.headers, ...(call.body !== undefined ? { body: call.body } : {}), signal: call.signal, redirect: 'manual' });
    const body = res.body?.getReader();
    return {
      status: res.status,
      header: (name) => res.headers.get(name),
      read: async () => {
        if (!body) return null;
        const { done, value } = await body.read();
        return done ? null : value;
      },
      cancel: () => {
        body?.cancel().catch(() => {});
      },
    };
  };
}
