// A recording Slack Web API on loopback, and Slack's request signing, for driving the real Bolt app.
import { createHmac } from 'node:crypto';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ApiCall {
  method: string; // chat.postMessage, chat.update, ...
  args: Record<string, unknown>;
  at: number;
}

export interface ResponseUrlCall {
  path: string;
  body: Record<string, unknown>;
}

export interface SlackApiStandIn {
  url: string; // http://127.0.0.1:PORT/api/
  base: string; // http://127.0.0.1:PORT
  calls: ApiCall[];
  responses: ResponseUrlCall[];
  uploads: string[];
  /** Make the next `times` calls of `method` fail with Slack's `{ok:false,error}` (or HTTP 429 for 'ratelimited'). */
  fail(method: string, error: string, times?: number, retryAfterS?: number, when?: (args: Record<string, unknown>) => boolean): void;
  /** Clears every pending failure. */
  heal(): void;
  /** Answer `method` with this body instead of the built-in one (apps.connections.open, say). */
  answer(method: string, body: Record<string, unknown>): void;
  /** Refuse messages of more than `n` blocks with invalid_blocks, as Slack does for blocks it will not take. */
  maxBlocks: number;
  groups: Map<string, string[]>;
  waitFor(pred: (s: SlackApiStandIn) => boolean, timeoutMs?: number): Promise<void>;
  close(): Promise<void>;
}

