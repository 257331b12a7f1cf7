// Hostile peers through the real probes: a gateway that redirects, never stops sending, lists
// 130,000 models, echoes keys or sends escape sequences; and what a child process is allowed to see.
// A gateway or a tool is a peer we measure, not one we trust.
import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { createServer, type Server, type Socket } from 'node:net';
import { fileURLToPath } from 'node:url';
import { parseInventory } from '../../src/inventory/load.ts';
import { Fleet } from '../../src/inventory/fleet.ts';
import { planGatewayTasks } from '../../src/probes/gateway.ts';
import { planGpuTasks } from '../../src/probes/gpu.ts';
import { runProbe } from '../../src/commands/probe.ts';
import { decide, summarize } from '../../src/diagnose/verdict.ts';
import type { Finding, ProbeEnv } from '../../src/probes/types.ts';
import { fillerModel, startDrillFleet, startGateway, type DrillFleet, type DrillScenario } from '../../drills/litellm.ts';
import { get, post } from '../drills/fetch.ts';
import { ID_BYTES, ModelListScanner } from '../../src/probes/gateway/listing.ts';
import { fetchTransport } from '../../src/probes/edge/transport.ts';
import { aliasData, one, runAll, testProbeEnv } from '../helpers/probe-env.ts';

const LIMIT = { timeout: 60_000 };
const FIXTURES = fileURLToPath(new URL('../fixtures/gpu/', import.meta.url));
const DRILL_YAML = await readFile(new URL('../../drills/fleet.yaml', import.meta.url), 'utf8');
const CHAT = { model: 'gen', messages: [{ role: 'user', content: 'ping' }], max_tokens: 1 };
const MiB = 1024 * 1024;

function fleetOf(yaml: string): Fleet {
  const r = parseInventory(yaml);
  if (!r.ok) assert.fail(r.errors.join('\n'));
  return new Fleet(r.value);
}

async function drill(t: TestContext, scenario: DrillScenario = {}, env: NodeJS.ProcessEnv = {}): Promise<DrillFleet> {
  const d = await startDrillFleet(fleetOf(DRILL_YAML), scenario, { ephemeralPorts: true, env });
  t.after(() => d.stop());
  return d;
}

function gatewayProbe(d: DrillFleet, o: Partial<ProbeEnv> = {}, env: NodeJS.ProcessEnv = d.env): Promise<Finding[]> {
  return runAll(planGatewayTasks(d.fleet, { sites: ['fv'] }, testProbeEnv({ env, ...o })));
}

/** Every string anywhere in a value (keys of objects included). */
function strings(v: unknown, out: string[] = []): string[] {
  if (typeof v === 'string') out.push(v);
  else if (Array.isArray(v)) for (const x of v) strings(x, out);
  else if (v !== null && typeof v === 'object') {
    for (const [k, x] of Object.entries(v)) {
      out.push(k);
      strings(x, out);
    }
  }
  return out;
}

// --- redirect, endless body, huge listing ---------------------------------------------------------

test('a redirect through the gateway is reported with where it points, and not followed', LIMIT, async (t) => {
  const d = await drill(t);
  const elsewhere = await startGateway({ keys: d.keys, aliases: { gen: { mode: 'ok' } } });
  t.after(() => elsewhere.stop());
  d.gateway.set('gen', { mode: 'redirect', redirectTo: elsewhere.url });
  const target = `${elsewhere.url}/v1/chat/completions`;
  // The problem: the gateway really sends the client elsewhere.
  const raw = await post(`${d.fleet.inventory.gateway.baseUrl}/v1/chat/completions`, d.keys.admin!, CHAT, { redirect: 'manual' });
  assert.equal(raw.status, 307);
  assert.equal(raw.headers.get('location'), target);
  elsewhere.requests.length = 0;

  const findings = await gatewayProbe(d);
  const gen = one(findings, 'alias', 'gen');
  assert.notEqual(gen.status, 'up');
  assert.equal(gen.status, 'down');
  assert.equal(gen.reason, 'redirect');
  assert.ok(gen.detail.includes(target), gen.detail);
  assert.match(gen.detail, /redirected \(HTTP 307\) to .*: not followed/);
  assert.deepEqual(aliasData(gen).keys.map((k) => [k.key, k.request?.code, k.request?.location]), [
    ['admin', 'redirect', target],
    ['shared', 'redirect', target],
  ]);
  // A redirect is not the backend's fault, nor evidence the gateway path is broken.
  assert.equal(aliasData(gen).attribution, null);
  assert.deepEqual(elsewhere.requests, [], 'nothing followed the redirect');
  assert.equal(one(findings, 'alias', 'coder').status, 'up', 'the other aliases answer as usual');
});

