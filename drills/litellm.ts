// Loopback stand-ins that speak LiteLLM's proxy API and vLLM's OpenAI server closely enough for the
// alias probe to be tested against real HTTP: real status codes, real error bodies, real hangs.
// Shapes follow BerriAI/litellm (proxy auth errors, key_model_access_denied, InternalServerError
// wrapping of backend failures) and vllm-project/vllm (/health, /v1/models, error objects).
import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { Fleet } from '../src/inventory/fleet.ts';

export type AliasMode = 'ok' | 'slow' | 'hang' | 'error';

export interface AliasBehaviour {
  /** Key names this alias is registered for (what each key's /v1/models lists). Default: every key. */
  keys?: string[];
  mode: AliasMode;
  /** 'slow': answer after this many ms (default 250). */
  delayMs?: number;
  /** 'error': the HTTP status (default 500). */
  status?: number;
  /** 'error': the body to send instead of LiteLLM's (an object is sent as JSON, a string as is). */
  body?: unknown;
  /** Forward to this vLLM stand-in (its base URL) and map its failures the way LiteLLM does. */
  backend?: string;
  /** The model name sent to the backend (LiteLLM's litellm_params.model); default the alias. */
  backendModel?: string;
  /** Which endpoint the deployment serves; the other answers 400. Default: both. */
  kind?: 'chat' | 'embedding';
}

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

export interface GatewayOptions {
  host?: string;
  port?: number;
  /** key name → secret (the bearer token). */
  keys: Record<string, string>;
  aliases: Record<string, AliasBehaviour>;
  /** LiteLLM answers 403 for a model the key may not use (401 in builds before late 2025). */
  accessDeniedStatus?: number;
}

export interface GatewayServer {
  url: string;
  port: number;
  stop(): Promise<void>;
  /** Merge into an alias's behaviour (creating it, mode 'ok', when new). */
  set(alias: string, behaviour: Partial<AliasBehaviour>): void;
  remove(alias: string): void;
  requests: RecordedRequest[];
}

const CREATED = 1677610602; // LiteLLM lists every model with this `created`

