// The gateway alias probe: what each key can see, the smallest real request per alias and key,
// and each backend seat asked directly, so "gateway fine, backend down" and "gateway down" read
// differently (seed 000 blamed a gateway restart for a backend OOM).
import type { AliasRef, Fleet, SeatRef } from '../inventory/fleet.ts';
import type { Finding, FindingStatus, HttpOutcome, KeyResult, ProbeEnv, ProbeScope, ProbeTask } from './types.ts';

/** The runner's hard stop comes this long after the task's own request timeout, so the task's own
 * finding (with the backend attribution) wins over the bare timeout one. */
const GRACE_MS = 250;
const MESSAGE_MAX = 160;
const STALE_SOCKET = new Set(['UND_ERR_SOCKET', 'ECONNRESET', 'EPIPE']);

interface Key {
  name: string;
  envVar: string;
  secret: string | undefined;
}

type Listing =
  | { state: 'unset'; key: Key }
  | { state: 'ok'; key: Key; outcome: HttpOutcome; models: string[] }
  /** `why` for the key's own finding; `short` for an alias's detail ("gateway unreachable (ECONNREFUSED)"). */
  | { state: 'failed'; key: Key; outcome: HttpOutcome; why: string; short: string };

interface SeatCheck {
  seat: SeatRef;
  health: HttpOutcome;
  models?: { id: string; maxModelLen: number | null }[];
  modelsOutcome?: HttpOutcome;
}

type KeyOutcome =
  | { kind: 'unset'; key: Key }
  | { kind: 'listing-failed'; key: Key; listing: Extract<Listing, { state: 'failed' }> }
  | { kind: 'not-registered'; key: Key }
  | { kind: 'not-called'; key: Key }
  | { kind: 'ok'; key: Key; outcome: HttpOutcome }
  | { kind: 'failed'; key: Key; outcome: HttpOutcome; why: string };

