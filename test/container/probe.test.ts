// The container probe against the drill's docker stand-in behind its ssh stand-in, answering from
// fixture files written per test into a temp folder, and a real loopback listener for the seat's port.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { ProbeMemory } from '../../src/probes/memory.ts';
import { DRILL_BIN } from '../../drills/drill.ts';
import { planProbe, runProbe } from '../../src/commands/probe.ts';
import { Fleet } from '../../src/inventory/fleet.ts';
import { planContainerTasks } from '../../src/probes/container/plan.ts';
import { ADDRESS, HOST, PUBLISHED, fleetOf, inspectJson, probe, probeEnv, probeHost, startBench, stateOf, type Bench, type InspectOptions } from './bench.ts';

let bench: Bench;
let listening: number;
let silent: number;
let fixture: Bench['fixture'];

before(async () => {
  bench = await startBench();
  ({ listening, silent, fixture } = bench);
});

after(async () => {
  await bench.stop();
});

test('one task per GPU host reached over ssh, asking docker once for all its seats’ containers, in the gpus group', async () => {
  const fleet = fleetOf(listening, '  vllm-embed: { host: ana-ml2, gpus: [1], port: 8011, container: vllm-embed, engine: other }');
  const tasks = planContainerTasks(fleet, { sites: ['ana'] }, probeEnv(null));
  // The `local` host (lab) is asked too, here, as its nvidia-smi is: never skipped in silence.
  assert.deepEqual(tasks.map((t) => [t.id, t.group, t.probe, t.target]), [
    [`containers:${HOST}`, 'gpus', 'container', HOST],
    ['containers:lab', 'gpus', 'container', 'lab'],
  ]);
  // Its timeout findings name every container: a host that does not answer still says what it held.
  assert.deepEqual(tasks[0]!.onTimeout(3000).map((f) => [f.target, f.status, f.reason]), [
    [`flash-next-seat@${HOST}`, 'unknown', 'timeout'],
    [`vllm-embed@${HOST}`, 'unknown', 'timeout'],
  ]);
  const findings = await tasks[0]!.run(new AbortController().signal);
  assert.equal(findings[0]?.measuredBy, `ssh -o BatchMode=yes -o ConnectTimeout=2 drill@${ADDRESS} docker inspect --type container flash-next-seat vllm-embed; tcp connect ${ADDRESS}:${listening}`);
  const planned = planProbe(fleetOf(listening), { site: 'ana', only: ['gpus'], timeoutMs: null, paid: false }, { env: {} });
  assert.ok(planned.tasks.some((t) => t.probe === 'container'), 'seat probe --only gpus asks the containers too');
  assert.ok(!planProbe(fleetOf(listening), { site: 'ana', only: ['aliases'], timeoutMs: null, paid: false }, { env: {} }).tasks.some((t) => t.probe === 'container'));
  const noGpu = fleetOf(listening).inventory;
  noGpu.sites.ana!.hosts['ana-ml2']!.gpuVendor = 'none';
  noGpu.sites.ana!.hosts.lab!.gpuVendor = 'none';
  assert.deepEqual(planContainerTasks(new Fleet(noGpu), { sites: ['ana'] }, probeEnv(null)), [], 'the group asks GPU hosts only');
});

test('healthy, published on the seat’s port, answering from here: up, every figure in the data', async () => {
  const fx = await fixture({ 'flash-next-seat.inspect': inspectJson({ ports: PUBLISHED(listening) }) });
  const f = await probe(fleetOf(listening), probeEnv(fx));
  assert.equal(f.status, 'up', f.detail);
  assert.equal(f.probe, 'container');
  assert.deepEqual(f.subject, { kind: 'container', host: HOST, seat: 'flash-next', container: 'flash-next-seat' });
  assert.deepEqual(stateOf(f), {
    host: HOST,
    seat: 'flash-next',
    container: 'flash-next-seat',
    port: listening,
    state: 'running',
    health: 'healthy',
    restartCount: 0,
    previousRestartCount: null,
    oomKilled: false,
    exitCode: 0,
    networkMode: 'bridge',
    ports: [
      { containerPort: 8000, proto: 'tcp', hostIp: '0.0.0.0', hostPort: listening },
      { containerPort: 8000, proto: 'tcp', hostIp: '::', hostPort: listening },
    ],
    published: true,
    answering: true,
  });
  assert.equal(f.detail, `healthy inside, 8000/tcp -> 0.0.0.0:${listening}, [::]:${listening}, ${ADDRESS}:${listening} answers`);
  assert.equal(f.measuredBy, `ssh -o BatchMode=yes -o ConnectTimeout=2 drill@${ADDRESS} docker inspect --type container flash-next-seat; tcp connect ${ADDRESS}:${listening}`);
  assert.equal(f.observedAt, '2026-12-03T03:00:00.000Z');
  assert.ok(!JSON.stringify(f).includes('hf_secret'), 'nothing of the container’s environment is kept');
});