export async function startSlackApi(): Promise<SlackApiStandIn> {
  const calls: ApiCall[] = [];
  const responses: ResponseUrlCall[] = [];
  const uploads: string[] = [];
  const failures = new Map<string, { error: string; times: number; retryAfterS: number; when: (args: Record<string, unknown>) => boolean }>();
  const answers = new Map<string, Record<string, unknown>>();
  const groups = new Map<string, string[]>();
  let seq = 100;
  let base = '';

  const server: Server = createServer((req, res) => {
    void readBody(req).then((raw) => {
      const url = new URL(req.url ?? '/', 'http://x');
      const send = (status: number, body: unknown, headers: Record<string, string> = {}): void => {
        res.writeHead(status, { 'content-type': 'application/json', ...headers });
        res.end(JSON.stringify(body));
      };
      if (url.pathname.startsWith('/response/')) {
        responses.push({ path: url.pathname, body: JSON.parse(raw || '{}') as Record<string, unknown> });
        const f = failures.get('response_url');
        if (f && f.times > 0 && f.when(JSON.parse(raw || '{}') as Record<string, unknown>)) {
          f.times -= 1;
          res.writeHead(404);
          res.end('expired_url');
          return;
        }
        res.writeHead(200);
        res.end('ok');
        return;
      }
      if (url.pathname.startsWith('/upload/')) {
        uploads.push(raw);
        res.writeHead(200);
        res.end('OK');
        return;
      }
      const method = url.pathname.replace(/^\/api\//, '');
      const args = parseArgs(raw, req.headers['content-type'] ?? '');
      calls.push({ method, args, at: performance.now() });
      if (Array.isArray(args.blocks) && args.blocks.length > self.maxBlocks) return send(200, { ok: false, error: 'invalid_blocks' });
      const f = failures.get(method);
      if (f && f.times > 0 && f.when(args)) {
        f.times -= 1;
        if (f.error === 'ratelimited') return send(429, { ok: false, error: 'ratelimited' }, { 'retry-after': String(f.retryAfterS) });
        return send(200, { ok: false, error: f.error });
      }
      const custom = answers.get(method);
      if (custom) return send(200, custom);
      switch (method) {
        case 'auth.test':
          return send(200, { ok: true, url: 'https://drill.slack.example/', team: 'drill', user: 'seatbelt', team_id: 'T0DRILL', user_id: 'U0SEATBOT', bot_id: 'B0SEATBOT' });
        case 'chat.postMessage':
          return send(200, { ok: true, channel: args.channel, ts: `1767225600.${String(++seq).padStart(6, '0')}`, message: { text: args.text } });
        case 'chat.update':
          return send(200, { ok: true, channel: args.channel, ts: args.ts, text: args.text });
        case 'usergroups.users.list':
          return send(200, { ok: true, users: groups.get(String(args.usergroup)) ?? [] });
        case 'files.getUploadURLExternal':
          return send(200, { ok: true, upload_url: `${base}/upload/${++seq}`, file_id: `F${seq}` });
        case 'files.completeUploadExternal':
          return send(200, { ok: true, files: [{ id: 'F1', title: 'report' }] });
        default:
          return send(200, { ok: true });
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  base = `http://127.0.0.1:${port}`;
  const self: SlackApiStandIn = {
    url: `${base}/api/`,
    base,
    calls,
    responses,
    uploads,
    groups,
    fail: (method, error, times = 1, retryAfterS = 30, when = () => true) => void failures.set(method, { error, times, retryAfterS, when }),
    heal: () => failures.clear(),
    answer: (method, body) => void answers.set(method, body),
    maxBlocks: 50,
    waitFor: async (pred, timeoutMs = 10_000) => {
      const until = performance.now() + timeoutMs;
      while (!pred(self)) {
        if (performance.now() > until) throw new Error(`timed out waiting; calls so far: ${calls.map((c) => c.method).join(', ')}`);
        await new Promise((r) => setTimeout(r, 10));
      }
    },
    close: () => new Promise<void>((resolve) => { server.closeAllConnections(); server.close(() => resolve()); }),
  };
  return self;
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
  });
}

/** The Web API client sends form-encoded bodies with JSON-encoded fields (blocks); accept JSON too. */
function parseArgs(raw: string, contentType: string): Record<string, unknown> {
  if (contentType.includes('application/json')) return JSON.parse(raw || '{}') as Record<string, unknown>;
  const out: Record<string, unknown> = {};
  for (const [k, v] of new URLSearchParams(raw)) {
    out[k] = /^[[{]/.test(v) ? safeJson(v) : v;
  }
  return out;
}

function safeJson(v: string): unknown {
  try {
    return JSON.parse(v);
  } catch {
    return v;
  }
}

export function sign(secret: string, timestamp: number, body: string): string {
  return `v0=${createHmac('sha256', secret).update(`v0:${timestamp}:${body}`).digest('hex')}`;
}

export interface SignedPostOptions {
  secret: string;
  timestamp?: number; // seconds
  signature?: string; // to forge one
  contentType?: string;
}

export async function signedPost(url: string, body: string, o: SignedPostOptions): Promise<{ status: number; text: string; ms: number }> {
  const ts = o.timestamp ?? Math.floor(Date.now() / 1000);
  const t0 = performance.now();
  const res = await fetch(url, {
    method: 'POST',
    headers: {
      'content-type': o.contentType ?? 'application/x-www-form-urlencoded',
      'x-slack-request-timestamp': String(ts),
      'x-slack-signature': o.signature ?? sign(o.secret, ts, body),
    },
    body,
  });
  const text = await res.text();
  return { status: res.status, text, ms: performance.now() - t0 };
}

/** Slack gives every command and click its own trigger_id; a replay repeats one. */
let triggers = 0;
const nextTrigger = (): string => `${Date.now()}.${process.pid}.${++triggers}`;

export function slashCommandBody(p: { text: string; user?: string; channel?: string; responseUrl: string; triggerId?: string }): string {
  return new URLSearchParams({
    token: 'deprecated-verification-token',
    team_id: 'T0DRILL',
    team_domain: 'drill',
    channel_id: p.channel ?? 'C0INCIDENT',
    channel_name: 'incident',
    user_id: p.user ?? 'U0ONCALL01',
    user_name: 'oncall',
    command: '/seat',
    text: p.text,
    api_app_id: 'A0SEATBELT',
    is_enterprise_install: 'false',
    response_url: p.responseUrl,
    trigger_id: p.triggerId ?? nextTrigger(),
  }).toString();
}

export function blockActionBody(p: { value: string; user?: string; channel?: string; ts: string; responseUrl: string; triggerId?: string }): string {
  const payload = {
    type: 'block_actions',
    user: { id: p.user ?? 'U0ONCALL02', username: 'oncall2', team_id: 'T0DRILL' },
    api_app_id: 'A0SEATBELT',
    token: 'deprecated-verification-token',
    container: { type: 'message', message_ts: p.ts, channel_id: p.channel ?? 'C0INCIDENT', is_ephemeral: false },
    trigger_id: p.triggerId ?? nextTrigger(),
    team: { id: 'T0DRILL', domain: 'drill' },
    channel: { id: p.channel ?? 'C0INCIDENT', name: 'incident' },
    message: { type: 'message', ts: p.ts, text: 'report', user: 'U0SEATBOT', bot_id: 'B0SEATBOT' },
    response_url: p.responseUrl,
    actions: [{ action_id: 'probe_again', block_id: 'b1', text: { type: 'plain_text', text: 'Probe again' }, value: p.value, type: 'button', action_ts: '1767225601.000001' }],
  };
  return new URLSearchParams({ payload: JSON.stringify(payload) }).toString();
}