export function planGatewayTasks(fleet: Fleet, scope: ProbeScope, env: ProbeEnv): ProbeTask[] {
  const base = fleet.inventory.gateway.baseUrl;
  const keys: Key[] = Object.entries(fleet.inventory.gateway.keys).map(([name, k]) => ({ name, envVar: k.env, secret: env.env[k.env] || undefined }));
  const secrets = keys.flatMap((k) => (k.secret ? [k.secret] : []));
  const http = new Http(env, secrets);
  const timeoutMs = env.timeoutMs + GRACE_MS;

  // One listing per key and one check per seat for the whole run, shared by every task that needs it.
  const listings = new Map(keys.map((k) => [k.name, shared((signal) => listKey(http, base, k, signal), env.timeoutMs)]));
  const seatChecks = new Map([...fleet.seats.values()].map((s) => [s.name, shared((signal) => checkSeat(http, s, signal), env.timeoutMs)]));
  const listing = (k: Key, signal: AbortSignal): Promise<Listing> =>
    listings.get(k.name)!(signal).then((l) => l ?? listingFailed(base, k, timeoutOutcome(env.timeoutMs), env.timeoutMs));
  const seatCheck = (s: SeatRef, signal: AbortSignal): Promise<SeatCheck> =>
    seatChecks.get(s.name)!(signal).then((c) => c ?? { seat: s, health: timeoutOutcome(env.timeoutMs) });

  const keyTasks: ProbeTask[] = keys.map((k) => ({
    id: `gateway:${k.name}`,
    group: 'aliases',
    probe: 'gateway',
    target: `gateway (${k.name} key)`,
    timeoutMs,
    run: async (signal) => http.scrub([keyFinding(base, await listing(k, signal))]),
    onTimeout: (ms) => [
      { probe: 'gateway', target: `gateway (${k.name} key)`, status: 'down', detail: `no answer from ${base}/v1/models within ${ms} ms`, measuredBy: `GET ${base}/v1/models (${k.name} key)`, latencyMs: null },
    ],
  }));

  const aliasTasks: ProbeTask[] = [...fleet.aliases.values()].map((a) => ({
    id: `alias:${a.name}`,
    group: 'aliases',
    probe: 'alias',
    target: a.name,
    timeoutMs,
    run: async (runner) => {
      const { signal, clear } = withTimeout(runner, env.timeoutMs);
      try {
        const seats = Promise.all(a.seats.map((s) => seatCheck(s, signal)));
        const outcomes = await Promise.all(keys.map(async (k) => exercise(http, base, a, await listing(k, signal), env, signal)));
        return http.scrub([aliasFinding(base, a, outcomes, await seats, env)]);
      } finally {
        clear();
      }
    },
    onTimeout: (ms) => [
      {
        probe: 'alias',
        target: a.name,
        status: 'down',
        detail: `no answer through the gateway within ${ms} ms`,
        measuredBy: requestLine(base, a, keys.map((k) => k.name)),
        latencyMs: null,
        data: { kind: 'alias', aliasKind: a.alias.kind, paid: a.paid, routedTo: routedTo(a), keys: keys.map((k) => ({ key: k.name, registered: null })) },
      },
    ],
  }));

  // Aliases a key lists that the inventory does not know: only known after the listings answer.
  const extrasTask: ProbeTask = {
    id: 'gateway:outside-inventory',
    group: 'aliases',
    probe: 'gateway',
    target: 'gateway (aliases outside the inventory)',
    timeoutMs,
    run: async (signal) => {
      const all = await Promise.all(keys.map((k) => listing(k, signal)));
      const seen = new Map<string, string[]>();
      for (const l of all) if (l.state === 'ok') for (const m of l.models) if (!fleet.aliases.has(m)) seen.set(m, [...(seen.get(m) ?? []), l.key.name]);
      return http.scrub([...seen].map(([alias, by]): Finding => ({
        probe: 'alias',
        target: alias,
        status: 'unknown',
        detail: `listed by the gateway but not in the inventory; not exercised (listed for ${by.join(', ')})`,
        measuredBy: `GET ${base}/v1/models (${keyList(by)})`,
        latencyMs: null,
        data: { kind: 'alias', aliasKind: 'unknown', paid: false, routedTo: [], keys: keys.map((k) => ({ key: k.name, registered: by.includes(k.name) })) },
      })));
    },
    // The key tasks already report a listing that did not answer; nothing to add here.
    onTimeout: () => [],
  };

  const seatTasks: ProbeTask[] = scope.sites.flatMap((site) =>
    fleet.seatsAt(site).map((s): ProbeTask => ({
      id: `seat:${s.name}`,
      group: 'aliases',
      probe: 'seat',
      target: seatName(s),
      site,
      host: s.host.name,
      timeoutMs,
      run: async (signal) => http.scrub([seatFinding(await seatCheck(s, signal), env.timeoutMs)]),
      onTimeout: (ms) => [seatFinding({ seat: s, health: timeoutOutcome(ms) }, ms)],
    })),
  );

  return [...keyTasks, ...aliasTasks, extrasTask, ...seatTasks];
}

// ---- measuring -------------------------------------------------------------------------------

async function listKey(http: Http, base: string, key: Key, signal: AbortSignal): Promise<Listing> {
  if (!key.secret) return { state: 'unset', key };
  const r = await http.request(`${base}/v1/models`, { headers: { authorization: `Bearer ${key.secret}` } }, signal);
  if (!r.outcome.ok) return listingFailed(base, key, r.outcome, http.timeoutMs);
  const data = (r.json as { data?: unknown } | undefined)?.data;
  if (!Array.isArray(data)) {
    const why = `HTTP ${r.outcome.httpStatus} without a model list`;
    return { state: 'failed', key, outcome: { ...r.outcome, ok: false, error: 'no model list in the answer' }, why, short: `listing answered ${why}` };
  }
  const models = data.flatMap((m) => (m && typeof (m as { id?: unknown }).id === 'string' ? [(m as { id: string }).id] : []));
  return { state: 'ok', key, outcome: r.outcome, models };
}