test('seed 002: Up (healthy) with PORTS=[] — down not_published, whatever the healthcheck says', async () => {
  const fx = await fixture({ 'flash-next-seat.inspect': inspectJson({ ports: { '8000/tcp': null } }) });
  const f = await probe(fleetOf(silent), probeEnv(fx));
  assert.equal(f.status, 'down');
  assert.equal(f.reason, 'not_published');
  assert.equal(stateOf(f).health, 'healthy');
  assert.equal(stateOf(f).published, false);
  assert.deepEqual(stateOf(f).ports, []);
  assert.equal(f.detail, 'healthy inside, but no port published (PORTS=[]): nothing outside reaches it');
});

test('published on another port than the seat’s: not_published, and something else holding the seat’s port is said', async () => {
  const fx = await fixture({ 'flash-next-seat.inspect': inspectJson({ ports: { '8000/tcp': [{ HostIp: '0.0.0.0', HostPort: '8023' }] } }) });
  const f = await probe(fleetOf(listening), probeEnv(fx));
  assert.equal(f.reason, 'not_published');
  assert.equal(f.detail, `healthy inside, but published on 8000/tcp -> 0.0.0.0:8023, not on the seat's port ${listening}: nothing outside reaches it — something else answers on ${ADDRESS}:${listening}`);
});

test('port bound but nothing listening: down not_answering, with the connect error', async () => {
  const fx = await fixture({ 'flash-next-seat.inspect': inspectJson({ ports: { '8000/tcp': [{ HostIp: '0.0.0.0', HostPort: String(silent) }] } }) });
  const f = await probe(fleetOf(silent), probeEnv(fx));
  assert.equal(f.status, 'down');
  assert.equal(f.reason, 'not_answering');
  assert.equal(stateOf(f).published, true);
  assert.equal(stateOf(f).answering, false);
  assert.equal(f.detail, `healthy inside, 8000/tcp -> 0.0.0.0:${silent}, but ${ADDRESS}:${silent} does not answer from here (refused)`);
});

test('host network: nothing published and none needed; the connect decides', async () => {
  const fx = await fixture({ 'flash-next-seat.inspect': inspectJson({ network: 'host' }) });
  assert.equal((await probe(fleetOf(listening), probeEnv(fx))).status, 'up');
  const down = await probe(fleetOf(silent), probeEnv(fx));
  assert.equal(down.reason, 'not_answering');
});

test('seed 000: RestartCount 7 is shown; alone it is a crash loop (degraded restarting)', async () => {
  const fx = await fixture({ 'flash-next-seat.inspect': inspectJson({ restarts: 7, ports: PUBLISHED(listening) }) });
  const f = await probe(fleetOf(listening), probeEnv(fx));
  assert.equal(f.status, 'degraded');
  assert.equal(f.reason, 'restarting');
  assert.equal(stateOf(f).restartCount, 7);
  assert.match(f.detail, /; RestartCount 7: it keeps crashing and being restarted$/);

  // Compared with the last report: unchanged is not an alarm (but still shown), rising is.
  const same = await probe(fleetOf(listening), probeEnv(fx), [f]);
  assert.equal(same.status, 'up');
  assert.equal(stateOf(same).previousRestartCount, 7);
  assert.match(same.detail, /RestartCount 7, unchanged since the last probe, under a minute ago$/);
  const earlier = { ...f, data: { kind: 'container' as const, container: { ...stateOf(f), restartCount: 5 } } };
  const rising = await probe(fleetOf(listening), probeEnv(fx), [earlier]);
  assert.equal(rising.status, 'degraded');
  assert.equal(rising.reason, 'restarting');
  assert.match(rising.detail, /RestartCount 7, up from 5 at the last probe, under a minute ago/);

  // A count read over a day ago is not compared with: alone, 7 is a crash loop again.
  const env = probeEnv(fx);
  const stale = await probe(fleetOf(listening), env, [f], env.clock().getTime() - 25 * 3600_000);
  assert.equal(stale.reason, 'restarting');
  assert.match(stale.detail, /RestartCount 7: it keeps crashing/);
});

test('a few restarts alone are shown, not an alarm', async () => {
  const fx = await fixture({ 'flash-next-seat.inspect': inspectJson({ restarts: 2, network: 'host' }) });
  const f = await probe(fleetOf(listening), probeEnv(fx));
  assert.equal(f.status, 'up');
  assert.match(f.detail, /; RestartCount 2$/);
});

test('restarting, exited (OOM-killed), unhealthy, starting: each its own reason', async () => {
  const cases: [InspectOptions, string, string, RegExp][] = [
    [{ status: 'restarting', restarts: 7, exitCode: 137, oom: true }, 'down', 'restarting', /^docker is restarting it \(last exit code 137, OOM-killed\); RestartCount 7/],
    [{ status: 'exited', exitCode: 137, oom: true }, 'down', 'not_running', /^not running: exited \(last exit code 137, OOM-killed\)$/],
    [{ health: 'unhealthy', log: 'curl: (7) Failed to connect to localhost port 8000\n' }, 'down', 'unhealthy', /^running, its healthcheck fails \("curl: \(7\) Failed to connect to localhost port 8000"\)$/],
    [{ health: 'starting', network: 'host' }, 'degraded', 'starting', /^running, healthcheck still starting, host network/],
    [{ health: null, network: 'host' }, 'up', '', /^running \(no healthcheck\), host network/],
  ];
  for (const [o, status, reason, detail] of cases) {
    const f = await probe(fleetOf(listening), probeEnv(await fixture({ 'flash-next-seat.inspect': inspectJson(o) })));
    assert.equal(f.status, status, JSON.stringify(o));
    assert.equal(f.reason ?? '', reason);
    assert.match(f.detail, detail);
  }
});

