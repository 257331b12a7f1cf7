// The HTTP plumbing the gateway and seat stand-ins share: a server whose close() ends everything at
// once (open sockets, hanging requests, pending delays), and bodies sent the way FastAPI sends them.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { assertLoopback, closeServer, listen } from '../net.ts';

export interface RecordedRequest {
  method: string;
  path: string;
  /** The key *name* the bearer token matched, or null (missing or unknown token). Never the secret. */
  key: string | null;
  /** The `model` of a POST body, when there was one. */
  model: string | null;
  /** The parsed JSON body of a POST. */
  body?: Record<string, unknown>;
  at: number;
}

/** `later(ms)` is a delay that close() cancels: a delayed answer then never comes, its socket is gone. */
export type Handler = (req: IncomingMessage, res: ServerResponse, later: (ms: number) => Promise<void>) => Promise<void>;

export interface Served {
  port: number;
  close(): Promise<void>;
}

/** Listens on host:port (loopback only). */
export async function serve(handle: Handler, host: string, port: number): Promise<Served> {
  assertLoopback(host);
  const timers = new Set<NodeJS.Timeout>();
  const sockets = new Set<Socket>();
  let closed = false;
  const later = (ms: number): Promise<void> =>
    new Promise((resolve) => {
      const t = setTimeout(() => {
        timers.delete(t);
        resolve();
      }, ms);
      timers.add(t);
    });
  const server = createServer((req, res) => {
    handle(req, res, later).catch((err: unknown) => {
      if (!closed) send(res, 500, { detail: `drill stand-in failed: ${String(err)}` });
    });
  });
  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  const bound = await listen(server, port, host);
  return {
    port: bound,
    close: async () => {
      if (closed) return;
      closed = true;
      for (const t of timers) clearTimeout(t);
      timers.clear();
      const done = closeServer(server);
      for (const s of sockets) s.destroy();
      await done;
    },
  };
}

/** JSON, as FastAPI sends it (a string body becomes a JSON string: LiteLLM's "I'm alive!"). */
export function send(res: ServerResponse, status: number, body: unknown): void {
  sendText(res, status, JSON.stringify(body), 'application/json');
}

export function sendText(res: ServerResponse, status: number, text: string, type = 'text/plain; charset=utf-8'): void {
  if (res.headersSent || res.destroyed) return;
  res.writeHead(status, { 'content-type': type, 'content-length': Buffer.byteLength(text) });
  res.end(text);
}

export async function readJson(req: IncomingMessage): Promise<Record<string, unknown> | undefined> {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  try {
    const v: unknown = JSON.parse(Buffer.concat(chunks).toString('utf8'));
    return v && typeof v === 'object' ? (v as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}
