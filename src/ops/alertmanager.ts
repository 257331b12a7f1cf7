// POST /alertmanager on the operations listener: Alertmanager's webhook (version 4). Refused before
// anything is done with it: without SEAT_ALERTMANAGER_TOKEN (404: the receiver is off), without the
// bearer token (401), over the size cap (413), not a version-4 payload (400, naming what is wrong),
// while the bot stops or before it is connected (503: Alertmanager sends it again later). An accepted
// notification is answered 200 at once and handled after the answer (alert-flow.ts), tracked so a
// stop waits for it.
import type { IncomingMessage as IncomingRequest, ServerResponse } from 'node:http';
import { bearerMatches, readToken, TOKEN_VAR } from './alert-auth.ts';
import { MAX_BODY_BYTES, parseWebhook, type Webhook } from './alert-payload.ts';
import type { OpsLog } from './log.ts';

export const ALERTMANAGER_PATH = '/alertmanager';

export interface AlertReceiver {
  /** On (a token is set), or off with why. */
  readonly state: { on: true } | { on: false; why: string };
  handle(req: IncomingRequest, res: ServerResponse): void;
  /** Where accepted notifications go, once the bot can act on them; until then they get 503. */
  setFlow(flow: (w: Webhook) => Promise<void>): void;
  /** Stops taking notifications (503 from now on). */
  drain(): void;
  /** Resolves when every accepted notification has been handled. */
  idle(): Promise<void>;
}

export type ReceiverResult = { ok: true; value: AlertReceiver } | { ok: false; error: string };

export function createAlertReceiver(o: { env: NodeJS.ProcessEnv; log: OpsLog; maxBytes?: number }): ReceiverResult {
  const token = readToken(o.env);
  if (!token.ok && !token.off) return { ok: false, error: token.error };
  const maxBytes = o.maxBytes ?? MAX_BODY_BYTES;
  let flow: ((w: Webhook) => Promise<void>) | null = null;
  let draining = false;
  const running = new Set<Promise<void>>();
  const state = token.ok ? ({ on: true } as const) : ({ on: false, why: token.why } as const);

  const handle = (req: IncomingRequest, res: ServerResponse): void => {
    if (!token.ok) {
      req.resume();
      return send(res, 404, `the Alertmanager receiver is off: ${TOKEN_VAR} is not set\n`);
    }
    if (req.method !== 'POST') {
      req.resume();
      return send(res, 405, 'only POST\n', { allow: 'POST' });
    }
    if (!bearerMatches(req.headers.authorization, token.token)) {
      o.log('warn', 'alertmanager.refused', { why: 'unauthenticated', status: 401 });
      return refuse(req, res, 401, 'a bearer token is needed (http_config.authorization in Alertmanager)\n', { 'www-authenticate': 'Bearer' });
    }
    if (draining || !flow) {
      return refuse(req, res, 503, draining ? 'the bot is stopping: send it again later\n' : 'the bot is not connected yet: send it again later\n', { 'retry-after': '10' });
    }
    const declared = Number(req.headers['content-length'] ?? NaN);
    if (declared > maxBytes) {
      o.log('warn', 'alertmanager.refused', { why: 'too_large', status: 413 });
      return refuse(req, res, 413, `the body is over ${maxBytes} bytes\n`);
    }
    const chunks: Buffer[] = [];
    let size = 0;
    let over = false;
    req.on('data', (c: Buffer) => {
      if (over) return;
      size += c.length;
      if (size > maxBytes) {
        over = true;
        o.log('warn', 'alertmanager.refused', { why: 'too_large', status: 413 });
        refuse(req, res, 413, `the body is over ${maxBytes} bytes\n`);
        return;
      }
      chunks.push(c);
    });
    req.on('error', () => void (over = true));
    req.on('end', () => {
      if (over) return;
      const parsed = parseWebhook(Buffer.concat(chunks).toString('utf8'));
      if (!parsed.ok) {
        o.log('warn', 'alertmanager.refused', { why: 'bad_payload', status: 400 });
        return send(res, 400, `${parsed.error}\n`);
      }
      const current = flow;
      if (draining || !current) return send(res, 503, 'the bot is stopping: send it again later\n', { 'retry-after': '10' });
      send(res, 200, 'accepted\n');
      o.log('info', 'alertmanager.accepted', { status: parsed.value.status, alerts: parsed.value.alerts.length });
      const done: Promise<void> = current(parsed.value)
        .catch((err: unknown) => o.log('error', 'alertmanager.failed', { why: err instanceof Error ? (err.message.split('\n')[0] ?? '') : String(err) }))
        .finally(() => running.delete(done));
      running.add(done);
    });
  };

  return {
    ok: true,
    value: {
      state,
      handle,
      setFlow: (f) => void (flow = f),
      drain: () => void (draining = true),
      idle: async () => {
        while (running.size > 0) await Promise.all([...running]);
      },
    },
  };
}

function send(res: ServerResponse, status: number, body: string, headers: Record<string, string> = {}): void {
  if (res.headersSent) return;
  res.writeHead(status, { 'content-type': 'text/plain; charset=utf-8', 'cache-control': 'no-store', ...headers });
  res.end(body);
}

/** Answers at once without reading the body, and closes the connection (its body is not wanted). */
function refuse(req: IncomingRequest, res: ServerResponse, status: number, body: string, headers: Record<string, string> = {}): void {
  send(res, status, body, { connection: 'close', ...headers });
  res.once('finish', () => req.destroy());
}
