// The operations listener: GET /healthz (the process answers), /readyz (ready to serve: 503 with what
// is not), /metrics (the Prometheus exposition). Apart from Slack's PORT, loopback by default.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { ListenAddress } from './address.ts';

/** One check of readiness: ok, or what is wrong in one line (no secrets, no peer text). */
export type ReadyCheck = () => { ok: true } | { ok: false; why: string };

export interface OpsDeps {
  /** Named checks, all of which must pass for /readyz to answer 200. */
  ready: Record<string, ReadyCheck>;
  /** The exposition text and its content type. */
  metrics: { text(): Promise<string>; readonly contentType: string };
  /** POST /alertmanager: Alertmanager's webhook (alertmanager.ts); absent, the path is not served. */
  alertmanager?: { handle(req: IncomingMessage, res: ServerResponse): void; readonly state: { on: boolean } };
}

export interface OpsListener {
  readonly host: string;
  readonly port: number;
  close(): Promise<void>;
}

export type StartResult = { ok: true; value: OpsListener } | { ok: false; code: 'in_use' | 'denied' | 'listen_failed'; error: string };

export function handleOps(deps: OpsDeps, req: IncomingMessage, res: ServerResponse): void {
  const path = (req.url ?? '/').split('?')[0];
  if (path === '/alertmanager' && deps.alertmanager) return deps.alertmanager.handle(req, res);
  req.resume();
  if (req.method !== 'GET' && req.method !== 'HEAD') return send(res, 405, 'only GET\n', { allow: 'GET, HEAD' });
  if (path === '/healthz') return send(res, 200, 'ok\n');
  if (path === '/readyz') {
    const failing: string[] = [];
    for (const [name, check] of Object.entries(deps.ready)) {
      let r: ReturnType<ReadyCheck>;
      try {
        r = check();
      } catch {
        r = { ok: false, why: 'its check failed' };
      }
      if (!r.ok) failing.push(`${name}: ${r.why}`);
    }
    return failing.length === 0 ? send(res, 200, 'ready\n') : send(res, 503, `not ready\n${failing.join('\n')}\n`);
  }
  if (path === '/metrics') {
    deps.metrics.text().then(
      (text) => send(res, 200, text, { 'content-type': deps.metrics.contentType }),
      () => send(res, 500, 'the metrics could not be written\n'),
    );
    return;
  }
  send(res, 404, `not found: /healthz, /readyz, /metrics${deps.alertmanager?.state.on ? ', POST /alertmanager' : ''}\n`);
}

function send(res: ServerResponse, status: number, body: string, headers: Record<string, string> = {}): void {
  res.writeHead(status, { 'content-type': 'text/plain; charset=utf-8', 'cache-control': 'no-store', ...headers });
  res.end(res.req.method === 'HEAD' ? undefined : body);
}

export function startOpsListener(at: Pick<ListenAddress, 'host' | 'port'>, deps: OpsDeps): Promise<StartResult> {
  const server: Server = createServer({ requestTimeout: 10_000, headersTimeout: 5_000 }, (req, res) => {
    // Only /alertmanager reads a body; handleOps drains every other so the socket is reused or closed cleanly.
    handleOps(deps, req, res);
  });
  return new Promise((resolve) => {
    server.once('error', (err: NodeJS.ErrnoException) => {
      const code = err.code === 'EADDRINUSE' ? 'in_use' : err.code === 'EACCES' ? 'denied' : 'listen_failed';
      resolve({ ok: false, code, error: `cannot listen on ${at.host}:${at.port} (${err.code ?? 'error'}): set SEAT_HTTP_LISTEN to a free host:port` });
    });
    server.listen(at.port, at.host, () => {
      const addr = server.address() as AddressInfo;
      resolve({
        ok: true,
        value: {
          host: addr.address,
          port: addr.port,
          close: () =>
            new Promise<void>((done) => {
              server.close(() => done());
              server.closeAllConnections();
            }),
        },
      });
    });
  });
}