test('no such container on the host: down no_container, the host’s other containers still judged; ssh that cannot connect: down unreachable', async () => {
  const fleet = fleetOf(listening, `  vllm-embed: { host: ana-ml2, gpus: [1], port: ${listening}, container: vllm-embed, engine: other }`);
  const fx = await fixture({ 'vllm-embed.inspect': inspectJson({ network: 'host' }).replace('/flash-next-seat', '/vllm-embed') });
  const [f, embed] = await probeHost(fleet, probeEnv(fx));
  assert.equal(f?.status, 'down');
  assert.equal(f?.reason, 'no_container');
  assert.equal(f?.detail, 'docker on ana-ml2 has no container flash-next-seat');
  assert.equal(embed?.target, `vllm-embed@${HOST}`);
  assert.equal(embed?.status, 'up');
  const gone = fleetOf(listening, '  gone-seat: { host: gone, gpus: [0], port: 8015, container: gone-seat, engine: other }');
  const [g] = await planContainerTasks(gone, { sites: ['ana'] }, probeEnv(null))
    .find((t) => t.host === 'gone')!
    .run(new AbortController().signal);
  assert.equal(g?.status, 'down');
  assert.equal(g?.reason, 'unreachable');
  assert.match(g?.detail ?? '', /^ssh to ops@127\.0\.2\.99 failed: ssh: connect to host/);
});

test('docker’s own failures: permission on the socket, daemon down, missing docker', async () => {
  const cases: [Record<string, string>, string, RegExp][] = [
    [{ 'inspect.err': 'permission denied while trying to connect to the Docker daemon socket at unix:///var/run/docker.sock: Get "http://%2Fvar%2Frun%2Fdocker.sock/v1.47/containers/json": dial unix /var/run/docker.sock: connect: permission denied\n', 'inspect.exit': '1' }, 'no_permission', /^the ssh user may not use docker on ana-ml2: permission denied/],
    [{ 'inspect.err': 'Cannot connect to the Docker daemon at unix:///var/run/docker.sock. Is the docker daemon running?\n', 'inspect.exit': '1' }, 'tool_failed', /^docker daemon not reachable on ana-ml2: Cannot connect to the Docker daemon/],
    [{ 'inspect.err': 'bash: line 1: docker: command not found\n', 'inspect.exit': '127' }, 'tool_missing', /^docker not found on PATH on ana-ml2/],
  ];
  for (const [files, reason, detail] of cases) {
    const f = await probe(fleetOf(listening), probeEnv(await fixture(files)));
    assert.equal(f.status, 'unknown');
    assert.equal(f.reason, reason);
    assert.match(f.detail, detail);
  }
});

test('the drill’s defaults: host network, answering; seed 000’s vllm-embed with RestartCount 7', async () => {
  const fleet = fleetOf(listening, `  vllm-embed: { host: ana-ml2, gpus: [1], port: ${listening}, container: vllm-embed, engine: other }`);
  const findings = (await Promise.all(planContainerTasks(fleet, { sites: ['ana'] }, probeEnv(null)).map((t) => t.run(new AbortController().signal)))).flat();
  const byTarget = Object.fromEntries(findings.map((f) => [f.target, f]));
  assert.equal(byTarget[`flash-next-seat@${HOST}`]?.status, 'up');
  assert.equal(byTarget[`vllm-embed@${HOST}`]?.reason, 'restarting');
  assert.match(byTarget[`vllm-embed@${HOST}`]?.detail ?? '', /RestartCount 7/);
});

test('seat probe passes the last report’s findings in: an unchanged RestartCount 7 is shown, not alarmed', async () => {
  const fleet = fleetOf(listening, `  vllm-embed: { host: ana-ml2, gpus: [1], port: ${listening}, container: vllm-embed, engine: other }`);
  const deps = { env: { PATH: process.env.PATH ?? '/usr/bin:/bin' }, pathPrefix: [DRILL_BIN] };
  const first = await runProbe(fleet, { site: 'ana', only: ['gpus'], timeoutMs: 3000, paid: false }, deps);
  const embed = (r: typeof first) => r.findings.find((f) => f.target === `vllm-embed@${HOST}`)!;
  assert.equal(embed(first).reason, 'restarting');
  assert.deepEqual(first.summary.containers.restarting.map((c) => [c.container, c.restartCount]), [['vllm-embed', 7]]);
  const again = await runProbe(fleet, { site: 'ana', only: ['gpus'], timeoutMs: 3000, paid: false }, { ...deps, memory: ProbeMemory.of(first.findings) });
  assert.equal(embed(again).status, 'up');
  assert.match(embed(again).detail, /RestartCount 7, unchanged since the last probe, under a minute ago$/);
});
