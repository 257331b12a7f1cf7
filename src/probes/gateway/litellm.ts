// The requests: a key's model listing, the smallest real request per alias and key, and a seat's
// own /health and /v1/models. Each returns what it measured as data; nothing here words a finding.
import type { AliasRef, SeatRef } from '../../inventory/fleet.ts';
import { httpRequest, type HttpInit } from '../edge/http.ts';
import { clean, cut } from '../edge/text.ts';
import { namesBackend } from './backend-named.ts';
import type { Key, KeyOutcome, Listing, SeatCheck } from './checks.ts';
import { ModelListScanner } from './listing.ts';
import type { HttpOutcome, ProbeEnv } from '../types.ts';

/** Model ids kept in a finding's data; the count is kept whole. A listing of 130,000 stays one finding. */
export const MAX_MODELS_KEPT = 500;

/** What a key's model listing may stream: read as it comes and never held (listing.ts), so it may be far
 * over the cap on a held body; 130,000 models are about 10 MB. Over this it is cut: too_large. */
export const MAX_LISTING_BYTES = 64 * 1024 * 1024;

export class Gateway {
  private readonly chatUrl: string;
  private readonly embeddingsUrl: string;
  /** Per key: the same headers for every alias (node:http copies them; nothing writes to them). */
  private readonly headers = new Map<string, Record<string, string>>();

  constructor(
    readonly base: string,
    private readonly env: ProbeEnv,
    private readonly secrets: string[],
    /** An alias the inventory knows: always kept from a listing, however long it is. */
    private readonly known: (id: string) => boolean = () => false,
    /** Every signal passed in already ends by env.timeoutMs with a TimeoutError (the plan's tasks and
     * shared measurements time themselves): the requests set no timer of their own. */
    private readonly timedSignals = false,
  ) {
    this.chatUrl = `${base}/v1/chat/completions`;
    this.embeddingsUrl = `${base}/v1/embeddings`;
  }

  private postHeaders(key: Key): Record<string, string> {
    let h = this.headers.get(key.name);
    if (!h) this.headers.set(key.name, (h = Object.freeze({ authorization: `Bearer ${key.secret ?? ''}`, 'content-type': 'application/json' })));
    return h;
  }

  request(url: string, init: HttpInit, signal: AbortSignal, sink?: { maxBytes: number; write(chunk: Uint8Array): void }): Promise<{ outcome: HttpOutcome; json: unknown }> {
    return httpRequest(url, init, {
      transport: this.env.http,
      timeoutMs: this.env.timeoutMs,
      maxBytes: this.env.maxBodyBytes,
      signal,
      signalTimed: this.timedSignals,
      now: this.env.now,
      secrets: this.secrets,
      ...(sink ? { sink } : {}),
    }).then((r) => {
      const outcome = toOutcome(r.outcome);
      // A traceback's first line rarely says whose it is: the whole body is read for the backend's words.
      if (!outcome.ok && r.text !== '' && namesBackend(r.text)) outcome.backendSaid = true;
      return { outcome, json: r.json };
    });
  }

  async list(key: Key, signal: AbortSignal): Promise<Listing> {
    if (!key.secret) return { state: 'unset', key };
    // Streamed: the ids are taken as they come and a body over 1 MiB is never held (listing.ts), so a
    // listing of any length up to MAX_LISTING_BYTES is counted whole, in the memory of the ids kept.
    const models = new Set<string>();
    let others = 0;
    let unkept = 0;
    const scanner = new ModelListScanner((id) => {
      if (models.has(id)) return;
      const known = this.known(id);
      if (!known && others >= MAX_MODELS_KEPT) {
        unkept += 1;
        return;
      }
      models.add(id);
      if (!known) others += 1;
    });
    const sink = { maxBytes: Math.max(this.env.maxBodyBytes, MAX_LISTING_BYTES), write: (chunk: Uint8Array) => scanner.write(chunk) };
    const r = await this.request(`${this.base}/v1/models`, { headers: { authorization: `Bearer ${key.secret}` } }, signal, sink);
    if (!r.outcome.ok) return { state: 'failed', key, outcome: r.outcome };
    if (!scanner.end()) return { state: 'failed', key, outcome: { ...r.outcome, ok: false, code: 'bad_answer', error: 'no model list in the answer' } };
    return { state: 'ok', key, outcome: r.outcome, models, modelCount: models.size + unkept };
  }

