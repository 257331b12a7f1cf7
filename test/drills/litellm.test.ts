// The stand-ins must answer the way LiteLLM and vLLM do, or the probe's tests prove nothing.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { parseInventory } from '../../src/inventory/load.ts';
import { Fleet } from '../../src/inventory/fleet.ts';
import { startDrillFleet, startGateway, startSeat } from '../../drills/litellm.ts';
import { errorOf, get, post } from './fetch.ts';

const KEYS = { admin: 'sk-admin-0123456789abcdef', shared: 'sk-shared-fedcba9876543210' };

const LIMIT = { timeout: 15_000 };

test('gateway: /v1/models lists what each key is registered for, in LiteLLM’s shape', LIMIT, async (t) => {
  const gw = await startGateway({ keys: KEYS, aliases: { gen: { mode: 'ok' }, 'gen-large': { mode: 'ok', keys: ['admin'] } } });
  t.after(() => gw.stop());
  const admin = await get(`${gw.url}/v1/models`, KEYS.admin);
  assert.equal(admin.status, 200);
  assert.deepEqual(admin.body, {
    data: [
      { id: 'gen', object: 'model', created: 1677610602, owned_by: 'openai' },
      { id: 'gen-large', object: 'model', created: 1677610602, owned_by: 'openai' },
    ],
    object: 'list',
  });
  const shared = await get(`${gw.url}/v1/models`, KEYS.shared);
  assert.deepEqual((shared.body as { data: { id: string }[] }).data.map((m) => m.id), ['gen']);
  assert.deepEqual(gw.requests.map((r) => r.key), ['admin', 'shared'], 'requests are recorded by key name');
});

test('gateway: a missing or bad key gets 401 with LiteLLM’s auth_error body, echoing only a masked token', LIMIT, async (t) => {
  const gw = await startGateway({ keys: KEYS, aliases: { gen: { mode: 'ok' } } });
  t.after(() => gw.stop());
  const none = await get(`${gw.url}/v1/models`);
  assert.equal(none.status, 401);
  assert.deepEqual(errorOf(none.body), { message: 'Authentication Error, No api key passed in.', type: 'auth_error', param: 'None', code: '401' });
  const bad = await get(`${gw.url}/v1/models`, 'sk-not-a-key-9999');
  assert.equal(bad.status, 401);
  const e = errorOf(bad.body);
  assert.match(e.message, /^Authentication Error, Invalid proxy server token passed\. Received API Key = sk-\.\.\.9999, Key Hash \(Token\) =[0-9a-f]{64}\./);
  assert.ok(!e.message.includes('sk-not-a-key-9999'));
  assert.equal(e.code, '401');
});

test('gateway: chat and embeddings answer OpenAI-shaped bodies; a key not allowed gets key_model_access_denied', LIMIT, async (t) => {
  const gw = await startGateway({ keys: KEYS, aliases: { gen: { mode: 'ok', kind: 'chat' }, embed: { mode: 'ok', kind: 'embedding' }, 'gen-large': { mode: 'ok', keys: ['admin'] } } });
  t.after(() => gw.stop());
  const chat = await post(`${gw.url}/v1/chat/completions`, KEYS.shared, { model: 'gen', messages: [{ role: 'user', content: 'ping' }], max_tokens: 1 });
  assert.equal(chat.status, 200);
  assert.equal(chat.body.object, 'chat.completion');
  assert.equal(chat.body.model, 'gen');
  assert.equal((chat.body.choices as { finish_reason: string }[])[0]?.finish_reason, 'length');
  assert.equal((chat.body.usage as { completion_tokens: number }).completion_tokens, 1);
  const emb = await post(`${gw.url}/v1/embeddings`, KEYS.shared, { model: 'embed', input: 'ping' });
  assert.equal(emb.status, 200);
  assert.equal(emb.body.object, 'list');
  assert.equal((emb.body.data as { object: string; embedding: number[] }[])[0]?.object, 'embedding');
  const wrongEndpoint = await post(`${gw.url}/v1/chat/completions`, KEYS.shared, { model: 'embed', messages: [] });
  assert.equal(wrongEndpoint.status, 400, 'an embedding deployment refuses chat');
  const denied = await post(`${gw.url}/v1/chat/completions`, KEYS.shared, { model: 'gen-large', messages: [] });
  assert.equal(denied.status, 403);
  assert.deepEqual(errorOf(denied.body), {
    message: "key not allowed to access model. This key can only access models=['gen', 'embed']. Tried to access gen-large",
    type: 'key_model_access_denied',
    param: 'model',
    code: '403',
  });
  const unknown = await post(`${gw.url}/v1/chat/completions`, KEYS.admin, { model: 'nope', messages: [] });
  assert.equal(unknown.status, 400);
  assert.match(errorOf(unknown.body).message, /Invalid model name passed in model=nope/);
});

