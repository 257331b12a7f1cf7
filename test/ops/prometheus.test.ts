// A real Prometheus (Debian's) scrapes /metrics on loopback; PromQL through its HTTP API returns the
// drill's numbers: fv's aliases probe_success 0 for the admin key, GPU 2's free bytes.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startBotOps } from '../../src/ops/ops.ts';
import { drillFleet, fvFindings, reportOf } from './fixture.ts';

const PROMETHEUS = process.env.SEAT_PROMETHEUS ?? '/usr/bin/prometheus';
const DEADLINE_MS = 30_000;

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
  });
}

interface Vector {
  metric: Record<string, string>;
  value: [number, string];
}

async function query(base: string, promql: string): Promise<Vector[] | null> {
  try {
    const res = await fetch(`${base}/api/v1/query?query=${encodeURIComponent(promql)}`, { signal: AbortSignal.timeout(5000) });
    if (!res.ok) return null;
    const body = (await res.json()) as { status: string; data?: { resultType: string; result: Vector[] } };
    return body.status === 'success' && body.data?.resultType === 'vector' ? body.data.result : null;
  } catch {
    return null; // not up yet
  }
}

/** Polls until the query returns samples, within a deadline; null when it never did. */
async function until(base: string, promql: string, child: ChildProcess): Promise<Vector[] | null> {
  const end = performance.now() + DEADLINE_MS;
  while (performance.now() < end && child.exitCode === null) {
    const r = await query(base, promql);
    if (r && r.length > 0) return r;
    await new Promise((done) => setTimeout(done, 200));
  }
  return null;
}

test('Prometheus scrapes the listener: probe_success{site="fv"} and seat_gpu_free_bytes are what the probe measured', { skip: existsSync(PROMETHEUS) ? false : `${PROMETHEUS} is not installed (apt-get install prometheus)`, timeout: 90_000 }, async () => {
  const fleet = await drillFleet();
  const ops = await startBotOps(fleet, { env: { SEAT_HTTP_LISTEN: '127.0.0.1:0' }, journalPath: '/tmp/unused.sqlite' });
  assert.ok(ops.ok && ops.value.listener);
  ops.value.record(reportOf('fv', fvFindings()));
  const dir = await mkdtemp(join(tmpdir(), 'seatbelt-prom-'));
  const port = await freePort();
  await writeFile(
    join(dir, 'prometheus.yml'),
    `global:\n  scrape_interval: 1s\n  evaluation_interval: 1s\nscrape_configs:\n  - job_name: seatbelt\n    static_configs:\n      - targets: ['127.0.0.1:${ops.value.listener.port}']\n`,
  );
  let log = '';
  const child = spawn(PROMETHEUS, [`--config.file=${join(dir, 'prometheus.yml')}`, `--storage.tsdb.path=${join(dir, 'data')}`, `--web.listen-address=127.0.0.1:${port}`, '--log.level=warn'], { stdio: ['ignore', 'pipe', 'pipe'], env: { PATH: process.env.PATH ?? '' } });
  child.stdout?.on('data', (b: Buffer) => void (log += b.toString()));
  child.stderr?.on('data', (b: Buffer) => void (log += b.toString()));
  const exited = new Promise((done) => child.once('exit', done));
  const base = `http://127.0.0.1:${port}`;
  try {
    const aliases = await until(base, 'probe_success{site="fv",kind="alias"}', child);
    assert.ok(aliases, `Prometheus returned no fv alias sample within ${DEADLINE_MS} ms:\n${log.slice(-2000)}`);
    const byAlias = Object.fromEntries(aliases.map((v) => [`${v.metric.target}/${v.metric.key}`, v.value[1]]));
    assert.deepEqual(byAlias, { 'gen/admin': '0', 'coder/admin': '0' });
    assert.equal(aliases[0]?.metric.job, 'seatbelt');
    const gpu = await until(base, 'seat_gpu_free_bytes{host="fv-ml1",gpu="2"}', child);
    assert.equal(gpu?.[0]?.value[1], String(1979 * 1024 * 1024));
    const battery = await until(base, 'seat_ups_on_battery{site="fv"}', child);
    assert.equal(battery?.[0]?.value[1], '1');
    // Not measured is absent: nothing for GPU 3 (tool_missing) nor the unset shared key.
    assert.deepEqual(await query(base, 'seat_gpu_free_bytes{gpu="3"} or probe_success{key="shared"}'), []);
  } finally {
    child.kill('SIGTERM');
    const killer = setTimeout(() => child.kill('SIGKILL'), 10_000);
    await exited;
    clearTimeout(killer);
    await ops.value.close();
    await rm(dir, { recursive: true, force: true });
  }
});