function listingFailed(base: string, key: Key, o: HttpOutcome, timeoutMs: number): Extract<Listing, { state: 'failed' }> {
  const f = (why: string, short: string): Extract<Listing, { state: 'failed' }> => ({ state: 'failed', key, outcome: o, why, short });
  const msg = o.error ? `: ${o.error}` : '';
  if (o.httpStatus === 401 || o.httpStatus === 403) return f(`key rejected (HTTP ${o.httpStatus}${msg})`, `key rejected (HTTP ${o.httpStatus})`);
  if (o.httpStatus !== null) return f(`HTTP ${o.httpStatus}${msg}`, `gateway listing failed (HTTP ${o.httpStatus})`);
  if (o.error === 'timeout') return f(`no answer from ${base}/v1/models within ${timeoutMs} ms`, `gateway listing gave no answer within ${timeoutMs} ms`);
  return f(`gateway unreachable at ${base}: ${o.error ?? 'no answer'}`, `gateway unreachable (${o.error ?? 'no answer'})`);
}

async function exercise(http: Http, base: string, a: AliasRef, listing: Listing, env: ProbeEnv, signal: AbortSignal): Promise<KeyOutcome> {
  const key = listing.key;
  if (listing.state === 'unset') return { kind: 'unset', key };
  if (listing.state === 'failed') return { kind: 'listing-failed', key, listing };
  if (!listing.models.includes(a.name)) return { kind: 'not-registered', key };
  if (a.paid && !env.paid) return { kind: 'not-called', key };
  const chat = a.alias.kind === 'chat';
  const body = chat ? { model: a.name, messages: [{ role: 'user', content: 'ping' }], max_tokens: 1 } : { model: a.name, input: 'ping' };
  const r = await http.request(
    `${base}/v1/${chat ? 'chat/completions' : 'embeddings'}`,
    { method: 'POST', headers: { authorization: `Bearer ${key.secret ?? ''}`, 'content-type': 'application/json' }, body: JSON.stringify(body) },
    signal,
  );
  if (!r.outcome.ok) return { kind: 'failed', key, outcome: r.outcome, why: requestWhy(r.outcome, http.timeoutMs) };
  const answer = r.json as { choices?: unknown; data?: unknown } | undefined;
  if (!Array.isArray(chat ? answer?.choices : answer?.data)) {
    return { kind: 'failed', key, outcome: { ...r.outcome, ok: false, error: 'not an OpenAI-shaped answer' }, why: `HTTP ${r.outcome.httpStatus} through the gateway but not a ${chat ? 'chat.completion' : 'list of embeddings'}` };
  }
  return { kind: 'ok', key, outcome: r.outcome };
}

function requestWhy(o: HttpOutcome, timeoutMs: number): string {
  if (o.httpStatus !== null) return `HTTP ${o.httpStatus} through the gateway${o.error ? `: ${o.error}` : ''}`;
  if (o.error === 'timeout') return `no answer through the gateway within ${timeoutMs} ms`;
  return `${o.error ?? 'no answer'} through the gateway`;
}

async function checkSeat(http: Http, seat: SeatRef, signal: AbortSignal): Promise<SeatCheck> {
  const health = (await http.request(`${seat.url}/health`, {}, signal)).outcome;
  if (health.httpStatus === null) return { seat, health };
  const r = await http.request(`${seat.url}/v1/models`, {}, signal);
  const data = (r.json as { data?: unknown } | undefined)?.data;
  if (!r.outcome.ok || !Array.isArray(data)) return { seat, health, modelsOutcome: r.outcome.ok ? { ...r.outcome, ok: false, error: 'no model list in the answer' } : r.outcome };
  const models = data.flatMap((m: unknown) => {
    const o = m as { id?: unknown; max_model_len?: unknown } | null;
    return o && typeof o.id === 'string' ? [{ id: o.id, maxModelLen: typeof o.max_model_len === 'number' ? o.max_model_len : null }] : [];
  });
  return { seat, health, models, modelsOutcome: r.outcome };
}

// ---- findings --------------------------------------------------------------------------------

function keyFinding(base: string, l: Listing): Finding {
  const target = `gateway (${l.key.name} key)`;
  if (l.state === 'unset') {
    return { probe: 'gateway', target, status: 'unknown', detail: `${l.key.envVar} is not set`, measuredBy: `inferred: ${l.key.envVar} is not set in the environment`, latencyMs: null };
  }
  const measuredBy = `GET ${base}/v1/models (${l.key.name} key)`;
  if (l.state === 'failed') return { probe: 'gateway', target, status: 'down', detail: l.why, measuredBy, latencyMs: l.outcome.latencyMs };
  return {
    probe: 'gateway',
    target,
    status: l.models.length > 0 ? 'up' : 'degraded',
    detail: l.models.length > 0 ? `${l.models.length} model${l.models.length === 1 ? '' : 's'} listed` : 'key accepted but lists no models',
    measuredBy,
    latencyMs: l.outcome.latencyMs,
    data: { kind: 'gateway', key: l.key.name, models: l.models },
  };
}