test('gateway: health endpoints need no key', LIMIT, async (t) => {
  const gw = await startGateway({ keys: KEYS, aliases: {} });
  t.after(() => gw.stop());
  const live = await get(`${gw.url}/health/liveliness`);
  assert.equal(live.status, 200);
  assert.equal(live.body, "I'm alive!");
  const ready = await get(`${gw.url}/health/readiness`);
  assert.equal((ready.body as { status: string }).status, 'healthy');
});

test('gateway: error mode answers LiteLLM’s InternalServerError body; set() changes behaviour live', LIMIT, async (t) => {
  const gw = await startGateway({ keys: KEYS, aliases: { gen: { mode: 'ok' } } });
  t.after(() => gw.stop());
  gw.set('gen', { mode: 'error' });
  const r = await post(`${gw.url}/v1/chat/completions`, KEYS.admin, { model: 'gen', messages: [] });
  assert.equal(r.status, 500);
  assert.deepEqual(errorOf(r.body), {
    message: 'litellm.InternalServerError: InternalServerError: OpenAIException - Connection error.. Received Model Group=gen\nAvailable Model Group Fallbacks=None',
    type: null,
    param: null,
    code: '500',
  });
  gw.set('gen', { mode: 'error', status: 429 });
  assert.equal((await post(`${gw.url}/v1/chat/completions`, KEYS.admin, { model: 'gen', messages: [] })).status, 429);
});

test('gateway: stop() ends at once even with a hanging request and a slow one in flight', LIMIT, async () => {
  const gw = await startGateway({ keys: KEYS, aliases: { gen: { mode: 'hang' }, slow: { mode: 'slow', delayMs: 60_000 } } });
  const hanging = post(`${gw.url}/v1/chat/completions`, KEYS.admin, { model: 'gen', messages: [] }).then(
    () => 'answered',
    () => 'socket closed',
  );
  const slow = post(`${gw.url}/v1/chat/completions`, KEYS.admin, { model: 'slow', messages: [] }).then(
    () => 'answered',
    () => 'socket closed',
  );
  while (gw.requests.length < 2) await new Promise((r) => setTimeout(r, 5));
  const t0 = performance.now();
  await gw.stop();
  assert.ok(performance.now() - t0 < 500, 'stop() does not wait for the hang');
  assert.deepEqual(await Promise.all([hanging, slow]), ['socket closed', 'socket closed']);
  await assert.rejects(fetch(`${gw.url}/health/liveliness`), 'nothing listens after stop()');
});

test('seat: vLLM’s /health (empty 200, 503 when dead) and /v1/models with max_model_len', LIMIT, async (t) => {
  const seat = await startSeat({ model: 'gen', maxModelLen: 262144 });
  t.after(() => seat.stop());
  const h = await get(`${seat.url}/health`);
  assert.equal(h.status, 200);
  assert.equal(h.text, '');
  const m = await get(`${seat.url}/v1/models`);
  const model = (m.body as { object: string; data: Record<string, unknown>[] }).data[0];
  assert.equal(model?.id, 'gen');
  assert.equal(model?.owned_by, 'vllm');
  assert.equal(model?.max_model_len, 262144);
  const wrong = await post(`${seat.url}/v1/chat/completions`, '', { model: 'other', messages: [] });
  assert.equal(wrong.status, 404);
  assert.equal(wrong.body.message, 'The model `other` does not exist.');
  seat.set({ health: 503 });
  assert.equal((await get(`${seat.url}/health`)).status, 503);
  const dead = await post(`${seat.url}/v1/chat/completions`, '', { model: 'gen', messages: [] });
  assert.equal(dead.status, 500);
  assert.equal(dead.body.type, 'InternalServerError');
});

