// Everything a peer sends is hostile: docker's answers are capped, parsed strictly, and every word
// a peer chose is cleaned before it reaches a terminal, Slack or a pipe.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { MAX_INSPECT_BYTES } from '../../src/probes/container/plan.ts';
import { fleetOf, inspectJson, probe, probeEnv, startBench, stateOf, type Bench } from './bench.ts';

let bench: Bench;

before(async () => {
  bench = await startBench();
});

after(async () => {
  await bench.stop();
});

const ESC = /[\x00-\x08\x0b-\x1f\x7f-\x9f\u202e]/;

test('an inspect over the cap is cut and not read: unknown too_large, the child killed', async () => {
  const huge = `[${'{"State":{"Status":"running"}},'.repeat(Math.ceil((MAX_INSPECT_BYTES * 4) / 30))}{}]`;
  const env = probeEnv(await bench.fixture({ 'flash-next-seat.inspect': huge }));
  const f = await probe(fleetOf(bench.listening), env);
  assert.equal(f.status, 'unknown');
  assert.equal(f.reason, 'too_large');
  assert.equal(f.detail, `docker answered over ${MAX_INSPECT_BYTES.toLocaleString('en-US')} bytes: cut, not read`);
  assert.equal(env.reaper.size, 0, 'no child left behind');
});

test('a tighter probe-wide cap wins over the container probe’s own', async () => {
  const env = probeEnv(await bench.fixture({ 'flash-next-seat.inspect': inspectJson({ log: 'x'.repeat(5000) }) }), { maxOutputBytes: 1024 });
  const f = await probe(fleetOf(bench.listening), env);
  assert.equal(f.reason, 'too_large');
  assert.match(f.detail, /over 1,024 bytes/);
});

test('escape sequences and control characters in every field a peer chose: cleaned, never decided on', async () => {
  const inspect = inspectJson({
    status: 'running\x1b[2J\x1b]0;pwned\x07',
    health: 'healthy\u202e',
    network: 'bridge\x1b[31m\nFORGED LINE',
    ports: {
      '8000/tcp': [{ HostIp: '0.0.0.0\x1b[8m', HostPort: String(bench.listening) }, { HostIp: '1.2.3.4', HostPort: `${bench.listening}\x1b[0m` }],
      '\x1b]8;;http://evil\x07click\x1b]8;;\x07': [{ HostIp: '0.0.0.0', HostPort: '8022' }],
    },
  });
  const f = await probe(fleetOf(bench.listening), probeEnv(await bench.fixture({ 'flash-next-seat.inspect': inspect })));
  // An unknown state is not "running": the container is not judged up on a word it dressed up.
  assert.equal(f.status, 'down');
  assert.equal(f.reason, 'not_running');
  assert.equal(stateOf(f).state, 'other');
  assert.equal(stateOf(f).health, 'other');
  assert.equal(stateOf(f).networkMode, 'bridge FORGED LINE');
  assert.deepEqual(stateOf(f).ports, [], 'no binding with an escape in it is read');
  assert.equal(f.detail, 'not running: unknown state "running" (control characters removed); 3 port bindings not read');
  assert.ok(!ESC.test(f.detail) && !f.detail.includes('\n'), JSON.stringify(f.detail));
  assert.ok(!ESC.test(JSON.stringify(f.data).replace(/\\u[0-9a-f]{4}/g, '')), 'no control character kept in the data either');
});

test('a failing healthcheck’s output is shown as one clean, short line', async () => {
  const log = `\x1b[31mERROR\x1b[0m engine dead\r\nTraceback (most recent call last):\n${'  File "x.py", line 1\n'.repeat(300)}`;
  const f = await probe(fleetOf(bench.listening), probeEnv(await bench.fixture({ 'flash-next-seat.inspect': inspectJson({ health: 'unhealthy', log }) })));
  assert.equal(f.reason, 'unhealthy');
  assert.match(f.detail, /^running, its healthcheck fails \("ERROR engine dead Traceback \(most recent call last\): File .{0,60}…"\)$/);
});

test('not JSON, not a container, or a container without a State: unknown unparseable, quoted clean', async () => {
  const f = await probe(fleetOf(bench.listening), probeEnv(await bench.fixture({ 'flash-next-seat.inspect': '\x1b[1mTemplate parsing error: template: :1: unexpected\n' })));
  assert.equal(f.status, 'unknown');
  assert.equal(f.reason, 'unparseable');
  assert.equal(f.detail, 'docker inspect answered not JSON: "[Template parsing error: template: :1: unexpected ]"');
  const nameless = await probe(fleetOf(bench.listening), probeEnv(await bench.fixture({ 'flash-next-seat.inspect': '{"__proto__":{"Name":"/flash-next-seat","State":{"Status":"running"}}}' })));
  assert.equal(nameless.reason, 'unparseable');
  assert.equal(nameless.detail, 'docker inspect said nothing of flash-next-seat');
  const stateless = await probe(fleetOf(bench.listening), probeEnv(await bench.fixture({ 'flash-next-seat.inspect': '{"Name":"/flash-next-seat","__proto__":{"State":{"Status":"running"}}}' })));
  assert.equal(stateless.reason, 'unparseable');
  assert.equal(stateless.detail, 'docker inspect answered no container State in it');
});

test('thousands of bindings: the first 64 are read, the rest counted, the seat’s own found among the read', async () => {
  const bindings = [{ HostIp: '0.0.0.0', HostPort: String(bench.listening) }, ...Array.from({ length: 5000 }, (_, i) => ({ HostIp: '0.0.0.0', HostPort: String(20000 + i) }))];
  const f = await probe(fleetOf(bench.listening), probeEnv(await bench.fixture({ 'flash-next-seat.inspect': inspectJson({ ports: { '8000/tcp': bindings } }) })));
  assert.equal(stateOf(f).ports.length, 64);
  assert.equal(f.status, 'up');
  assert.match(f.detail, /; 4,937 port bindings not read$/);
  assert.ok(f.detail.length < 4000, `the detail stays short: ${f.detail.length}`);
});
