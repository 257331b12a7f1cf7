// Where the operations listener (/healthz, /readyz, /metrics) listens: SEAT_HTTP_LISTEN=host:port,
// loopback by default and apart from Slack's PORT. A result, never a throw.
import { isIP } from 'node:net';

export const DEFAULT_LISTEN = { host: '127.0.0.1', port: 9464 } as const;

export interface ListenAddress {
  host: string;
  port: number;
  /** Whether the address is loopback (127.0.0.0/8, ::1, localhost). */
  loopback: boolean;
  /** Where it came from: the default, or the variable named. */
  from: 'default' | 'SEAT_HTTP_LISTEN' | 'settings.httpListen';
}

export type ListenResult = { ok: true; value: ListenAddress } | { ok: false; error: string };

export function isLoopback(host: string): boolean {
  if (host === 'localhost' || host === '::1') return true;
  return isIP(host) === 4 && host.startsWith('127.');
}

/** `host:port`, `[v6]:port` or `:port` (loopback). Only an address given explicitly may be non-loopback. */
export function parseListen(raw: string | undefined, from: 'SEAT_HTTP_LISTEN' | 'settings.httpListen' = 'SEAT_HTTP_LISTEN'): ListenResult {
  if (raw === undefined || raw.trim() === '') return { ok: true, value: { ...DEFAULT_LISTEN, loopback: true, from: 'default' } };
  const text = raw.trim();
  const shown = `${from === 'SEAT_HTTP_LISTEN' ? 'SEAT_HTTP_LISTEN=' : 'settings.httpListen: '}${JSON.stringify(text.slice(0, 80))}`;
  const m = /^(?:\[([0-9a-fA-F:.]+)\]|([^:[\]]*)):(\d{1,5})$/.exec(text);
  if (!m) return { ok: false, error: `${shown} is not host:port (for example 127.0.0.1:9464, or [::1]:9464)` };
  const host = m[1] ?? (m[2] === '' || m[2] === undefined ? DEFAULT_LISTEN.host : m[2]);
  const port = Number(m[3]);
  if (port > 65535) return { ok: false, error: `${shown}: the port must be 0 (any free one) to 65535` };
  if (host !== 'localhost' && isIP(host) === 0) return { ok: false, error: `${shown}: the host must be an IP address or localhost` };
  return { ok: true, value: { host, port, loopback: isLoopback(host), from } };
}

/** Where to listen: SEAT_HTTP_LISTEN, else the inventory's settings.httpListen, else loopback; null: off (either says `off`). */
export function listenFrom(env: NodeJS.ProcessEnv, httpListen: string | undefined): ListenResult | null {
  const fromEnv = env.SEAT_HTTP_LISTEN;
  if (fromEnv !== undefined && fromEnv.trim() !== '') return fromEnv.trim() === 'off' ? null : parseListen(fromEnv);
  if (httpListen !== undefined && httpListen.trim() !== '') return httpListen.trim() === 'off' ? null : parseListen(httpListen, 'settings.httpListen');
  return parseListen(undefined);
}
