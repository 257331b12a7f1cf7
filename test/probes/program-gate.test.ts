// A probe's programs (ssh to the GPU hosts) start once the gateway's listing is in: every alias waits
// on that listing, and starting a program forks this process and holds its thread. When the gateway
// does not answer, the programs go at the gate's cap all the same: a dark gateway never holds the GPUs.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Fleet } from '../../src/inventory/fleet.ts';
import { parseInventory } from '../../src/inventory/load.ts';
import { runProbe } from '../../src/commands/probe.ts';
import { createReaper, type Reaper } from '../../src/probes/edge/exec.ts';
import { LISTINGS_FIRST_MS } from '../../src/probes/edge/gate.ts';
import { chatBody } from '../../drills/litellm/bodies.ts';
import { DRILL_BIN } from '../../drills/drill.ts';
import { ManualTimers, waitFor } from './edge/helpers.ts';

const KEY = 'sk-gate-test-000000000001';
const ALIASES = ['a0', 'a1', 'a2'];

/** What happened, in order, across the gateway (in this process) and the programs started. */
let log: string[] = [];
/** The listing's answer waits on this; a test replaces it. */
let held: Promise<void> = Promise.resolve();
let server: Server;
let fleet: Fleet;

before(async () => {
  server = createServer((req, res) => {
    let body = '';
    req.on('data', (d: Buffer) => (body += d.toString()));
    req.on('end', () => {
      res.setHeader('content-type', 'application/json');
      if (req.headers.authorization !== `Bearer ${KEY}`) {
        res.statusCode = 401;
        res.end('{"error":{"message":"bad key"}}');
        return;
      }
      if (req.method === 'GET' && req.url === '/v1/models') {
        log.push('listing asked');
        void held.then(() => {
          log.push('listing answered');
          res.end(JSON.stringify({ object: 'list', data: ALIASES.map((id) => ({ id, object: 'model', created: 0, owned_by: 'openai' })) }));
        });
        return;
      }
      if (req.method === 'POST' && req.url === '/v1/chat/completions') {
        const asked = JSON.parse(body) as Record<string, unknown>;
        res.end(JSON.stringify(chatBody(String(asked.model), asked)));
        return;
      }
      res.statusCode = 404;
      res.end('{"error":{"message":"not found"}}');
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const r = parseInventory(`
settings: { probeTimeoutMs: 3000, deadlineMs: 10000 }
gateway: { baseUrl: ${url}, keys: { admin: { env: SEAT_TEST_KEY } } }
sites:
  fv:
    hosts: { fv-ml1: { address: 127.0.0.1, ssh: drill@127.0.1.10, gpus: [{ index: 0 }, { index: 1 }, { index: 2 }, { index: 3 }] } }
aliases:
${ALIASES.map((a) => `  ${a}: { kind: chat, backend: { name: local, paid: false } }`).join('\n')}
`);
  if (!r.ok) throw new Error(r.errors.join('\n'));
  fleet = new Fleet(r.value);
});

after(async () => {
  server.closeAllConnections();
  await new Promise<void>((r) => server.close(() => r()));
});

/** The CLI's reaper, writing each program it is handed into the log. */
function recordingReaper(): Reaper {
  const inner = createReaper();
  return {
    track: (pid) => {
      log.push('program started');
      inner.track(pid);
    },
    untrack: (pid) => inner.untrack(pid),
    killAll: (signal) => inner.killAll(signal),
    get size() {
      return inner.size;
    },
  };
}

/** Turns of the loop in which a program started too early would have shown up. */
const settle = (): Promise<void> => new Promise((r) => setTimeout(r, 100));

function probe(timers: ManualTimers, onGpu: () => void = () => {}): ReturnType<typeof runProbe> {
  return runProbe(
    fleet,
    { site: 'fv', only: ['aliases', 'gpus'], timeoutMs: null, paid: false },
    {
      env: { SEAT_TEST_KEY: KEY, PATH: process.env.PATH },
      pathPrefix: [DRILL_BIN],
      reaper: recordingReaper(),
      // The runner's timers and the gate's cap fire when the test says so (a test that waits forever
      // for them fails at its own timeout, above).
      setTimer: timers.setTimer,
      onEvent: (e) => {
        if (e.type === 'task' && e.task.group === 'gpus') onGpu();
      },
    },
  );
}

test('ssh starts once the listing is answered, never while the aliases wait on it', { timeout: 30_000 }, async () => {
  log = [];
  let release!: () => void;
  held = new Promise((r) => (release = r));
  const timers = new ManualTimers();
  const run = probe(timers);
  await waitFor(() => log.includes('listing asked'), 'the listing asked');
  await settle();
  assert.ok(!log.includes('program started'), `no program while the listing is held: ${log.join(', ')}`);
  release();
  const report = await run;
  assert.ok(log.indexOf('program started') > log.indexOf('listing answered'), log.join(', '));
  // Both ssh calls ran (the GPUs and their processes), and the cap never had to fire.
  assert.equal(log.filter((l) => l === 'program started').length, 2);
  const gpus = report.findings.filter((f) => f.subject.kind === 'gpu');
  assert.equal(gpus.length, 4);
  assert.ok(gpus.every((f) => f.status === 'up'), gpus.map((f) => `${f.target} ${f.status} ${f.detail}`).join('; '));
  assert.equal(report.findings.filter((f) => f.subject.kind === 'alias' && f.status === 'up').length, ALIASES.length);
});

test('a gateway that does not answer its listing holds ssh only until the cap: the GPUs are measured while it hangs', { timeout: 30_000 }, async () => {
  log = [];
  let release!: () => void;
  held = new Promise((r) => (release = r));
  const timers = new ManualTimers();
  let gpuDone = false;
  const run = probe(timers, () => (gpuDone = true));
  await waitFor(() => log.includes('listing asked'), 'the listing asked');
  await settle();
  assert.ok(!log.includes('program started'), log.join(', '));
  // The cap passes.
  assert.ok(timers.fire(LISTINGS_FIRST_MS) >= 1, 'the gate set its cap');
  await waitFor(() => gpuDone, 'the GPU findings, the listing still held');
  assert.ok(!log.includes('listing answered'));
  assert.ok(log.indexOf('program started') > log.indexOf('listing asked'));
  release();
  const report = await run;
  assert.ok(report.findings.filter((f) => f.subject.kind === 'gpu').every((f) => f.status === 'up'));
});
