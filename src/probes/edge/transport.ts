// How an HTTP request leaves the process: our own HTTP/1.1 client (./wire.ts) with one keep-alive
// pool per origin, sized by the run's concurrency. Not node:http: on a 3,000-alias fleet its per-request
// CPU is what holds back the last request (bench/probe-scale.ts measures both). Not fetch: undici
// costs ~70 ms to load and ~12 MiB before the first request. A probe run is a burst of small requests
// to one or two origins, which a pool of kept-alive sockets serves with no handshake after the first.
// `fetchTransport` adapts any fetch to the same shape (tests hand one in to shape an answer; nothing
// else loads undici).
//
// The transport only moves bytes: caps, redirects (never followed), timeouts, retries and words are
// httpRequest's (./http.ts).
import type { HttpTransport } from './http-types.ts';
import { WirePool, type WireTarget } from './wire.ts';

// The shared shapes live in ./http-types.ts (wire.ts uses them too); re-exported for the callers of the pool.
export type { HttpAnswer, HttpCall, HttpTransport } from './http-types.ts';

export interface HttpPool {
  transport: HttpTransport;
  /** Drops every connection, idle or busy. */
  close(): void;
  /** Every task has been started: no more connections stay idle than `keep()` (the tasks still running;
   * none by default); the rest close as they fall idle (WirePool.drain). */
  drain(keep?: () => number): void;
}

export interface PoolOptions {
  /** Connections per origin at most; more requests queue. Default 128, the inventory's default concurrency. */
  maxSockets?: number;
}

/** One keep-alive pool per origin (scheme, host and port), on our own HTTP/1.1 client (./wire.ts).
 * Idle sockets do not keep the process alive. */
export function createHttpPool(opts: PoolOptions = {}): HttpPool {
  const pool = new WirePool(Math.max(1, opts.maxSockets ?? 128));
  // A run asks a handful of URLs thousands of times: each is parsed once.
  const targets = new Map<string, WireTarget>();
  const targetOf = (url: string): WireTarget => {
    let t = targets.get(url);
    if (!t) {
      const u = new URL(url);
      if (u.protocol !== 'http:' && u.protocol !== 'https:') throw Object.assign(new Error(`not an http(s) URL: ${u.protocol}`), { code: 'ERR_INVALID_URL_SCHEME' });
      const https = u.protocol === 'https:';
      t = {
        https,
        origin: `${u.protocol}//${u.host}`,
        hostname: u.hostname.replace(/^\[|\]$/g, ''),
        port: u.port ? Number(u.port) : https ? 443 : 80,
        host: u.host,
        path: `${u.pathname}${u.search}`,
      };
      if (targets.size >= 4096) targets.clear();
      targets.set(url, t);
    }
    return t;
  };
  return {
    transport: (url, call) => pool.request(targetOf(url), call),
    close: () => pool.close(),
    drain: (keep) => pool.drain(keep),
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
