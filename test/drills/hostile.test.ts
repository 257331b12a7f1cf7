// The failure modes the probe must diagnose, as the stand-ins serve them: what a plain fetch sees.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { parseInventory } from '../../src/inventory/load.ts';
import { Fleet } from '../../src/inventory/fleet.ts';
import { CUDA_OOM, SEED_000, fillerModel, startDrillFleet, startGateway, startSeat } from '../../drills/litellm.ts';
import { errorOf, get, post } from './fetch.ts';

const KEYS = { admin: 'sk-admin-0123456789abcdef', shared: 'sk-shared-fedcba9876543210' };
const LIMIT = { timeout: 15_000 };
const CHAT = { model: 'gen', messages: [{ role: 'user', content: 'ping' }], max_tokens: 1 };

async function drillFleet(): Promise<Fleet> {
  const r = parseInventory(await readFile(new URL('../../drills/fleet.yaml', import.meta.url), 'utf8'));
  assert.ok(r.ok);
  return new Fleet(r.value);
}

test('seat healthy-but-failing: /health 200, every request 500, and the gateway’s 500 names the backend', LIMIT, async (t) => {
  const d = await startDrillFleet(await drillFleet(), { ...SEED_000, seats: { ...SEED_000.seats, gen: { mode: 'healthy-but-failing' } } }, { ephemeralPorts: true, env: {} });
  t.after(() => d.stop());
  const seatUrl = d.fleet.seats.get('gen')!.url;
  const shared = d.keys.shared!;

  const health = await get(`${seatUrl}/health`);
  assert.equal(health.status, 200);
  assert.equal(health.text, '', 'vLLM’s /health: an empty 200');
  assert.equal((await get(`${seatUrl}/v1/models`)).status, 200);
  const direct = await post(`${seatUrl}/v1/chat/completions`, '', CHAT);
  assert.equal(direct.status, 500);
  assert.deepEqual(direct.body, { object: 'error', message: CUDA_OOM, type: 'InternalServerError', param: null, code: 500 });

  const through = await post(`${d.fleet.inventory.gateway.baseUrl}/v1/chat/completions`, shared, CHAT);
  assert.equal(through.status, 500);
  assert.equal(
    through.text,
    '{"error":{"message":"litellm.InternalServerError: InternalServerError: Hosted_vllmException - CUDA out of memory. Tried to allocate 2.00 GiB. GPU 0 has a total capacity of 95.59 GiB of which 1.23 GiB is free. Received Model Group=gen\\nAvailable Model Group Fallbacks=None","type":null,"param":null,"code":"500"}}',
  );
  assert.equal((await get(`${d.fleet.inventory.gateway.baseUrl}/health/readiness`)).status, 200, 'the gateway itself is healthy');
  // The gateway routes gen-fast to the same seat; the other seats are untouched, seed 000's state too.
  assert.equal((await post(`${d.fleet.inventory.gateway.baseUrl}/v1/chat/completions`, shared, { ...CHAT, model: 'gen-fast' })).status, 500);
  assert.equal((await post(`${d.fleet.inventory.gateway.baseUrl}/v1/chat/completions`, shared, { ...CHAT, model: 'coder' })).status, 200);
  assert.equal((await get(`${d.fleet.seats.get('vllm-embed')!.url}/health`)).status, 503);

  d.seats.get('gen')!.set({ mode: 'ok' });
  assert.equal((await post(`${d.fleet.inventory.gateway.baseUrl}/v1/chat/completions`, shared, CHAT)).status, 200, 'set() heals it live');
});

test('seat healthy-but-failing: the failure message is a per-seat option; wrong model and wrong endpoint still answer as vLLM does', LIMIT, async (t) => {
  const seat = await startSeat({ model: 'vllm-embed', kind: 'embedding', mode: 'healthy-but-failing', failure: 'RuntimeError: NCCL error: unhandled cuda error' });
  const gw = await startGateway({ keys: KEYS, aliases: { 'qwen3-embed': { mode: 'ok', backend: seat.url, backendModel: 'vllm-embed' } } });
  t.after(async () => {
    await gw.stop();
    await seat.stop();
  });
  const r = await post(`${gw.url}/v1/embeddings`, KEYS.shared, { model: 'qwen3-embed', input: 'ping' });
  assert.equal(r.status, 500);
  assert.deepEqual(errorOf(r.body), {
    message: 'litellm.InternalServerError: InternalServerError: Hosted_vllmException - RuntimeError: NCCL error: unhandled cuda error. Received Model Group=qwen3-embed\nAvailable Model Group Fallbacks=None',
    type: null,
    param: null,
    code: '500',
  });
  assert.equal((await post(`${seat.url}/v1/embeddings`, '', { model: 'other', input: 'x' })).status, 404);
  assert.equal((await post(`${seat.url}/v1/chat/completions`, '', { model: 'vllm-embed', messages: [] })).status, 400);
});