function aliasFinding(base: string, a: AliasRef, outcomes: KeyOutcome[], seats: SeatCheck[], env: ProbeEnv): Finding {
  const measured = outcomes.filter((o) => o.kind !== 'unset');
  const works = measured.filter((o) => o.kind === 'ok' || o.kind === 'not-called');
  const status: FindingStatus = measured.length === 0 ? 'unknown' : works.length === measured.length ? 'up' : works.length === 0 ? 'down' : 'degraded';
  const names = (kind: KeyOutcome['kind']): string[] => outcomes.filter((o) => o.kind === kind).map((o) => o.key.name);
  const parts: string[] = [];

  const ok = names('ok');
  const notCalled = names('not-called');
  const notRegistered = names('not-registered');
  const backend = a.alias.backend ? `${a.paid ? 'paid ' : ''}backend ${a.alias.backend.name}` : '';
  if (ok.length > 0) parts.push(`${a.alias.kind} ok for ${ok.join(', ')}${a.paid ? ` (${backend}, called with --paid)` : ''}`);
  if (notCalled.length > 0) parts.push(`listed for ${notCalled.join(', ')}; not called (${backend}; --paid to exercise)`);
  if (notRegistered.length > 0) {
    const registered = outcomes.filter((o) => o.kind !== 'not-registered' && o.kind !== 'unset' && o.kind !== 'listing-failed').map((o) => o.key.name);
    parts.push(registered.length > 0 ? `registered for ${registered.join(', ')}, not for ${notRegistered.join(', ')}` : `not registered for ${notRegistered.join(', ')}: the gateway does not list it`);
  }
  const failures = outcomes.flatMap((o) => (o.kind === 'failed' ? [o] : []));
  for (const [why, keys] of groupBy(failures, (o) => o.why)) parts.push(withKeys(why, keys, outcomes.length));
  const listingFailures = outcomes.flatMap((o) => (o.kind === 'listing-failed' ? [o] : []));
  for (const [short, keys] of groupBy(listingFailures, (o) => o.listing.short)) parts.push(withKeys(short, keys, outcomes.length));
  for (const o of outcomes) if (o.kind === 'unset') parts.push(`${o.key.name} not measured (${o.key.envVar} is not set)`);

  let detail = parts.join('; ');
  // Only a failure on the gateway's path to a backend (5xx, refused, reset, timeout) says anything
  // about the backend; a 4xx is the gateway's own configuration.
  const pathFailed = (o: HttpOutcome): boolean => o.httpStatus === null || o.httpStatus >= 500;
  const attribution = attribute(
    failures.some((o) => pathFailed(o.outcome)),
    listingFailures.some((o) => pathFailed(o.listing.outcome)),
    seats,
    env.timeoutMs,
    outcomes.some((o) => o.kind === 'ok' || o.kind === 'not-called' || o.kind === 'not-registered'),
  );
  if (attribution) detail += attribution;

  const requested = outcomes.filter((o) => o.kind === 'ok' || o.kind === 'failed').map((o) => o.key.name);
  const measuredBy = [
    requested.length > 0
      ? requestLine(base, a, requested)
      : measured.length > 0
        ? `GET ${base}/v1/models (${keyList(measured.map((o) => o.key.name))})`
        : 'inferred: no gateway key is set',
    ...seats.map((s) => `GET ${s.seat.url}/health`),
  ].join('; ');
  const latencies = outcomes.flatMap((o) => (o.kind === 'ok' || o.kind === 'failed' ? [o.outcome.latencyMs] : []));
  return {
    probe: 'alias',
    target: a.name,
    status,
    detail: detail || 'no key measured',
    measuredBy,
    latencyMs: latencies.length > 0 ? Math.max(...latencies) : null,
    data: { kind: 'alias', aliasKind: a.alias.kind, paid: a.paid, routedTo: routedTo(a), keys: outcomes.map(keyResult) },
  };
}