  async exercise(a: AliasRef, listing: Listing, paid: boolean, signal: AbortSignal): Promise<KeyOutcome> {
    const key = listing.key;
    const intended = a.forKeys === null || a.forKeys.includes(key.name);
    if (listing.state === 'unset') return { kind: 'unset', key };
    if (listing.state === 'failed') return { kind: 'listing-failed', key, outcome: listing.outcome };
    if (!listing.models.has(a.name)) return intended ? { kind: 'not-registered', key } : { kind: 'not-intended', key };
    if (a.paid && !paid) return { kind: 'listed-only', key };
    const chat = a.alias.kind === 'chat';
    // The same bytes as JSON.stringify({ model, messages: [{ role: 'user', content: 'ping' }], max_tokens: 1 })
    // (or { model, input: 'ping' }): thousands of aliases ask, only the name differs.
    const model = JSON.stringify(a.name);
    const body = chat ? `{"model":${model},"messages":[{"role":"user","content":"ping"}],"max_tokens":1}` : `{"model":${model},"input":"ping"}`;
    const r = await this.request(chat ? this.chatUrl : this.embeddingsUrl, { method: 'POST', headers: this.postHeaders(key), body }, signal);
    if (!r.outcome.ok) return { kind: 'failed', key, outcome: r.outcome };
    const answer = r.json as { choices?: unknown; data?: unknown } | undefined;
    if (!Array.isArray(chat ? answer?.choices : answer?.data)) {
      return { kind: 'failed', key, outcome: { ...r.outcome, ok: false, code: 'bad_answer', error: `not ${chat ? 'a chat.completion' : 'a list of embeddings'}` } };
    }
    return { kind: 'ok', key, outcome: r.outcome };
  }

  async checkSeat(seat: SeatRef, signal: AbortSignal): Promise<SeatCheck> {
    const health = (await this.request(`${seat.url}/health`, {}, signal)).outcome;
    if (health.httpStatus === null) return { seat, health };
    const r = await this.request(`${seat.url}/v1/models`, {}, signal);
    const data = (r.json as { data?: unknown } | undefined)?.data;
    if (!r.outcome.ok || !Array.isArray(data)) {
      return { seat, health, modelsOutcome: r.outcome.ok ? { ...r.outcome, ok: false, code: 'bad_answer', error: 'no model list in the answer' } : r.outcome };
    }
    const models: { id: string; maxModelLen: number | null }[] = [];
    for (const m of data.slice(0, MAX_MODELS_KEPT)) {
      const o = m as { id?: unknown; max_model_len?: unknown } | null;
      if (o && typeof o.id === 'string') models.push({ id: cut(clean(o.id), 120), maxModelLen: typeof o.max_model_len === 'number' ? o.max_model_len : null });
    }
    return { seat, health, models, modelsOutcome: r.outcome };
  }
}

function toOutcome(o: { ok: boolean; httpStatus: number | null; code: string; error?: string; location?: string; latencyMs: number }): HttpOutcome {
  return {
    ok: o.ok,
    httpStatus: o.httpStatus,
    code: o.code,
    ...(o.error ? { error: o.error } : {}),
    ...(o.location ? { location: o.location } : {}),
    latencyMs: o.latencyMs,
  };
}

export function timeoutOutcome(ms: number): HttpOutcome {
  return { ok: false, httpStatus: null, code: 'timeout', error: 'timeout', latencyMs: ms };
}