test('gateway redirect: one alias answers 307 to another port; a following fetch arrives there without its key', LIMIT, async (t) => {
  const elsewhere = await startGateway({ keys: KEYS, aliases: { gen: { mode: 'ok' } } });
  const gw = await startGateway({ keys: KEYS, aliases: { gen: { mode: 'redirect', redirectTo: elsewhere.url }, coder: { mode: 'ok' } } });
  t.after(async () => {
    await gw.stop();
    await elsewhere.stop();
  });
  const manual = await post(`${gw.url}/v1/chat/completions?x=1`, KEYS.admin, CHAT, { redirect: 'manual' });
  assert.equal(manual.status, 307);
  assert.equal(manual.headers.get('location'), `${elsewhere.url}/v1/chat/completions?x=1`);
  assert.notEqual(new URL(elsewhere.url).port, new URL(gw.url).port);

  // fetch follows a 307 with the same method and body, but drops Authorization across origins.
  const followed = await post(`${gw.url}/v1/chat/completions`, KEYS.admin, CHAT);
  assert.equal(followed.status, 401);
  assert.equal(errorOf(followed.body).message, 'Authentication Error, No api key passed in.');
  assert.deepEqual(
    elsewhere.requests.map((r) => [r.method, r.path, r.key, r.model]),
    [['POST', '/v1/chat/completions', null, 'gen']],
  );
  assert.equal((await post(`${gw.url}/v1/chat/completions`, KEYS.admin, { ...CHAT, model: 'coder' })).status, 200, 'other aliases answer as usual');
  const models = await get(`${gw.url}/v1/models`, KEYS.admin);
  assert.deepEqual((models.body as { data: { id: string }[] }).data.map((m) => m.id), ['gen', 'coder'], '/v1/models is not redirected');
});

test('gateway redirect: only to loopback, and only with a target', LIMIT, async (t) => {
  await assert.rejects(startGateway({ keys: KEYS, aliases: { gen: { mode: 'redirect', redirectTo: 'http://192.0.2.1:4000' } } }), /refusing to redirect to 192\.0\.2\.1/);
  const gw = await startGateway({ keys: KEYS, aliases: {} });
  t.after(() => gw.stop());
  assert.throws(() => gw.set('gen', { mode: 'redirect' }), /needs redirectTo/);
  assert.throws(() => gw.set('gen', { mode: 'redirect', redirectTo: 'http://example.com' }), /refusing to redirect to example\.com/);
});

test('gateway endless: 200 with a chunked body that never ends, until the client lets go', LIMIT, async (t) => {
  const gw = await startGateway({ keys: KEYS, aliases: { gen: { mode: 'endless', chunkBytes: 64 * 1024, delayMs: 1 } } });
  t.after(() => gw.stop());
  const ac = new AbortController();
  const res = await fetch(`${gw.url}/v1/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${KEYS.admin}`, 'content-type': 'application/json' },
    body: JSON.stringify(CHAT),
    signal: ac.signal,
  });
  assert.equal(res.status, 200);
  assert.equal(res.headers.get('transfer-encoding'), 'chunked');
  assert.equal(res.headers.get('content-length'), null);
  const reader = res.body!.getReader();
  const decoder = new TextDecoder();
  let text = '';
  while (text.length < 2 * 1024 * 1024) {
    const { value, done } = await reader.read();
    assert.ok(!done, 'the body does not end');
    text += decoder.decode(value, { stream: true });
  }
  ac.abort();
  await reader.cancel().catch(() => {});
  assert.match(text, /^\{"id":"chatcmpl-[0-9a-f]{24}","object":"chat\.completion","choices":\[ +$/, 'valid JSON so far, then whitespace');
  assert.equal((await get(`${gw.url}/health/liveliness`)).status, 200, 'the gateway still answers others');
  const t0 = performance.now();
  await gw.stop();
  assert.ok(performance.now() - t0 < 500, 'stop() is immediate');
});

test('gateway huge listing: /v1/models lists 130,000 filler models after the key’s aliases', LIMIT, async (t) => {
  const gw = await startGateway({ keys: KEYS, aliases: { gen: { mode: 'ok' }, 'gen-large': { mode: 'ok', keys: ['admin'] } }, extraModels: 130_000 });
  t.after(() => gw.stop());
  const shared = await get(`${gw.url}/v1/models`, KEYS.shared);
  assert.equal(shared.status, 200);
  assert.ok(shared.text.length > 10_000_000, `${shared.text.length} bytes`);
  assert.equal(shared.headers.get('content-length'), String(shared.text.length));
  const body = shared.body as { object: string; data: { id: string; object: string; created: number; owned_by: string }[] };
  assert.equal(body.object, 'list');
  assert.equal(body.data.length, 130_001);
  assert.deepEqual(body.data.slice(0, 2), [
    { id: 'gen', object: 'model', created: 1677610602, owned_by: 'openai' },
    { id: fillerModel(1), object: 'model', created: 1677610602, owned_by: 'openai' },
  ]);
  assert.equal(body.data.at(-1)?.id, 'drill-filler-130000');
  const admin = await get(`${gw.url}/v1/models`, KEYS.admin);
  assert.equal((admin.body as { data: unknown[] }).data.length, 130_002);
  // Chat still works for a real alias; a filler is no model at all.
  assert.equal((await post(`${gw.url}/v1/chat/completions`, KEYS.admin, CHAT)).status, 200);
  assert.equal((await post(`${gw.url}/v1/chat/completions`, KEYS.admin, { ...CHAT, model: fillerModel(7) })).status, 400);
  gw.configure({ extraModels: 0 });
  assert.deepEqual(((await get(`${gw.url}/v1/models`, KEYS.shared)).body as { data: { id: string }[] }).data.map((m) => m.id), ['gen']);
});

test('drill scenario: gateway options reach the drill fleet’s gateway', LIMIT, async (t) => {
  const d = await startDrillFleet(await drillFleet(), { ...SEED_000, gateway: { extraModels: 3 } }, { ephemeralPorts: true, env: {} });
  t.after(() => d.stop());
  const ids = ((await get(`${d.fleet.inventory.gateway.baseUrl}/v1/models`, d.keys.shared)).body as { data: { id: string }[] }).data.map((m) => m.id);
  assert.equal(ids.length, 29 + 3);
  assert.deepEqual(ids.slice(-3), [fillerModel(1), fillerModel(2), fillerModel(3)]);
});
