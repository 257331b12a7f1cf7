// Loopback plumbing every drill stand-in shares: the drill never binds, redirects to or waits on an
// address outside 127.0.0.0/8 and ::1, so the checks live in one place.
import { connect, createServer, type Server } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';

/** 127.0.0.0/8, ::1 or `localhost`; brackets ("[::1]", as URL.hostname gives it) are allowed. */
export function isLoopback(host: string): boolean {
  const h = unbracket(host);
  return /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(h) || h === '::1' || h === 'localhost';
}

/** Throws unless `host` is loopback; `what` says what was about to happen ("bind", "redirect to"). */
export function assertLoopback(host: string, what = 'bind'): void {
  if (!isLoopback(host)) throw new Error(`drill: refusing to ${what} ${host}: the drill runs on 127.0.0.0/8 and ::1 only`);
}

/** An IPv6 literal gets the brackets a URL or "host:port" needs; anything else is returned as is. */
export function urlHost(host: string): string {
  return host.includes(':') && !host.startsWith('[') ? `[${host}]` : host;
}

export function unbracket(host: string): string {
  return host.replace(/^\[|\]$/g, '');
}

/** "127.0.0.1:8000", "[::1]:8000". */
export function hostPort(host: string, port: number): string {
  return `${urlHost(host)}:${port}`;
}

export function httpUrl(host: string, port: number): string {
  return `http://${hostPort(host, port)}`;
}

/** Listens, and says which port it got (`port` 0 binds an ephemeral one). Rejects with the listen error. */
export async function listen(server: Server, port: number, host: string): Promise<number> {
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const addr = server.address();
  if (addr === null || typeof addr === 'string') throw new Error(`could not read the port bound on ${hostPort(host, port)}`);
  return addr.port;
}

export function closeServer(server: Server): Promise<void> {
  return new Promise((resolve) => server.close(() => resolve()));
}

/** A port on `host` that nobody holds right now (bound, read, released): for a seat or a daemon that is down. */
export async function freePort(host = '127.0.0.1'): Promise<number> {
  assertLoopback(host);
  const server = createServer();
  const port = await listen(server, 0, host);
  await closeServer(server);
  return port;
}

/** Throws a readable error when `host:port` cannot be bound (EADDRINUSE and the like). */
export async function assertPortFree(host: string, port: number, who = 'the drill'): Promise<void> {
  const server = createServer();
  try {
    await listen(server, port, host);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    throw new Error(`cannot start ${who} on ${hostPort(host, port)}: ${code === 'EADDRINUSE' ? 'the port is already in use' : (code ?? String(err))}`);
  }
  await closeServer(server);
}

/** Whether a TCP connect to host:port succeeds now (the socket is closed at once). */
export function accepts(host: string, port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const s = connect({ host: unbracket(host), port });
    s.once('connect', () => {
      s.destroy();
      resolve(true);
    });
    s.once('error', () => resolve(false));
  });
}

export interface WaitForListenerOptions {
  timeoutMs?: number;
  /** Between tries. */
  everyMs?: number;
  /** Called before each try: throw to give up early (the process that should listen has exited). */
  check?: () => void;
}

/** Until something accepts connections on host:port; throws after timeoutMs. */
export async function waitForListener(host: string, port: number, opts: WaitForListenerOptions = {}): Promise<void> {
  const until = performance.now() + (opts.timeoutMs ?? 10_000);
  for (;;) {
    opts.check?.();
    if (await accepts(host, port)) return;
    if (performance.now() > until) throw new Error(`nothing listens on ${hostPort(host, port)} after ${opts.timeoutMs ?? 10_000} ms`);
    await sleep(opts.everyMs ?? 20);
  }
}