/** Says whether a failure through the gateway is the gateway's or the backend's, from the seats' own answers. */
function attribute(requestFailed: boolean, gatewayUnreachable: boolean, seats: SeatCheck[], timeoutMs: number, gatewayAnswered: boolean): string {
  if (seats.length === 0 || (!requestFailed && !gatewayUnreachable)) {
    const bad = seats.filter((s) => !s.health.ok);
    const gateway = gatewayAnswered ? 'the gateway still answers' : 'the gateway was not measured';
    return bad.length > 0 && !requestFailed ? `; backend ${bad.map((s) => seatState(s, timeoutMs)).join(', ')} (${gateway})` : '';
  }
  const bad = seats.filter((s) => !s.health.ok);
  const good = seats.filter((s) => s.health.ok);
  const goodText = good.map((s) => seatName(s.seat)).join(', ');
  if (requestFailed) {
    if (good.length === 0) return `; gateway OK, backend ${bad.map((s) => seatState(s, timeoutMs)).join(', ')} → the backend is down, not the gateway`;
    if (bad.length === 0) return `; backend ${goodText} answers /health 200 → gateway-side fault`;
    return `; backend ${bad.map((s) => seatState(s, timeoutMs)).join(', ')}, but ${goodText} answers /health 200`;
  }
  if (bad.length === 0) return good.length === 1 ? ` — the backend answers directly (${goodText} /health 200)` : ` — the backends answer directly (${goodText} /health 200)`;
  return `; backend ${bad.map((s) => seatState(s, timeoutMs)).join(', ')} too`;
}

function seatState(s: SeatCheck, timeoutMs: number): string {
  const h = s.health;
  if (h.httpStatus !== null) return `${seatName(s.seat)} /health ${h.httpStatus}`;
  return `${seatName(s.seat)} ${h.error === 'timeout' ? `gave no /health answer within ${timeoutMs} ms` : `unreachable (${h.error ?? 'no answer'})`}`;
}

function seatFinding(c: SeatCheck, timeoutMs: number): Finding {
  const s = c.seat;
  const h = c.health;
  let status: FindingStatus;
  let detail: string;
  if (h.httpStatus === null) {
    status = 'down';
    detail = h.error === 'timeout' ? `no answer from ${s.url}/health within ${timeoutMs} ms` : `unreachable at ${s.url}: ${h.error ?? 'no answer'}`;
  } else if (!h.ok) {
    status = 'down';
    detail = `/health ${h.httpStatus}${h.httpStatus === 503 ? ' → the engine is dead or still starting' : h.error ? `: ${h.error}` : ''}`;
  } else if (!c.models) {
    status = 'degraded';
    const m = c.modelsOutcome;
    detail = `/health 200 but /v1/models ${m?.httpStatus !== null && m?.httpStatus !== undefined ? `answered HTTP ${m.httpStatus}` : `failed (${m?.error ?? 'no answer'})`}`;
  } else {
    status = 'up';
    const served = c.models.map((m) => `${m.id}${m.maxModelLen !== null ? ` (max_model_len ${m.maxModelLen}${s.seat.maxModelLen !== undefined && m.maxModelLen !== s.seat.maxModelLen ? `, inventory says ${s.seat.maxModelLen}` : ''})` : ''}`);
    detail = `/health 200; serves ${served.join(', ') || 'no model'}`;
  }
  if (c.models && !h.ok) detail += `; /v1/models still lists ${c.models.map((m) => m.id).join(', ')}`;
  return {
    probe: 'seat',
    target: seatName(s),
    status,
    detail,
    measuredBy: `GET ${s.url}/health${h.httpStatus !== null ? `, GET ${s.url}/v1/models` : ''}`,
    latencyMs: h.httpStatus === null && h.error === 'timeout' ? null : h.latencyMs,
    site: s.host.site,
    host: s.host.name,
    data: { kind: 'seat', url: s.url, health: h, ...(c.models ? { models: c.models.map((m) => m.id) } : {}) },
  };
}