/** Starts a LiteLLM-speaking gateway on loopback. */
export async function startGateway(opts: GatewayOptions): Promise<GatewayServer> {
  const aliases = new Map(Object.entries(opts.aliases).map(([k, v]) => [k, { ...v }]));
  const requests: RecordedRequest[] = [];
  const deniedStatus = opts.accessDeniedStatus ?? 403;
  const forwards = new AbortController();

  const keyName = (req: IncomingMessage): string | null | undefined => {
    const auth = req.headers.authorization;
    if (!auth) return undefined;
    const token = auth.replace(/^Bearer\s+/i, '').trim();
    return Object.entries(opts.keys).find(([, secret]) => secret === token)?.[0] ?? null;
  };
  const allowed = (alias: string, key: string): boolean => {
    const b = aliases.get(alias);
    return b !== undefined && (b.keys === undefined || b.keys.includes(key));
  };

  const handle: Handler = async (req, res, later) => {
    const url = new URL(req.url ?? '/', 'http://x');
    const path = url.pathname.replace(/^\/v1(?=\/)/, '');
    const body = req.method === 'POST' ? await readJson(req) : undefined;
    const model = typeof body?.model === 'string' ? body.model : null;
    const key = keyName(req);
    requests.push({ method: req.method ?? 'GET', path: url.pathname, key: key ?? null, model, ...(body ? { body } : {}), at: Date.now() });

    if (req.method === 'GET' && path === '/health/liveliness') return send(res, 200, "I'm alive!");
    if (req.method === 'GET' && path === '/health/readiness') {
      return send(res, 200, { status: 'healthy', db: 'Not connected', cache: null, litellm_version: 'drill' });
    }
    const isModels = req.method === 'GET' && path === '/models';
    const isChat = req.method === 'POST' && path === '/chat/completions';
    const isEmbed = req.method === 'POST' && path === '/embeddings';
    if (!isModels && !isChat && !isEmbed) return send(res, 404, { detail: 'Not Found' });

    if (key === undefined) return send(res, 401, litellmError('Authentication Error, No api key passed in.', 'auth_error', 'None', 401));
    if (key === null) {
      const token = (req.headers.authorization ?? '').replace(/^Bearer\s+/i, '');
      const masked = `${token.slice(0, 3)}...${token.slice(-4)}`; // LiteLLM echoes this much of a bad token
      return send(
        res,
        401,
        litellmError(
          `Authentication Error, Invalid proxy server token passed. Received API Key = ${masked}, Key Hash (Token) =${randomBytes(32).toString('hex')}. Unable to find token in cache or \`LiteLLM_VerificationTokenTable\``,
          'auth_error',
          'None',
          401,
        ),
      );
    }
    if (isModels) {
      const data = [...aliases.keys()].filter((a) => allowed(a, key)).map((id) => ({ id, object: 'model', created: CREATED, owned_by: 'openai' }));
      return send(res, 200, { data, object: 'list' });
    }
    if (model === null) return send(res, 400, litellmError('litellm.BadRequestError: model is required', 'invalid_request_error', 'model', 400));
    const b = aliases.get(model);
    if (!b) {
      return send(res, 400, litellmError(`/${isChat ? 'chat/completions' : 'embeddings'}: Invalid model name passed in model=${model}. Call \`/v1/models\` to view available models for your key.`, 'invalid_request_error', 'model', 400));
    }
    if (!allowed(model, key)) {
      const can = [...aliases.keys()].filter((a) => allowed(a, key)).map((a) => `'${a}'`).join(', ');
      return send(res, deniedStatus, litellmError(`key not allowed to access model. This key can only access models=[${can}]. Tried to access ${model}`, 'key_model_access_denied', 'model', deniedStatus));
    }

    switch (b.mode) {
      case 'hang':
        return; // never answers; stop() destroys the socket
      case 'error':
        if (typeof b.body === 'string') return sendText(res, b.status ?? 500, b.body);
        return send(res, b.status ?? 500, b.body ?? internalError(model, 'OpenAIException - Connection error.'));
      case 'slow':
        await later(b.delayMs ?? 250);
        break;
      case 'ok':
        break;
    }
    const wanted = isChat ? 'chat' : 'embedding';
    if (b.kind && b.kind !== wanted) {
      return send(res, 400, litellmError(`litellm.BadRequestError: Hosted_vllmException - The model does not support ${isChat ? 'Chat Completions' : 'Embeddings'} API. Received Model Group=${model}`, null, null, 400));
    }
    if (!b.backend) return send(res, 200, isChat ? chatBody(model, body) : embeddingBody(model, body));
    const upstream = await forward(`${b.backend}/v1/${isChat ? 'chat/completions' : 'embeddings'}`, { ...body, model: b.backendModel ?? model }, forwards.signal);
    if (upstream.status === null) return send(res, 500, internalError(model, 'OpenAIException - Connection error.'));
    if (upstream.status >= 400) {
      const msg = upstreamMessage(upstream.text);
      const status = upstream.status >= 500 ? 500 : upstream.status;
      const cls = status === 500 ? 'InternalServerError' : status === 404 ? 'NotFoundError' : 'BadRequestError';
      return send(res, status, litellmError(`litellm.${cls}: ${cls}: Hosted_vllmException - ${msg}. Received Model Group=${model}\nAvailable Model Group Fallbacks=None`, null, null, status));
    }
    // LiteLLM answers with the alias as the model, whatever the backend calls itself.
    const parsed = JSON.parse(upstream.text) as Record<string, unknown>;
    return send(res, 200, { ...parsed, model });
  };

  const { port, close } = await serve(handle, opts.host ?? '127.0.0.1', opts.port ?? 0);
  return {
    url: `http://${urlHost(opts.host ?? '127.0.0.1')}:${port}`,
    port,
    requests,
    set(alias, behaviour) {
      aliases.set(alias, { mode: 'ok', ...aliases.get(alias), ...behaviour });
    },
    remove(alias) {
      aliases.delete(alias);
    },
    stop: async () => {
      forwards.abort();
      await close();
    },
  };
}

