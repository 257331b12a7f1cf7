// A TCP connect to one port: open, refused, or no answer within the budget.
import { connect as netConnect } from 'node:net';

export type TcpOutcome = { port: number; ok: boolean; error?: string; latencyMs: number | null };

export function tcpConnect(host: string, port: number, budgetMs: number, signal: AbortSignal, now: () => number): Promise<TcpOutcome> {
  const t0 = now();
  if (signal.aborted) return Promise.resolve({ port, ok: false, error: 'stopped', latencyMs: null });
  return new Promise((resolve) => {
    const socket = netConnect({ host, port });
    let settled = false;
    const done = (ok: boolean, error?: string): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      signal.removeEventListener('abort', onAbort);
      socket.destroy();
      resolve({ port, ok, ...(error ? { error } : {}), latencyMs: ok ? Math.round((now() - t0) * 10) / 10 : null });
    };
    const onAbort = (): void => done(false, 'stopped');
    const timer = setTimeout(() => done(false, `no answer within ${budgetMs} ms`), budgetMs);
    signal.addEventListener('abort', onAbort, { once: true });
    socket.once('connect', () => done(true));
    socket.on('error', (err: NodeJS.ErrnoException) => done(false, err.code === 'ECONNREFUSED' ? 'refused' : (err.code ?? err.message)));
  });
}
