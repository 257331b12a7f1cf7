// A loopback stand-in that speaks LiteLLM's proxy API closely enough for the alias probe to be tested
// against real HTTP: key checks, /v1/models per key, chat and embeddings, LiteLLM's error bodies
// (auth errors, key_model_access_denied, InternalServerError wrapping of backend failures), real
// hangs, and the hostile peers a probe must survive (a redirect elsewhere, an endless body, a huge listing).
import { randomBytes } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { assertLoopback, httpUrl } from '../net.ts';
import { CREATED, chatBody, embeddingBody, internalError, litellmError, wrappedError } from './bodies.ts';
import { endless, fillerListing, redirect } from './hostile.ts';
import { readJson, send, sendText, serve, type Handler, type RecordedRequest } from './http.ts';

/**
 * - ok / slow / hang / error: answers, late, never, or with an error body.
 * - redirect: 307 to `redirectTo` (same path and query), as a front proxy pointing elsewhere would.
 * - endless: 200 with a chunked JSON body that never ends (until the client goes or stop()).
 */
export type AliasMode = 'ok' | 'slow' | 'hang' | 'error' | 'redirect' | 'endless';

export interface AliasBehaviour {
  /** Key names this alias is registered for (what each key's /v1/models lists). Default: every key. */
  keys?: string[];
  mode: AliasMode;
  /** 'slow': answer after this many ms (default 250). 'endless': pause between chunks (default 10). */
  delayMs?: number;
  /** 'error': the HTTP status (default 500). */
  status?: number;
  /** 'error': the body to send instead of LiteLLM's (an object is sent as JSON, a string as is). */
  body?: unknown;
  /** 'redirect': the origin to send the client to (`http://127.0.0.1:PORT`); loopback only. */
  redirectTo?: string;
  /** 'endless': bytes per chunk (default 16 KiB). */
  chunkBytes?: number;
  /** Forward to this vLLM stand-in (its base URL) and map its failures the way LiteLLM does. */
  backend?: string;
  /** The model name sent to the backend (LiteLLM's litellm_params.model); default the alias. */
  backendModel?: string;
  /** Which endpoint the deployment serves; the other answers 400. Default: both. */
  kind?: 'chat' | 'embedding';
}

export type { RecordedRequest } from './http.ts';
export { fillerModel } from './hostile.ts';

/** Gateway-wide behaviour that can change while it runs. */
export interface GatewayTuning {
  /** LiteLLM answers 403 for a model the key may not use (401 in builds before late 2025). */
  accessDeniedStatus: number;
  /** Filler models every key's /v1/models lists after its aliases (a hostile listing: 130_000). */
  extraModels: number;
}

export interface GatewayOptions extends Partial<GatewayTuning> {
  host?: string;
  port?: number;
  /** key name → secret (the bearer token). */
  keys: Record<string, string>;
  aliases: Record<string, AliasBehaviour>;
  /** Keep every request in `requests` (default true; tests read them). A benchmark turns it off: kept,
   * they grow by thousands a run and the stand-in's own collection of them takes CPU from the client measured. */
  record?: boolean;
}

export interface GatewayServer {
  url: string;
  port: number;
  stop(): Promise<void>;
  /** Merge into an alias's behaviour (creating it, mode 'ok', when new). */
  set(alias: string, behaviour: Partial<AliasBehaviour>): void;
  remove(alias: string): void;
  /** Merge into the gateway-wide behaviour. */
  configure(patch: Partial<GatewayTuning>): void;
  requests: RecordedRequest[];
}