export interface SeatBehaviour {
  model: string;
  /** 200 healthy; 503 the engine is dead (requests then answer 500); 'hang' nothing answers. */
  health: 200 | 503 | 'hang';
  /** Added before every answer. */
  delayMs: number;
  maxModelLen: number;
  /** What the engine serves; the other endpoint answers 400 as vLLM does. Default: both. */
  kind?: 'chat' | 'embedding';
}

export interface SeatOptions extends Partial<SeatBehaviour> {
  host?: string;
  port?: number;
  model: string;
}

export interface SeatServer {
  url: string;
  port: number;
  stop(): Promise<void>;
  set(behaviour: Partial<SeatBehaviour>): void;
  requests: RecordedRequest[];
}

/** Starts a vLLM-speaking seat on loopback. */
export async function startSeat(opts: SeatOptions): Promise<SeatServer> {
  const { host = '127.0.0.1', port: wantPort = 0, ...rest } = opts;
  const b: SeatBehaviour = { health: 200, delayMs: 0, maxModelLen: 8192, ...rest };
  const requests: RecordedRequest[] = [];

  const handle: Handler = async (req, res, later) => {
    const path = new URL(req.url ?? '/', 'http://x').pathname;
    const body = req.method === 'POST' ? await readJson(req) : undefined;
    const model = typeof body?.model === 'string' ? body.model : null;
    requests.push({ method: req.method ?? 'GET', path, key: null, model, ...(body ? { body } : {}), at: Date.now() });
    if (b.health === 'hang') return;
    if (b.delayMs > 0) await later(b.delayMs);

    if (req.method === 'GET' && path === '/health') return sendText(res, b.health, '');
    if (req.method === 'GET' && path === '/v1/models') {
      return send(res, 200, {
        object: 'list',
        data: [{ id: b.model, object: 'model', created: Math.floor(Date.now() / 1000), owned_by: 'vllm', root: `/models/${b.model}`, parent: null, max_model_len: b.maxModelLen, permission: [] }],
      });
    }
    const isChat = req.method === 'POST' && path === '/v1/chat/completions';
    const isEmbed = req.method === 'POST' && path === '/v1/embeddings';
    if (!isChat && !isEmbed) return send(res, 404, { detail: 'Not Found' });
    if (b.health === 503) return send(res, 500, vllmError('EngineCore encountered an issue. See stack trace (above) for the root cause.', 'InternalServerError', 500));
    if (model !== b.model) return send(res, 404, vllmError(`The model \`${model ?? ''}\` does not exist.`, 'NotFoundError', 404));
    if (b.kind && b.kind !== (isChat ? 'chat' : 'embedding')) {
      return send(res, 400, vllmError(`The model does not support ${isChat ? 'Chat Completions' : 'Embeddings'} API`, 'BadRequestError', 400));
    }
    return send(res, 200, isChat ? chatBody(b.model, body) : embeddingBody(b.model, body));
  };

  const { port, close } = await serve(handle, host, wantPort);
  return {
    url: `http://${urlHost(host)}:${port}`,
    port,
    requests,
    set(patch) {
      Object.assign(b, patch);
    },
    stop: close,
  };
}

// ---- the drill fleet -------------------------------------------------------------------------

export interface DrillScenario {
  /** Merged over each alias's default behaviour (ok, routed to its seat, registered for every key). */
  aliases?: Record<string, Partial<AliasBehaviour>>;
  /** Merged over each seat's default (healthy, serving a model named after the seat). */
  seats?: Record<string, Partial<SeatBehaviour>>;
  /** Seats not started at all: their address refuses connections. */
  seatsDown?: string[];
}

/** Seed 000's state: `vllm-embed` OOM-crashed (/health 503, so qwen3-embed gets 500s through the
 * gateway), and `gen-large` registered for the admin key but not the shared one. */
export const SEED_000: DrillScenario = {
  seats: { 'vllm-embed': { health: 503 } },
  aliases: { 'gen-large': { keys: ['admin'] } },
};

export interface DrillOptions {
  /** Where key secrets are read from (the inventory's env names); missing ones get a random drill key. */
  env?: NodeJS.ProcessEnv;
  /** Bind port 0 everywhere (parallel tests) instead of the inventory's ports; `fleet` says where. */
  ephemeralPorts?: boolean;
}

