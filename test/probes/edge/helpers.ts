// Seams for the edge tests: timers the test fires itself, loopback servers, and process liveness.
import { readFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { SetTimer } from '../../../src/probes/edge/timeout.ts';

/** Timers that fire only when the test says so: a deadline is behaviour, not a race with the clock. */
export class ManualTimers {
  private pending: { fn: () => void; ms: number }[] = [];

  readonly setTimer: SetTimer = (fn, ms) => {
    const t = { fn, ms };
    this.pending.push(t);
    return () => {
      this.pending = this.pending.filter((x) => x !== t);
    };
  };

  /** Fires every pending timer set for `ms` (all of them when omitted); returns how many fired. */
  fire(ms?: number): number {
    const due = this.pending.filter((t) => ms === undefined || t.ms === ms);
    this.pending = this.pending.filter((t) => !due.includes(t));
    for (const t of due) t.fn();
    return due.length;
  }

  get count(): number {
    return this.pending.length;
  }
}

/** Polls until `cond` holds; fails after `limitMs`. A bound on a wait, not a timed assertion. */
export async function waitFor(cond: () => boolean, what: string, limitMs = 15_000): Promise<void> {
  const start = Date.now();
  while (!cond()) {
    if (Date.now() - start > limitMs) throw new Error(`gave up waiting: ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

/** Running, and not a zombie waiting for a parent that will never reap it (PID 1 in a container). */
export function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z';
  } catch {
    return false;
  }
}

export interface Loopback {
  url: string;
  port: number;
  hits: number;
  close(): Promise<void>;
}

export async function serve(handler: (req: IncomingMessage, res: ServerResponse, hit: number) => void): Promise<Loopback> {
  const server = createServer((req, res) => {
    lb.hits += 1;
    handler(req, res, lb.hits);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  const lb: Loopback = {
    url: `http://127.0.0.1:${port}`,
    port,
    hits: 0,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
  return lb;
}

/** A port nothing listens on: one the kernel just gave us and we closed again. */
export async function closedPort(): Promise<number> {
  const lb = await serve(() => {});
  await lb.close();
  return lb.port;
}
