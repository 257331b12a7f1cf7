// Response and error bodies in the shapes BerriAI/litellm's proxy and vllm-project/vllm's OpenAI
// server send: a probe parses these, so they must be the real ones.
import { randomBytes } from 'node:crypto';

/** LiteLLM lists every model with this `created`. */
export const CREATED = 1677610602;

export type LitellmError = { error: { message: string; type: string | null; param: string | null; code: string } };

/** LiteLLM's ProxyException body: `code` is always a string; `type` and `param` are null for a wrapped
 * backend failure (the exception carries none) and strings for the proxy's own refusals. */
export function litellmError(message: string, type: string | null, param: string | null, code: number): LitellmError {
  return { error: { message, type, param, code: String(code) } };
}

/** A backend failure as LiteLLM's router wraps it, naming the model group it was routed for. */
export function wrappedError(cls: 'InternalServerError' | 'NotFoundError' | 'BadRequestError', cause: string, model: string, status: number): LitellmError {
  return litellmError(`litellm.${cls}: ${cls}: ${cause}. Received Model Group=${model}\nAvailable Model Group Fallbacks=None`, null, null, status);
}

export function internalError(model: string, cause: string): LitellmError {
  return wrappedError('InternalServerError', cause, model, 500);
}

/** vLLM's ErrorResponse. */
export function vllmError(message: string, type: string, code: number): Record<string, unknown> {
  return { object: 'error', message, type, param: null, code };
}

export function chatBody(model: string, req: Record<string, unknown> | undefined): Record<string, unknown> {
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

export function embeddingBody(model: string, req: Record<string, unknown> | undefined): Record<string, unknown> {
  const inputs = Array.isArray(req?.input) ? req.input : [req?.input ?? ''];
  const tokens = inputs.reduce<number>((n, i) => n + Math.max(1, Math.ceil(String(i).length / 4)), 0);
  return {
    object: 'list',
    data: inputs.map((_, index) => ({ object: 'embedding', index, embedding: Array.from({ length: 8 }, (__, j) => Number(Math.sin(index + j).toFixed(6))) })),
    model,
    usage: { prompt_tokens: tokens, total_tokens: tokens },
  };
}