export interface DrillFleet {
  /** The fleet as started: the input one, or with the ephemeral ports written in. */
  fleet: Fleet;
  gateway: GatewayServer;
  seats: Map<string, SeatServer>;
  /** key name → secret, as the gateway accepts them. */
  keys: Record<string, string>;
  /** The key variables (LITELLM_ADMIN_KEY=...) to hand to a probe. */
  env: Record<string, string>;
  stop(): Promise<void>;
}

/** Starts the gateway on the inventory's base URL and one vLLM stand-in per seat on its host's address. */
export async function startDrillFleet(fleet: Fleet, scenario: DrillScenario = SEED_000, opts: DrillOptions = {}): Promise<DrillFleet> {
  const inv = structuredClone(fleet.inventory);
  const base = new URL(inv.gateway.baseUrl);
  const gwHost = base.hostname.replace(/^\[|\]$/g, '');
  for (const host of [gwHost, ...[...fleet.seats.values()].map((s) => s.host.host.address)]) {
    if (!isLoopback(host)) throw new Error(`drill: refusing to bind ${host}: the drill fleet runs on 127.0.0.0/8 only`);
  }
  const source = opts.env ?? process.env;
  const keys: Record<string, string> = {};
  const env: Record<string, string> = {};
  for (const [name, k] of Object.entries(inv.gateway.keys)) {
    keys[name] = source[k.env] || `sk-drill-${name}-${randomBytes(8).toString('hex')}`;
    env[k.env] = keys[name];
  }

  const seats = new Map<string, SeatServer>();
  const started: { stop(): Promise<void> }[] = [];
  try {
    for (const [name, ref] of fleet.seats) {
      const kinds = new Set([...fleet.aliases.values()].filter((a) => a.alias.seats.includes(name)).map((a) => a.alias.kind));
      const kind = kinds.size === 1 ? [...kinds][0] : undefined;
      const address = ref.host.host.address;
      const seatInv = inv.seats[name]!;
      if (scenario.seatsDown?.includes(name)) {
        if (opts.ephemeralPorts) seatInv.port = await freePort(address);
        continue;
      }
      const seat = await startSeat({
        host: address,
        port: opts.ephemeralPorts ? 0 : ref.seat.port,
        model: name,
        maxModelLen: ref.seat.maxModelLen ?? 8192,
        ...(kind ? { kind } : {}),
        ...scenario.seats?.[name],
      });
      started.push(seat);
      seats.set(name, seat);
      seatInv.port = seat.port;
    }
    const aliases: Record<string, AliasBehaviour> = {};
    for (const [name, ref] of fleet.aliases) {
      const first = ref.seats[0];
      const seat = first ? seats.get(first.name) : undefined;
      const backend = first ? seat?.url ?? `http://${urlHost(first.host.host.address)}:${inv.seats[first.name]!.port}` : undefined;
      aliases[name] = {
        mode: 'ok',
        kind: ref.alias.kind,
        ...(backend && first ? { backend, backendModel: first.name } : {}),
        ...scenario.aliases?.[name],
      };
    }
    const gateway = await startGateway({ host: gwHost, port: opts.ephemeralPorts ? 0 : Number(base.port || 80), keys, aliases });
    started.push(gateway);
    inv.gateway.baseUrl = gateway.url;
    return {
      fleet: new Fleet(inv),
      gateway,
      seats,
      keys,
      env,
      stop: async () => {
        await Promise.all(started.map((s) => s.stop()));
      },
    };
  } catch (err) {
    await Promise.all(started.map((s) => s.stop()));
    throw err;
  }
}

// ---- shared plumbing -------------------------------------------------------------------------

type Handler = (req: IncomingMessage, res: ServerResponse, later: (ms: number) => Promise<void>) => Promise<void>;

