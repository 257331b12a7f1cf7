// A whole site probe (aliases + GPUs + power) where 3 of 30 aliases hang: the run ends within the
// per-probe timeout plus a small margin, and the others are not held back.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:net';
import { Fleet } from '../../src/inventory/fleet.ts';
import { parseInventory } from '../../src/inventory/load.ts';
import { exitCodeFor, reportJson, runProbe } from '../../src/commands/probe.ts';
import { startGateway, type AliasBehaviour } from '../../drills/litellm.ts';
import { DRILL_BIN } from '../../drills/drill.ts';

const KEY = 'sk-probe-test-000000000001';
const TIMEOUT = 1000;
let gateway: Awaited<ReturnType<typeof startGateway>>;
let listener: Server;
let fleet: Fleet;

before(async () => {
  const aliases: Record<string, AliasBehaviour> = {};
  for (let i = 0; i < 30; i++) aliases[`a${String(i).padStart(2, '0')}`] = i < 27 ? { mode: 'slow', delayMs: 20 } : { mode: 'hang' };
  gateway = await startGateway({ keys: { admin: KEY }, aliases });
  listener = createServer((s) => s.end());
  await new Promise<void>((r) => listener.listen(0, '127.0.0.1', () => r()));
  const tcp = (listener.address() as { port: number }).port;
  const r = parseInventory(`
settings: { probeTimeoutMs: ${TIMEOUT}, deadlineMs: 5000 }
gateway: { baseUrl: ${gateway.url}, keys: { admin: { env: SEAT_TEST_KEY } } }
sites:
  fv:
    hosts: { fv-ml1: { address: 127.0.0.1, ssh: drill@127.0.1.10, gpus: [{ index: 0 }, { index: 1 }, { index: 2 }, { index: 3 }] } }
    bmc: { fv-ml1-bmc: { address: 127.0.0.1, tcpPorts: [${tcp}] } }
    firewall: { address: 127.0.0.1, tcpPorts: [${tcp}] }
aliases:
${Object.keys(aliases).map((a) => `  ${a}: { kind: chat, backend: { name: local, paid: false } }`).join('\n')}
`);
  if (!r.ok) throw new Error(r.errors.join('\n'));
  fleet = new Fleet(r.value);
});

after(async () => {
  await gateway.stop();
  await new Promise<void>((r) => listener.close(() => r()));
});

test('3 of 30 aliases hanging: the site probe ends within the timeout plus a margin, the rest streamed first', async () => {
  const finished: { id: string; at: number }[] = [];
  const t0 = performance.now();
  const report = await runProbe(
    fleet,
    { site: 'fv', only: ['aliases', 'gpus', 'power'], timeoutMs: null, paid: false },
    { env: { SEAT_TEST_KEY: KEY, PATH: process.env.PATH }, pathPrefix: [DRILL_BIN], onEvent: (e) => void (e.type === 'task' && finished.push({ id: e.task.id, at: performance.now() - t0 })) },
  );
  const elapsed = performance.now() - t0;
  assert.ok(elapsed < TIMEOUT + 800, `whole probe took ${Math.round(elapsed)} ms for a ${TIMEOUT} ms timeout`);
  const hung = report.findings.filter((f) => ['a27', 'a28', 'a29'].includes(f.target));
  assert.equal(hung.length, 3);
  for (const f of hung) {
    assert.equal(f.status, 'down');
    assert.match(f.detail, /no answer through the gateway within 1000 ms/);
  }
  const gpus = finished.filter((e) => e.id.startsWith('gpu'));
  assert.ok(gpus.length > 0 && gpus.every((e) => e.at < TIMEOUT / 2), 'GPU findings were not held back by the hanging aliases');
  assert.equal(report.summary.aliases.down, 3);
  assert.equal(report.findings.filter((f) => f.probe === 'gpu').length, 4);
  assert.ok(report.findings.some((f) => f.probe === 'bmc' && f.status === 'up'));
  assert.equal(exitCodeFor(report), 1);
  const json = reportJson(report) as { durationMs: number };
  assert.ok(json.durationMs <= Math.ceil(elapsed));
});

test('--only power runs no gateway request at all', async () => {
  const before = gateway.requests.length;
  const report = await runProbe(fleet, { site: 'fv', only: ['power'], timeoutMs: null, paid: false }, { env: { SEAT_TEST_KEY: KEY, PATH: process.env.PATH } });
  assert.equal(gateway.requests.length, before);
  assert.ok(report.findings.length > 0 && report.findings.every((f) => ['ups', 'bmc', 'firewall', 'host'].includes(f.probe)));
  assert.equal(exitCodeFor(report), 0);
});