/** Starts a LiteLLM-speaking gateway on loopback. */
export async function startGateway(opts: GatewayOptions): Promise<GatewayServer> {
  const aliases = new Map<string, AliasBehaviour>();
  const setAlias = (alias: string, b: AliasBehaviour): void => {
    if (b.mode === 'redirect' && b.redirectTo === undefined) throw new Error(`drill: alias ${alias}: mode 'redirect' needs redirectTo`);
    if (b.redirectTo !== undefined) assertLoopback(new URL(b.redirectTo).hostname, 'redirect to');
    aliases.set(alias, b);
  };
  for (const [k, v] of Object.entries(opts.aliases)) setAlias(k, { ...v });
  const tuning: GatewayTuning = { accessDeniedStatus: opts.accessDeniedStatus ?? 403, extraModels: opts.extraModels ?? 0 };
  const requests: RecordedRequest[] = [];
  const record = opts.record ?? true;
  const forwards = new AbortController();
  const listing = fillerListing();

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
    if (record) requests.push({ method: req.method ?? 'GET', path: url.pathname, key: key ?? null, model, ...(body ? { body } : {}), at: Date.now() });

    if (req.method === 'GET' && path === '/health/liveliness') return send(res, 200, "I'm alive!");
    if (req.method === 'GET' && path === '/health/readiness') {
      return send(res, 200, { status: 'healthy', db: 'Not connected', cache: null, litellm_version: 'drill' });
    }
    const isModels = req.method === 'GET' && path === '/models';
    const isChat = req.method === 'POST' && path === '/chat/completions';
    const isEmbed = req.method === 'POST' && path === '/embeddings';
    if (!isModels && !isChat && !isEmbed) return send(res, 404, { detail: 'Not Found' });

    if (key === undefined) return send(res, 401, litellmError('Authentication Error, No api key passed in.', 'auth_error', 'None', 401));
    if (key === null) return send(res, 401, badKey(req.headers.authorization ?? ''));
    if (isModels) {
      const data = [...aliases.keys()].filter((a) => allowed(a, key)).map((id) => ({ id, object: 'model', created: CREATED, owned_by: 'openai' }));
      return sendText(res, 200, listing(data, tuning.extraModels), 'application/json');
    }
    if (model === null) return send(res, 400, litellmError('litellm.BadRequestError: model is required', 'invalid_request_error', 'model', 400));
    const b = aliases.get(model);
    if (!b) {
      return send(res, 400, litellmError(`/${isChat ? 'chat/completions' : 'embeddings'}: Invalid model name passed in model=${model}. Call \`/v1/models\` to view available models for your key.`, 'invalid_request_error', 'model', 400));
    }
    if (!allowed(model, key)) {
      const can = [...aliases.keys()].filter((a) => allowed(a, key)).map((a) => `'${a}'`).join(', ');
      const status = tuning.accessDeniedStatus;
      return send(res, status, litellmError(`key not allowed to access model. This key can only access models=[${can}]. Tried to access ${model}`, 'key_model_access_denied', 'model', status));
    }

    switch (b.mode) {
      case 'hang':
        return; // never answers; stop() destroys the socket
      case 'error':
        if (typeof b.body === 'string') return sendText(res, b.status ?? 500, b.body);
        return send(res, b.status ?? 500, b.body ?? internalError(model, 'OpenAIException - Connection error.'));
      case 'redirect':
        return redirect(res, `${(b.redirectTo ?? '').replace(/\/+$/, '')}${req.url ?? '/'}`);
      case 'endless':
        return endless(res, later, b.chunkBytes ?? 16 * 1024, b.delayMs ?? 10);
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
      const status = upstream.status >= 500 ? 500 : upstream.status;
      const cls = status === 500 ? 'InternalServerError' : status === 404 ? 'NotFoundError' : 'BadRequestError';
      return send(res, status, wrappedError(cls, `Hosted_vllmException - ${upstreamMessage(upstream.text)}`, model, status));
    }
    // LiteLLM answers with the alias as the model, whatever the backend calls itself.
    const parsed = JSON.parse(upstream.text) as Record<string, unknown>;
    return send(res, 200, { ...parsed, model });
  };

  const host = opts.host ?? '127.0.0.1';
  const { port, close } = await serve(handle, host, opts.port ?? 0);
  return {
    url: httpUrl(host, port),
    port,
    requests,
    set(alias, behaviour) {
      setAlias(alias, { mode: 'ok', ...aliases.get(alias), ...behaviour });
    },
    remove(alias) {
      aliases.delete(alias);
    },
    configure(patch) {
      Object.assign(tuning, patch);
    },
    stop: async () => {
      forwards.abort();
      await close();
    },
  };
}

/** LiteLLM echoes this much of a bad token, with a hash that changes every time. */
function badKey(authorization: string): ReturnType<typeof litellmError> {
  const token = authorization.replace(/^Bearer\s+/i, '');
  const masked = `${token.slice(0, 3)}...${token.slice(-4)}`;
  return litellmError(
    `Authentication Error, Invalid proxy server token passed. Received API Key = ${masked}, Key Hash (Token) =${randomBytes(32).toString('hex')}. Unable to find token in cache or \`LiteLLM_VerificationTokenTable\``,
    'auth_error',
    'None',
    401,
  );
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