/** Listens on host:port; close() ends everything at once: open sockets, hanging requests, pending delays. */
async function serve(handle: Handler, host: string, port: number): Promise<{ port: number; close(): Promise<void> }> {
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
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const addr = server.address();
  return {
    port: typeof addr === 'object' && addr ? addr.port : port,
    close: async () => {
      if (closed) return;
      closed = true;
      for (const t of timers) clearTimeout(t); // a delayed answer never resolves: its socket is gone
      timers.clear();
      const done = new Promise<void>((resolve) => server.close(() => resolve()));
      for (const s of sockets) s.destroy();
      await done;
    },
  };
}

/** A port on `host` that nothing listens on (bound, then released), for a seat that is down. */
async function freePort(host: string): Promise<number> {
  const s = await serve(async () => {}, host, 0);
  await s.close();
  return s.port;
}

/** JSON, as FastAPI sends it (a string body becomes a JSON string: LiteLLM's "I'm alive!"). */
function send(res: ServerResponse, status: number, body: unknown): void {
  sendText(res, status, JSON.stringify(body), 'application/json');
}

function sendText(res: ServerResponse, status: number, text: string, type = 'text/plain; charset=utf-8'): void {
  if (res.headersSent || res.destroyed) return;
  res.writeHead(status, { 'content-type': type, 'content-length': Buffer.byteLength(text) });
  res.end(text);
}

async function readJson(req: IncomingMessage): Promise<Record<string, unknown> | undefined> {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  try {
    const v: unknown = JSON.parse(Buffer.concat(chunks).toString('utf8'));
    return v && typeof v === 'object' ? (v as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

async function forward(url: string, body: unknown, signal: AbortSignal): Promise<{ status: number | null; text: string }> {
  try {
    const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body), signal });
    return { status: res.status, text: await res.text() };
  } catch {
    return { status: null, text: '' };
  }
}

function upstreamMessage(text: string): string {
  try {
    const v = JSON.parse(text) as { message?: unknown; detail?: unknown };
    if (typeof v.message === 'string') return v.message;
    if (typeof v.detail === 'string') return v.detail;
  } catch {
    // not JSON: LiteLLM passes the text through
  }
  return text.split('\n')[0] || 'empty response';
}

function litellmError(message: string, type: string | null, param: string | null, code: number): { error: Record<string, unknown> } {
  return { error: { message, type, param, code: String(code) } };
}

function internalError(model: string, cause: string): { error: Record<string, unknown> } {
  return litellmError(`litellm.InternalServerError: InternalServerError: ${cause}. Received Model Group=${model}\nAvailable Model Group Fallbacks=None`, null, null, 500);
}

function vllmError(message: string, type: string, code: number): Record<string, unknown> {
  return { object: 'error', message, type, param: null, code };
}

function chatBody(model: string, req: Record<string, unknown> | undefined): Record<string, unknown> {
  const prompt = JSON.stringify(req?.messages ?? '').length;
  const maxTokens = typeof req?.max_tokens === 'number' ? req.max_tokens : 16;
  const completion = 1; // "pong"
  return {
    id: `chatcmpl-${randomBytes(12).toString('hex')}`,
    object: 'chat.completion',
    created: Math.floor(Date.now() / 1000),
    model,
    choices: [{ index: 0, message: { role: 'assistant', content: 'pong' }, logprobs: null, finish_reason: maxTokens <= 1 ? 'length' : 'stop' }],
    usage: { prompt_tokens: Math.ceil(prompt / 4), completion_tokens: completion, total_tokens: Math.ceil(prompt / 4) + completion },
  };
}

function embeddingBody(model: string, req: Record<string, unknown> | undefined): Record<string, unknown> {
  const inputs = Array.isArray(req?.input) ? req.input : [req?.input ?? ''];
  const tokens = inputs.reduce<number>((n, i) => n + Math.max(1, Math.ceil(String(i).length / 4)), 0);
  return {
    object: 'list',
    data: inputs.map((_, index) => ({ object: 'embedding', index, embedding: Array.from({ length: 8 }, (__, j) => Number(Math.sin(index + j).toFixed(6))) })),
    model,
    usage: { prompt_tokens: tokens, total_tokens: tokens },
  };
}

function isLoopback(host: string): boolean {
  return /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(host) || host === '::1' || host === 'localhost';
}

function urlHost(host: string): string {
  return host.includes(':') ? `[${host}]` : host;
}
