// A loopback stand-in for one vLLM OpenAI server (a seat): /health, /v1/models with max_model_len,
// chat and embeddings, vLLM's error objects, a dead engine, and an engine whose /health still says
// 200 while every real request fails.
import { httpUrl } from '../net.ts';
import { chatBody, embeddingBody, vllmError } from './bodies.ts';
import { readJson, send, sendText, serve, type Handler, type RecordedRequest } from './http.ts';

/**
 * - ok: requests are answered (unless `health` says the engine is dead).
 * - healthy-but-failing: /health and /v1/models answer 200, every completion or embedding answers
 *   500 with `failure` (by default a CUDA OOM): the failure a /health check alone never sees.
 */
export type SeatMode = 'ok' | 'healthy-but-failing';

/** What a seat that OOMs on every request says (PyTorch's message, as vLLM passes it on). */
export const CUDA_OOM = 'CUDA out of memory. Tried to allocate 2.00 GiB. GPU 0 has a total capacity of 95.59 GiB of which 1.23 GiB is free';

export interface SeatBehaviour {
  model: string;
  /** 200 healthy; 503 the engine is dead (requests then answer 500); 'hang' nothing answers. */
  health: 200 | 503 | 'hang';
  /** Added before every answer. */
  delayMs: number;
  maxModelLen: number;
  /** What the engine serves; the other endpoint answers 400 as vLLM does. Default: both. */
  kind?: 'chat' | 'embedding';
  /** Default 'ok'. */
  mode?: SeatMode;
  /** 'healthy-but-failing': the error message of every request (default CUDA_OOM). */
  failure?: string;
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
    // The request got past validation into the engine, which fails it: /health never asks the engine to work.
    if (b.mode === 'healthy-but-failing') return send(res, 500, vllmError(b.failure ?? CUDA_OOM, 'InternalServerError', 500));
    return send(res, 200, isChat ? chatBody(b.model, body) : embeddingBody(b.model, body));
  };

  const { port, close } = await serve(handle, host, wantPort);
  return {
    url: httpUrl(host, port),
    port,
    requests,
    set(patch) {
      Object.assign(b, patch);
    },
    stop: close,
  };
}
