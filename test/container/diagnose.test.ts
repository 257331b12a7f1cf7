// The diagnosis over container findings the probe itself made: a seat healthy inside and unreachable
// outside proposes seat-unreachable; decisions read facts only, so rewording every display string
// changes nothing.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { decide, summarize } from '../../src/diagnose/verdict.ts';
import type { Finding } from '../../src/probes/types.ts';
import { reworded, seat, transport } from '../helpers/findings.ts';
import { PUBLISHED, fleetOf, inspectJson, probe, probeEnv, startBench, type Bench, type InspectOptions } from './bench.ts';

let bench: Bench;

before(async () => {
  bench = await startBench();
});

after(async () => {
  await bench.stop();
});

async function measuredContainer(port: number, o: InspectOptions): Promise<Finding> {
  return probe(fleetOf(port), probeEnv(await bench.fixture({ 'flash-next-seat.inspect': inspectJson(o) })));
}

function diagnose(port: number, findings: Finding[]) {
  const fleet = fleetOf(port);
  const v = decide(['ana'], summarize(fleet, findings, ['ana']));
  const x = decide(['ana'], summarize(fleet, reworded(findings), ['ana']));
  assert.deepEqual(x.proposal, v.proposal, 'rewording every detail and target must not move the proposal');
  assert.equal(x.status, v.status);
  return { v, summary: summarize(fleet, findings, ['ana']) };
}

test('seed 002: healthy with PORTS=[] proposes seat-unreachable, saying healthy inside and where to look', async () => {
  const f = await measuredContainer(bench.silent, { ports: {} });
  // The seat's own /health from outside is refused too: the container finding explains it.
  const own = seat(fleetOf(bench.silent), 'flash-next', transport('refused'));
  const { v, summary } = diagnose(bench.silent, [f, own]);
  assert.deepEqual(summary.containers.unreachable, [{ seat: 'flash-next', host: 'ana-ml2', container: 'flash-next-seat', site: 'ana', reason: 'not_published', health: 'healthy' }]);
  assert.equal(v.runbook, 'seat-unreachable');
  assert.deepEqual(v.proposal, { rule: 'seat-unreachable', runbook: 'seat-unreachable', sites: ['ana'] });
  assert.equal(v.status, 'down');
  assert.equal(v.headline, 'flash-next (flash-next-seat@ana-ml2): no port published for it — healthy inside its container, unreachable outside: check the port binding, not the healthcheck');
});

test('bound but not answering proposes seat-unreachable too', async () => {
  const f = await measuredContainer(bench.silent, { ports: PUBLISHED(bench.silent) });
  const { v } = diagnose(bench.silent, [f]);
  assert.equal(f.reason, 'not_answering');
  assert.equal(v.runbook, 'seat-unreachable');
  assert.match(v.headline, /its port is bound but does not answer/);
});

test('a crash loop alone (RestartCount 7) is a fact to show, not this runbook', async () => {
  const f = await measuredContainer(bench.listening, { restarts: 7, ports: PUBLISHED(bench.listening) });
  const { v, summary } = diagnose(bench.listening, [f]);
  assert.deepEqual(summary.containers.restarting, [{ seat: 'flash-next', host: 'ana-ml2', container: 'flash-next-seat', site: 'ana', restartCount: 7 }]);
  assert.deepEqual(summary.containers.unreachable, []);
  assert.equal(v.runbook, null);
  assert.equal(v.status, 'degraded');
  assert.deepEqual(v.lines, ['flash-next-seat@ana-ml2 (seat flash-next): RestartCount 7 — it keeps crashing and being restarted']);
});

test('a healthy, published, answering container proposes nothing', async () => {
  const f = await measuredContainer(bench.listening, { ports: PUBLISHED(bench.listening) });
  const { v, summary } = diagnose(bench.listening, [f]);
  assert.equal(summary.containers.total, 1);
  assert.equal(v.runbook, null);
  assert.equal(v.status, 'ok');
});
