// A whole site probe (aliases + GPUs + power) where 3 of 30 aliases hang: the run ends within the
// per-probe timeout plus a small margin, and the others are not held back.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:net';
import { Fleet } from '../../src/inventory/fleet.ts';
import { parseInventory } from '../../src/inventory/load.ts';
import { exitCodeFor, reportJson, runProbe } from '../../src/commands/probe.ts';
import { JsonReport } from '../../src/cli/report-json.ts';
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

test('3 of 30 aliases hanging: they are down at their timeout, and nothing else waits for them', async () => {
  const finished: string[] = [];
  const report = await runProbe(
    fleet,
    { site: 'fv', only: ['aliases', 'gpus', 'power'], timeoutMs: null, paid: false },
    { env: { SEAT_TEST_KEY: KEY, PATH: process.env.PATH }, pathPrefix: [DRILL_BIN], onEvent: (e) => void (e.type === 'task' && finished.push(e.task.id)) },
  );
  // How long the run took is measured in `npm run bench` (a ratio to its bound), not asserted here.
  const hung = report.findings.filter((f) => f.subject.kind === 'alias' && ['a27', 'a28', 'a29'].includes(f.subject.name));
  assert.equal(hung.length, 3);
  for (const f of hung) {
    assert.equal(f.status, 'down');
    assert.equal(f.reason, 'timeout');
  }
  // Streamed as they finish: every GPU and answering alias was reported before the first hanging one.
  const firstHung = Math.min(...['alias:a27', 'alias:a28', 'alias:a29'].map((id) => finished.indexOf(id)));
  assert.ok(finished.slice(0, firstHung).includes('gpu:fv-ml1'), 'GPU findings were not held back by the hanging aliases');
  assert.equal(finished.slice(0, firstHung).filter((id) => id.startsWith('alias:')).length, 27);
  assert.equal(report.summary.aliases.down, 3);
  assert.equal(report.findings.filter((f) => f.subject.kind === 'gpu').length, 4);
  assert.ok(report.findings.some((f) => f.subject.kind === 'address' && f.subject.role === 'bmc' && f.status === 'up'));
  assert.equal(exitCodeFor(report), 1);
  const json = reportJson(report) as { findings: Record<string, unknown>[] };
  for (const f of json.findings) {
    for (const k of ['subject', 'provenance', 'observedAt', 'data']) assert.ok(k in f, `finding lacks ${k}`);
    if (f.status !== 'up') assert.ok(typeof f.reason === 'string', `a ${String(f.status)} finding has a reason`);
  }
});

test('--only power runs no gateway request at all', async () => {
  const before = gateway.requests.length;
  const report = await runProbe(fleet, { site: 'fv', only: ['power'], timeoutMs: null, paid: false }, { env: { SEAT_TEST_KEY: KEY, PATH: process.env.PATH } });
  assert.equal(gateway.requests.length, before);
  assert.ok(report.findings.length > 0 && report.findings.every((f) => f.subject.kind === 'address' || f.subject.kind === 'ups'));
  assert.equal(exitCodeFor(report), 0);
});

test('--json written as the findings come is, byte for byte, the report serialised whole at the end', async () => {
  const json = new JsonReport();
  // Laid out in report order now and then while the run goes on: what came after is put between.
  const drafted = new JsonReport();
  let n = 0;
  let drafts = 0;
  const report = await runProbe(
    fleet,
    // The inventory's 1 s timeout: the GPUs over the drill ssh are measured even on a busy machine (their
    // programs start after the key listing), and their wording is what takes the bytes outside ASCII.
    { site: 'fv', only: ['aliases', 'gpus', 'power'], timeoutMs: null, paid: false },
    // Every other task's findings as they come; the rest are left for the end.
    {
      env: { SEAT_TEST_KEY: KEY, PATH: process.env.PATH },
      pathPrefix: [DRILL_BIN],
      onEvent: (e) => {
        if (e.type !== 'task') return;
        if (n++ % 2 === 0) json.add(e.findings);
        drafted.add(e.findings);
        if (n % 7 === 0) {
          drafted.prepare();
          drafts += 1;
        }
      },
    },
  );
  assert.ok(report.findings.length > 30);
  const whole = `${JSON.stringify(reportJson(report), null, 2)}\n`;
  // Some of what a person reads is outside ASCII (a dash, an ellipsis): the bytes are UTF-8 all the same.
  const gpus = report.findings.filter((f) => f.subject.kind === 'gpu');
  assert.ok(gpus.length === 4 && gpus.every((f) => f.status === 'up'), `GPUs not all measured: ${gpus.map((f) => f.detail).join('; ')}`);
  assert.match(whole, /[^\x00-\x7f]/);
  assert.equal(json.bytes(report).toString('utf8'), whole);
  assert.deepEqual(json.bytes(report), Buffer.from(whole));
  assert.ok(drafts >= 3);
  const pieces = drafted.pieces(report);
  // The prepared findings went out as slices of the draft, not one piece each.
  assert.ok(pieces.length < report.findings.length, `${pieces.length} pieces for ${report.findings.length} findings`);
  assert.equal(Buffer.concat(pieces).toString('utf8'), whole);
  // What the draft and the report order took from a finding as it came stays true: it cannot be changed.
  const down = report.findings.find((f) => f.status !== 'up')!;
  assert.throws(() => Object.assign(down, { status: 'up', detail: 'fine' }), TypeError);
  assert.equal(Buffer.concat(drafted.pieces(report)).toString('utf8'), whole);
  const none = { ...report, findings: [] };
  assert.equal(new JsonReport().bytes(none).toString('utf8'), `${JSON.stringify(reportJson(none), null, 2)}\n`);
});