function keyResult(o: KeyOutcome): KeyResult {
  switch (o.kind) {
    case 'unset':
      return { key: o.key.name, registered: null, note: `${o.key.envVar} is not set` };
    case 'listing-failed':
      return { key: o.key.name, registered: null, note: `listing failed: ${o.listing.why}` };
    case 'not-registered':
      return { key: o.key.name, registered: false, note: 'not registered for this key' };
    case 'not-called':
      return { key: o.key.name, registered: true, note: 'paid: not called without --paid' };
    case 'ok':
      return { key: o.key.name, registered: true, request: o.outcome };
    case 'failed':
      return { key: o.key.name, registered: true, request: o.outcome, note: o.why };
  }
}

function requestLine(base: string, a: AliasRef, keys: string[]): string {
  return a.alias.kind === 'chat'
    ? `POST ${base}/v1/chat/completions max_tokens=1 (${keyList(keys)})`
    : `POST ${base}/v1/embeddings input="ping" (${keyList(keys)})`;
}

function keyList(keys: string[]): string {
  return `${keys.join(', ')} key${keys.length === 1 ? '' : 's'}`;
}

function withKeys(why: string, keys: { key: Key }[], total: number): string {
  return keys.length === total && total > 1 ? why : `${why} for ${keys.map((k) => k.key.name).join(', ')}`;
}

function routedTo(a: AliasRef): string[] {
  if (a.seats.length > 0) return a.seats.map(seatName);
  return a.alias.backend ? [`${a.paid ? 'paid' : 'backend'}:${a.alias.backend.name}`] : [];
}

function seatName(s: SeatRef): string {
  return `${s.name}@${s.host.name}`;
}

function groupBy<T>(items: T[], by: (t: T) => string): Map<string, T[]> {
  const out = new Map<string, T[]>();
  for (const i of items) out.set(by(i), [...(out.get(by(i)) ?? []), i]);
  return out;
}

function timeoutOutcome(ms: number): HttpOutcome {
  return { ok: false, httpStatus: null, error: 'timeout', latencyMs: ms };
}

// ---- HTTP with timeouts and without secrets ---------------------------------------------------

class Http {
  readonly timeoutMs: number;
  constructor(
    private readonly env: ProbeEnv,
    private readonly secrets: string[],
  ) {
    this.timeoutMs = env.timeoutMs;
  }

  /** Never throws: a refused connection, a reset or a timeout comes back as an outcome. */
  async request(url: string, init: RequestInit, outer: AbortSignal): Promise<{ outcome: HttpOutcome; json: unknown }> {
    const { signal, clear } = withTimeout(outer, this.timeoutMs);
    const t0 = this.env.now();
    const latency = (): number => Math.round(this.env.now() - t0);
    try {
      for (let attempt = 0; ; attempt++) {
        try {
          const res = await this.env.fetch(url, { ...init, signal });
          const text = await res.text();
          let json: unknown;
          try {
            json = JSON.parse(text);
          } catch {
            json = undefined;
          }
          const outcome: HttpOutcome = { ok: res.ok, httpStatus: res.status, latencyMs: latency() };
          if (!res.ok) {
            const error = this.redact(errorLine(json, text));
            if (error) outcome.error = error;
          }
          return { outcome, json };
        } catch (err) {
          // AbortSignal.any keeps the first reason: a TimeoutError from any timeout in the chain, else the runner's stop.
          const reason: unknown = signal.reason;
          const code = signal.aborted ? (reason instanceof Error && reason.name === 'TimeoutError' ? 'timeout' : 'stopped') : transportCode(err);
          // A kept-alive connection the server closed (a gateway restart) fails once before any byte is
          // answered; a GET is safe to send again on a fresh one.
          if (attempt === 0 && !signal.aborted && STALE_SOCKET.has(code) && (init.method ?? 'GET') === 'GET') continue;
          return { outcome: { ok: false, httpStatus: null, error: this.redact(code), latencyMs: latency() }, json: undefined };
        }
      }
    } finally {
      clear();
    }
  }

  /** LiteLLM echoes part of a rejected token; a misbehaving gateway might echo all of it. */
  redact(text: string): string {
    let out = text.replace(/Received API Key = [^,]*,?\s*/g, '').replace(/Key Hash \(Token\) =\s*\S+\s*/g, '');
    for (const s of this.secrets) out = out.split(s).join('[redacted]');
    return out;
  }