test('gateway → seat: a dead engine and a refused connection become LiteLLM 500s', LIMIT, async (t) => {
  const seat = await startSeat({ model: 'vllm-embed', kind: 'embedding', health: 503 });
  const gone = await startSeat({ model: 'x' });
  await gone.stop();
  const gw = await startGateway({
    keys: KEYS,
    aliases: { 'qwen3-embed': { mode: 'ok', backend: seat.url, backendModel: 'vllm-embed' }, lost: { mode: 'ok', backend: gone.url } },
  });
  t.after(async () => {
    await gw.stop();
    await seat.stop();
  });
  const dead = await post(`${gw.url}/v1/embeddings`, KEYS.shared, { model: 'qwen3-embed', input: 'ping' });
  assert.equal(dead.status, 500);
  assert.match(errorOf(dead.body).message, /^litellm\.InternalServerError: InternalServerError: Hosted_vllmException - EngineCore encountered an issue/);
  assert.equal(seat.requests.at(-1)?.model, 'vllm-embed', 'the gateway sends its deployment’s model name');
  const lost = await post(`${gw.url}/v1/chat/completions`, KEYS.shared, { model: 'lost', messages: [] });
  assert.equal(lost.status, 500);
  assert.match(errorOf(lost.body).message, /OpenAIException - Connection error\.\. Received Model Group=lost/);
  seat.set({ health: 200 });
  const ok = await post(`${gw.url}/v1/embeddings`, KEYS.shared, { model: 'qwen3-embed', input: 'ping' });
  assert.equal(ok.status, 200);
  assert.equal(ok.body.model, 'qwen3-embed', 'LiteLLM answers under the alias');
});

test('drill fleet: refuses any address outside 127.0.0.0/8', LIMIT, async () => {
  const r = parseInventory(await readFile(new URL('../../examples/fleet.yaml', import.meta.url), 'utf8'));
  assert.ok(r.ok);
  await assert.rejects(startDrillFleet(new Fleet(r.value), {}, { ephemeralPorts: true, env: {} }), /refusing to bind 192\.0\.2\.\d+/);
});

test('drill fleet: one seat per inventory seat on its host address, keys from the environment', LIMIT, async (t) => {
  const r = parseInventory(await readFile(new URL('../../drills/fleet.yaml', import.meta.url), 'utf8'));
  assert.ok(r.ok);
  const fleet = new Fleet(r.value);
  const drill = await startDrillFleet(fleet, undefined, { ephemeralPorts: true, env: { LITELLM_ADMIN_KEY: 'sk-from-env-admin' } });
  t.after(() => drill.stop());
  assert.equal(drill.seats.size, 15);
  assert.deepEqual([...drill.seats.keys()], [...fleet.seats.keys()]);
  assert.match(drill.fleet.seats.get('vllm-embed')!.url, /^http:\/\/127\.0\.2\.20:\d+$/);
  assert.equal(drill.keys.admin, 'sk-from-env-admin');
  assert.match(drill.env.LITELLM_SHARED_KEY ?? '', /^sk-drill-shared-[0-9a-f]{16}$/);
  // Seed 000's state by default.
  assert.equal((await get(`${drill.fleet.seats.get('vllm-embed')!.url}/health`)).status, 503);
  const shared = await get(`${drill.fleet.inventory.gateway.baseUrl}/v1/models`, drill.keys.shared);
  const ids = (shared.body as { data: { id: string }[] }).data.map((m) => m.id);
  assert.equal(ids.length, 29);
  assert.ok(!ids.includes('gen-large'));
});