test('an endless body ends at the cap with too_large, and the run’s heap stays bounded', LIMIT, async (t) => {
  const d = await drill(t);
  d.gateway.set('gen', { mode: 'endless', chunkBytes: 256 * 1024, delayMs: 1 });
  const heap0 = process.memoryUsage().heapUsed;
  let peak = heap0;
  const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage().heapUsed)), 5);
  let findings: Finding[];
  try {
    findings = await gatewayProbe(d, { timeoutMs: 30_000, maxBodyBytes: 4 * MiB });
  } finally {
    clearInterval(sampler);
  }
  peak = Math.max(peak, process.memoryUsage().heapUsed);
  const gen = one(findings, 'alias', 'gen');
  assert.equal(gen.status, 'down');
  assert.equal(gen.reason, 'too_large');
  assert.match(gen.detail, /answer over 4,194,304 bytes, cut/);
  assert.ok(peak - heap0 < 200 * MiB, `heap grew by ${Math.round((peak - heap0) / MiB)} MiB`);
  assert.equal(one(findings, 'alias', 'coder').status, 'up');
  assert.equal((await get(`${d.fleet.inventory.gateway.baseUrl}/health/liveliness`)).status, 200, 'the gateway was let go, not wedged');
});

/** A loopback upsd stand-in: answers LIST VAR <ups> with an on-line UPS. */
async function fakeUpsd(t: TestContext, ups: string): Promise<number> {
  const sockets = new Set<Socket>();
  const server: Server = createServer((s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
    s.on('error', () => {});
    s.setEncoding('utf8');
    s.on('data', (d: string) => {
      if (d.includes(`LIST VAR ${ups}`)) {
        s.write(`BEGIN LIST VAR ${ups}\nVAR ${ups} ups.status "OL"\nVAR ${ups} ups.load "21"\nVAR ${ups} battery.charge "100"\nEND LIST VAR ${ups}\n`);
      }
      if (d.includes('LOGOUT')) s.end('OK Goodbye\n');
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  t.after(
    () =>
      new Promise<void>((r) => {
        for (const s of sockets) s.destroy();
        server.close(() => r());
      }),
  );
  return (server.address() as { port: number }).port;
}

test('130,000 models listed: the key is up with the whole count, the extras are capped, and the UPS finding of the same run survives', LIMIT, async (t) => {
  const keys = { admin: 'sk-huge-admin-000000000000000001', shared: 'sk-huge-shared-00000000000000002' };
  // gen plus 129,999 fillers: 130,000 models for each key.
  const gw = await startGateway({ keys, aliases: { gen: { mode: 'ok' } }, extraModels: 129_999 });
  t.after(() => gw.stop());
  const nut = await fakeUpsd(t, 'labups');
  const fleet = fleetOf(`
settings: { probeTimeoutMs: 20000, deadlineMs: 40000 }
gateway: { baseUrl: ${gw.url}, keys: { admin: { env: SEAT_H_ADMIN }, shared: { env: SEAT_H_SHARED } } }
sites:
  lab:
    hosts: {}
    ups: { host: 127.0.0.1, port: ${nut}, name: labups, ratedVA: 1500, ratedW: 900 }
aliases:
  gen: { kind: chat, backend: { name: local, paid: false } }
`);
  // The problem: a listing of 130,000 models, over 10 MB, far over the 4 MiB body cap.
  const raw = await get(`${gw.url}/v1/models`, keys.shared);
  assert.equal((raw.body as { data: unknown[] }).data.length, 130_000);
  assert.ok(raw.text.length > 10_000_000, `${raw.text.length} bytes`);

  const heap0 = process.memoryUsage().heapUsed;
  const report = await runProbe(fleet, { site: 'lab', only: ['aliases', 'power'], timeoutMs: null, paid: false }, { env: { SEAT_H_ADMIN: keys.admin, SEAT_H_SHARED: keys.shared } });
  assert.ok(process.memoryUsage().heapUsed - heap0 < 200 * MiB, 'the report holds no copy of the listing');

  for (const key of ['admin', 'shared']) {
    const k = one(report.findings, 'gateway', `gateway (${key} key)`);
    assert.equal(k.status, 'up', k.detail);
    assert.equal(k.detail, '130,000 models listed');
    assert.equal(k.data.kind === 'gateway' && k.data.modelCount, 130_000);
    assert.ok(k.data.kind === 'gateway' && k.data.models.length <= 500, 'the ids kept are capped');
  }
  assert.equal(one(report.findings, 'alias', 'gen').status, 'up');
  const outside = report.findings.filter((f) => f.subject.kind === 'alias' && !f.subject.inInventory);
  assert.ok(outside.length > 0 && outside.length <= 21, `${outside.length} findings outside the inventory`);
  assert.ok(outside.some((f) => f.target === fillerModel(1)));
  assert.ok(outside.some((f) => /^at least 129,979 more aliases listed by the gateway but not in the inventory/.test(f.detail)), outside.map((f) => f.detail).join("\n"));
  assert.ok(JSON.stringify(report).length < 2_000_000, 'the report stays small');

  const ups = report.findings.filter((f) => f.probe === 'ups');
  assert.equal(ups.length, 1);
  assert.equal(ups[0]!.status, 'up', ups[0]!.detail);
});

// --- secrets --------------------------------------------------------------------------------------

const ADMIN = 'sk-adm-Q7x2Lp9Rt4Vw8Zc1Nf6Hj3Kb5';
const SHARED = 'sk-shr-M4e8Gy2Ud6Ws0Xa9Pq3Tv7Bn1';

function assertNoSecret(findings: Finding[], secrets: string[]): void {
  for (const f of findings) {
    const text = JSON.stringify(f);
    for (const s of secrets) {
      for (let n = 8; n <= s.length; n++) {
        assert.ok(!text.includes(s.slice(0, n)), `${f.target} carries the first ${n} characters of a key: ${text.slice(0, 400)}`);
      }
      for (const x of [f.detail, f.target, f.measuredBy, ...strings(f.data)]) assert.ok(!x.includes(s.slice(0, 8)), `${f.target}: ${x}`);
    }
  }
}

test('a gateway error body that echoes a whole key: no finding carries it', LIMIT, async (t) => {
  const d = await drill(t, {}, { LITELLM_ADMIN_KEY: ADMIN, LITELLM_SHARED_KEY: SHARED });
  d.gateway.set('gen', { mode: 'error', status: 500, body: { error: { message: `Hosted_vllmException - upstream refused the key ${ADMIN} (and ${SHARED})`, code: '500' } } });
  const raw = await post(`${d.fleet.inventory.gateway.baseUrl}/v1/chat/completions`, ADMIN, CHAT);
  assert.ok(raw.text.includes(ADMIN) && raw.text.includes(SHARED), 'the gateway does echo the keys');

  const findings = await gatewayProbe(d);
  const gen = one(findings, 'alias', 'gen');
  assert.equal(gen.status, 'down');
  assert.match(gen.detail, /upstream refused the key \[redacted\] \(and \[redacted\]\)/);
  assertNoSecret(findings, [ADMIN, SHARED]);
});

test('a key that straddles the 160-character cut of the error line: no finding carries any 8 of its first characters', LIMIT, async (t) => {
  const d = await drill(t, {}, { LITELLM_ADMIN_KEY: ADMIN, LITELLM_SHARED_KEY: SHARED });
  const lead = 'upstream auth failed for '.padEnd(150, '.');
  const message = `${lead}${ADMIN} while routing`;
  assert.equal(message.indexOf(ADMIN), 150);
  d.gateway.set('gen', { mode: 'error', status: 502, body: { error: { message, code: '502' } } });
  d.gateway.set('coder', { mode: 'error', status: 502, body: `${lead}${SHARED} while routing` });
  const raw = await post(`${d.fleet.inventory.gateway.baseUrl}/v1/chat/completions`, ADMIN, CHAT);
  assert.ok(raw.text.includes(ADMIN));

  const findings = await gatewayProbe(d);
  for (const alias of ['gen', 'coder']) {
    const f = one(findings, 'alias', alias);
    assert.equal(f.status, 'down');
    assert.match(f.detail, /^HTTP 502 through the gateway: upstream auth failed for \.+/);
  }
  assertNoSecret(findings, [ADMIN, SHARED]);
});

test('a one-letter key value: the enum fields are untouched, and a failure still reads as one', LIMIT, async (t) => {
  const d = await drill(t, { seatsDown: ['coder'] }, { LITELLM_ADMIN_KEY: 'u', LITELLM_SHARED_KEY: 'd' });
  assert.equal(d.keys.admin, 'u');
  const findings = await gatewayProbe(d);
  for (const f of findings) {
    assert.ok(['up', 'down', 'degraded', 'unknown'].includes(f.status), `${f.target}: status ${f.status}`);
    if (f.reason) assert.ok(!f.reason.includes('[redacted]'), `${f.target}: reason ${f.reason}`);
    assert.ok(!f.observedAt.includes('[redacted]'));
    assert.ok(!JSON.stringify(f.provenance).includes('[redacted]'), `${f.target}: ${JSON.stringify(f.provenance)}`);
  }
  assert.equal(one(findings, 'gateway', 'gateway (admin key)').status, 'up');
  assert.equal(one(findings, 'alias', 'gen').status, 'up');
  const coder = one(findings, 'alias', 'coder');
  assert.equal(coder.status, 'down');
  assert.equal(coder.reason, 'backend_down');
  assert.equal(aliasData(coder).attribution, 'backend');
  assert.equal(one(findings, 'seat', 'coder@fv-ml1').status, 'down');
  const verdict = decide(['fv'], summarize(d.fleet, findings, ['fv']));
  assert.notEqual(verdict.status, 'ok');
  assert.doesNotMatch(verdict.headline, /all \d+ checks up/);
});

// --- control characters ---------------------------------------------------------------------------

const HOSTILE = 'evil\x1b[32mok\x1b[0m\nFORGED LINE';

test('escape sequences and newlines from a model id or an error body reach no detail or target', LIMIT, async (t) => {
  const d = await drill(t);
  d.gateway.set(HOSTILE, { mode: 'ok' });
  d.gateway.set('gen', { mode: 'error', status: 500, body: { error: { message: `\x1b[32mok\x1b[0m all fine\nFORGED LINE: gen is up`, code: '500' } } });
  d.gateway.set('coder', { mode: 'error', status: 500, body: `\x1b[32mok\x1b[0m\r\nFORGED LINE` });
  const listed = (await get(`${d.fleet.inventory.gateway.baseUrl}/v1/models`, d.keys.admin)).body as { data: { id: string }[] };
  assert.ok(listed.data.some((m) => m.id === HOSTILE), 'the gateway lists the hostile id');

  const findings = await gatewayProbe(d);
  assert.equal(one(findings, 'alias', 'gen').status, 'down');
  assert.equal(one(findings, 'alias', 'coder').status, 'down');
  const stray = findings.filter((f) => f.subject.kind === 'alias' && !f.subject.inInventory);
  assert.equal(stray.length, 1, 'the hostile id is reported as outside the inventory');
  assert.match(stray[0]!.target, /^evil ?ok ?FORGED LINE$/);
  for (const f of findings) {
    for (const [field, text] of [['detail', f.detail], ['target', f.target], ['measuredBy', f.measuredBy]] as const) {
      assert.ok(!/[\x00-\x1f\x7f-\x9f]/.test(text), `${f.target} ${field} carries a control character: ${JSON.stringify(text)}`);
    }
    for (const s of strings(f.data)) assert.ok(!/[\x1b\n\r]/.test(s), `${JSON.stringify(f.target)} data carries ${JSON.stringify(s)}`);
    if (f.subject.kind === 'alias') assert.ok(!/[\x1b\n\r]/.test(f.subject.name), `subject ${JSON.stringify(f.subject.name)}`);
  }
  assert.doesNotMatch(one(findings, 'alias', 'gen').detail, /FORGED/);
});

// --- a child's environment ------------------------------------------------------------------------

test('the GPU tool does not see the Slack token or a gateway key set in the probe’s environment', LIMIT, async () => {
  const SLACK = 'xoxb-1111111111-2222222222-SeCrEtToKeNvAlUe';
  const fleet = fleetOf(`
gateway: { baseUrl: http://127.0.0.1:14000, keys: { admin: { env: LITELLM_ADMIN_KEY } } }
sites: { lab: { hosts: { lab-gpu: { address: 127.0.0.1, ssh: local, gpus: [{ index: 0 }] } } } }
seats:
  solo: { host: lab-gpu, gpus: [0], port: 8000, gpuMemoryUtilization: 0.5 }
`);
  const env = testProbeEnv({
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: '/home/oncall', SLACK_BOT_TOKEN: SLACK, SLACK_APP_TOKEN: 'xapp-1-A0-9999-AppLevelSecret', LITELLM_ADMIN_KEY: ADMIN, SEAT_VISIBLE: 'passed-on-purpose' },
    passEnv: ['SEAT_VISIBLE'],
    pathPrefix: [FIXTURES + 'env-dump'],
  });
  const findings = await runAll(planGpuTasks(fleet, { sites: ['lab'] }, env));
  assert.equal(findings.length, 1);
  const f = findings[0]!;
  assert.equal(f.status, 'up', f.detail);
  assert.equal(f.data.kind, 'gpu');
  if (f.data.kind !== 'gpu') return;
  const seen = f.data.gpu.processes[0]?.name ?? '';
  // The fixture did print its environment: what it may see is there.
  assert.match(seen, /^ENV\[ /);
  assert.match(seen, /\bPATH=/);
  assert.match(seen, /\bHOME=\/home\/oncall\b/);
  assert.match(seen, /\bSEAT_VISIBLE=passed-on-purpose\b/);
  for (const hidden of ['SLACK_BOT_TOKEN', 'SLACK_APP_TOKEN', 'LITELLM_ADMIN_KEY', SLACK, ADMIN, 'AppLevelSecret']) {
    assert.ok(!seen.includes(hidden), `the child saw ${hidden}`);
  }
  assert.ok(!JSON.stringify(findings).includes(ADMIN));
});

// --- the listing read as it streams ---------------------------------------------------------------

/** What JSON.parse makes of a listing: the string ids of the objects in `data`, or null when there is no list. */
function parsedIds(body: string): string[] | null {
  let v: unknown;
  try {
    v = JSON.parse(body);
  } catch {
    return null;
  }
  const data = (v as { data?: unknown } | null)?.data;
  if (Array.isArray(v) || !Array.isArray(data)) return null;
  return data.flatMap((m) => {
    const id = (m as { id?: unknown } | null)?.id;
    return typeof id === 'string' ? [id] : [];
  });
}

/** `hold`: bytes held and parsed whole before the scanner turns to reading as it streams (default: its own). */
function scanned(bytes: Uint8Array, sizes: number[], hold?: number): string[] | null {
  const ids: string[] = [];
  const s = new ModelListScanner((id) => ids.push(id), hold);
  for (let at = 0, i = 0; at < bytes.length; i++) {
    const n = sizes[i % sizes.length]!;
    s.write(bytes.subarray(at, at + n));
    at += n;
  }
  const ok = s.end();
  assert.equal(s.end(), ok, 'end() gives the same answer when asked again');
  return ok ? ids : null;
}

const LISTINGS = [
  '{"data":[{"id":"gen","object":"model"},{"id":"coder"}],"object":"list"}',
  '{"object":"list","data":[{"id":"gen","meta":{"id":"nested","data":[{"id":"deeper"}]}},{"object":"model","id":"we\\"ird\\\\id\\u00e9\\ud83d\\ude00 é😀"},{"id":5},"str",null,[{"id":"in-array"}],{"id":"gen"}]}',
  '{"x":{"data":[{"id":"not-this"}]},"data":[{"id":"this"}],"y":[1,2,{"id":"nor-this"}]}',
  '\ufeff{"data":[{"id":"after-a-bom"}]}',
  '{ "data" : [ { "id" : "spaced" } , { "id" : "out" } ] }\n',
  '{"data":[]}',
  '{"data":{"id":"gen"}}',
  '[{"id":"gen"}]',
  '{"data":[{"id":"gen"}]',
  '{"data":[{"id":"gen"}]} trailing',
  'not json at all',
  '',
  '{"detail":"Not Found"}',
  // The last "id" of a model counts, as JSON.parse has it; a string's own leading U+FEFF is part of it.
  '{"data":[{"id":"a","id":"b"},{"id":"c","id":5},{"id":{"x":1},"object":"model"},{"id":[1],"id":"d"},{"id":"e"}]}',
  '{"data":[{"id":"\ufeffgen"},{"id":"\ufeff"}]}',
  '{"\ufeffdata":[{"id":"a"}]}',
  '{"\\u0064\\u0061\\u0074\\u0061":[{"\\u0069\\u0064":"escaped keys"}]}',
];

test('a model listing gives the ids JSON.parse gives, however the bytes are split, held whole or read as it streams', () => {
  // undefined: held whole (these are all small); 0: every byte scanned as it streams; 10: held, then
  // scanned from the piece that takes it over 10 bytes.
  for (const hold of [undefined, 0, 10]) {
    for (const body of LISTINGS) {
      const bytes = new TextEncoder().encode(body);
      const want = parsedIds(body.replace(/^\ufeff/, ''));
      for (const sizes of [[bytes.length || 1], [1], [2, 3, 5], [7, 1, 13]]) {
        assert.deepEqual(scanned(bytes, sizes, hold), want, `${JSON.stringify(body)} in chunks of ${sizes.join(',')}, hold ${hold ?? 'default'}`);
      }
    }
  }
});

test('a listing nested a million deep, read as it streams, is not a model list and costs no more than its chunk', () => {
  const body = new TextEncoder().encode(`{"data":[{"id":"a"}],"x":${'['.repeat(1_000_000)}`);
  const heap0 = process.memoryUsage().heapUsed;
  const ids = scanned(body, [64 * 1024], 0);
  assert.equal(ids, null, 'not a model list');
  assert.ok(process.memoryUsage().heapUsed - heap0 < 16 * MiB, 'one frame per level would cost some 60 MiB here');
});

test('a model id over 1 KiB comes cut, ending in …, whether the listing is held whole or read as it streams', () => {
  const long = `m${'x'.repeat(ID_BYTES + 50)}`;
  const bytes = new TextEncoder().encode(JSON.stringify({ data: [{ id: long }, { id: 'gen' }] }));
  for (const hold of [undefined, 0]) {
    const ids = scanned(bytes, [bytes.length], hold);
    assert.deepEqual(ids, [`${long.slice(0, ID_BYTES)}…`, 'gen'], `hold ${hold ?? 'default'}`);
  }
});

test('through the probe: a listing split into small chunks is read whole; one with no model list is a bad answer', LIMIT, async (t) => {
  const d = await drill(t);
  const base = d.fleet.inventory.gateway.baseUrl;
  const bodies: Record<string, string> = {
    [d.keys.admin!]: LISTINGS[1]!.replace('"gen"', '"gen-fast"').replace('{"id":5}', `${[...d.fleet.aliases.keys()].map((a) => JSON.stringify({ id: a })).join(',')},{"id":5}`),
    [d.keys.shared!]: '{"detail":"Not Found"}',
  };
  const chunked = (text: string): ReadableStream<Uint8Array> => {
    const bytes = new TextEncoder().encode(text);
    let at = 0;
    return new ReadableStream({
      pull(c) {
        if (at >= bytes.length) return c.close();
        c.enqueue(bytes.slice(at, at + 3));
        at += 3;
      },
    });
  };
  const fetchVia: typeof fetch = async (input, init) => {
    const url = String(input instanceof Request ? input.url : input);
    const auth = new Headers(init?.headers).get('authorization')?.replace(/^Bearer /, '') ?? '';
    if (url === `${base}/v1/models` && bodies[auth] !== undefined) return new Response(chunked(bodies[auth]), { status: 200, headers: { 'content-type': 'application/json' } });
    return fetch(input, init);
  };
  const findings = await gatewayProbe(d, { http: fetchTransport(fetchVia) });
  const admin = one(findings, 'gateway', 'gateway (admin key)');
  assert.equal(admin.status, 'up');
  const ids = parsedIds(bodies[d.keys.admin!]!)!;
  assert.equal(admin.data.kind === 'gateway' && admin.data.modelCount, new Set(ids).size);
  assert.equal(admin.detail, `${new Set(ids).size} models listed`);
  const shared = one(findings, 'gateway', 'gateway (shared key)');
  assert.equal(shared.status, 'down');
  assert.equal(shared.reason, 'bad_answer');
  assert.equal(shared.detail, 'HTTP 200 but no model list in the answer');
  // The odd id is outside the inventory, named cleanly; the nested and non-string ids are no models.
  const outside = findings.filter((f) => f.subject.kind === 'alias' && !f.subject.inInventory).map((f) => f.target);
  assert.deepEqual(outside, ['we"ird\\idé😀 é😀']);
});

test('escape sequences in the GPU tool’s UUIDs reach no detail or target', LIMIT, async () => {
  const fleet = fleetOf(`
gateway: { baseUrl: http://127.0.0.1:14000, keys: { admin: { env: LITELLM_ADMIN_KEY } } }
sites: { lab: { hosts: { lab-gpu: { address: 127.0.0.1, ssh: local, gpus: [{ index: 0, uuid: GPU-0d1e2f3a-expected }] } } } }
`);
  const env = testProbeEnv({ env: { PATH: process.env.PATH ?? '/usr/bin:/bin' }, pathPrefix: [FIXTURES + 'escapes'] });
  const findings = await runAll(planGpuTasks(fleet, { sites: ['lab'] }, env));
  assert.equal(findings.length, 2);
  // The tool did send them; what is kept as data is cleaned too (it is shown, exported and journalled),
  // and no cleaning can make a UUID match the inventory's that did not.
  assert.deepEqual(findings.map((f) => (f.data.kind === 'gpu' ? f.data.gpu.uuid : null)), ['GPU-ok-3e5f', 'GPU-twin-7a1c']);
  assert.ok(findings.every((f) => f.data.kind === 'gpu' && !/[\x00-\x1f\x7f-\x9f]/.test(`${f.data.gpu.name}`)));
  assert.match(findings[0]!.detail, /the inventory expects GPU-0d1e2f3a-expected, the card at this index is GPU-ok-3e5f\)$/);
  assert.equal(findings[1]!.target, 'lab-gpu GPU0 (GPU-twin-7a1c)');
  for (const f of findings) {
    for (const text of [f.detail, f.target, f.measuredBy]) assert.ok(!/[\x00-\x1f\x7f-\x9f]/.test(text), JSON.stringify(text));
  }
});