  /** The last line of defence: no string in a finding carries a key's value. */
  scrub(findings: Finding[]): Finding[] {
    const walk = (v: unknown): unknown => {
      if (typeof v === 'string') return this.redact(v);
      if (Array.isArray(v)) return v.map(walk);
      if (v && typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, walk(x)]));
      return v;
    };
    return findings.map((f) => walk(f) as Finding);
  }
}

/** The first line of an error body: LiteLLM's `error.message`, vLLM's `message`, FastAPI's `detail`,
 * or the text; LiteLLM's doubled class name and its "Received Model Group=" tail are dropped. */
function errorLine(json: unknown, text: string): string {
  const j = json as { error?: { message?: unknown } | string; message?: unknown; detail?: unknown } | undefined;
  const msg =
    typeof j?.error === 'object' && typeof j.error.message === 'string'
      ? j.error.message
      : typeof j?.error === 'string'
        ? j.error
        : typeof j?.message === 'string'
          ? j.message
          : typeof j?.detail === 'string'
            ? j.detail
            : text;
  const line = (msg.split('\n').find((l) => l.trim() !== '') ?? '')
    .trim()
    .replace(/^(litellm\.)?(\w+): \2: /, '$1$2: ')
    .replace(/\.? Received Model Group=\S*$/, '');
  return line.length > MESSAGE_MAX ? `${line.slice(0, MESSAGE_MAX - 1)}…` : line;
}

function transportCode(err: unknown): string {
  const cause = (err as { cause?: { code?: unknown; errors?: { code?: unknown }[]; message?: unknown } } | null)?.cause;
  const code = cause?.code ?? cause?.errors?.[0]?.code ?? (err as { code?: unknown } | null)?.code;
  if (typeof code === 'string') return code;
  const message = typeof cause?.message === 'string' ? cause.message : err instanceof Error ? err.message : String(err);
  return message.split('\n')[0] ?? 'error';
}

/** A promise shared by every caller in a run, started on first use, with its own timeout; its work is
 * aborted only when every caller still waiting on it has given up. A caller that gives up gets null. */
function shared<T>(start: (signal: AbortSignal) => Promise<T>, timeoutMs: number): (signal: AbortSignal) => Promise<T | null> {
  let current: { promise: Promise<T>; ctl: AbortController; waiting: number; settled: boolean } | null = null;
  return (signal) => {
    if (signal.aborted) return Promise.resolve(null);
    if (!current || (current.ctl.signal.aborted && !current.settled)) {
      const ctl = new AbortController();
      const { signal: own, clear } = withTimeout(ctl.signal, timeoutMs);
      const entry = { promise: start(own), ctl, waiting: 0, settled: false };
      const settle = (): void => {
        entry.settled = true;
        clear();
      };
      entry.promise.then(settle, settle);
      current = entry;
    }
    const mine = current;
    mine.waiting += 1;
    return new Promise<T | null>((resolve, reject) => {
      let done = false;
      const leave = (): boolean => {
        if (done) return false;
        done = true;
        mine.waiting -= 1;
        signal.removeEventListener('abort', onAbort);
        return true;
      };
      const onAbort = (): void => {
        if (!leave()) return;
        if (mine.waiting === 0 && !mine.settled) mine.ctl.abort();
        resolve(null);
      };
      signal.addEventListener('abort', onAbort, { once: true });
      mine.promise.then(
        (v) => {
          if (leave()) resolve(v);
        },
        (err: unknown) => {
          if (leave()) reject(err instanceof Error ? err : new Error(String(err)));
        },
      );
    });
  };
}

/** `outer`, or a TimeoutError after `ms`. A plain timer, not AbortSignal.timeout(): inside
 * AbortSignal.any that one is held only weakly and can be collected before it fires (seen under load). */
function withTimeout(outer: AbortSignal, ms: number): { signal: AbortSignal; clear(): void } {
  const ctl = new AbortController();
  const timer = setTimeout(() => ctl.abort(new DOMException(`no answer within ${ms} ms`, 'TimeoutError')), ms);
  return { signal: AbortSignal.any([outer, ctl.signal]), clear: () => clearTimeout(timer) };
}
