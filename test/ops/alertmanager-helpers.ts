// A real Alertmanager (Debian's prometheus-alertmanager) on loopback, with a config the test writes:
// one route to the bot's POST /alertmanager with the bearer token, short group_wait and intervals,
// no cluster listener (it would bind 0.0.0.0:9094).
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export const ALERTMANAGER = process.env.SEAT_ALERTMANAGER_BIN ?? '/usr/bin/prometheus-alertmanager';

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
  });
}

export interface RunningAlertmanager {
  base: string;
  log(): string;
  /** POST /api/v2/alerts: the alerts as Alertmanager's API takes them. */
  post(alerts: { labels: Record<string, string>; annotations?: Record<string, string>; startsAt?: string; endsAt?: string }[]): Promise<number>;
  stop(): Promise<void>;
}

export async function startAlertmanager(o: { webhook: string; token: string; repeatInterval?: string }): Promise<RunningAlertmanager> {
  const dir = await mkdtemp(join(tmpdir(), 'seatbelt-am-'));
  const port = await freePort();
  const config = [
    'route:',
    '  receiver: seatbelt',
    "  group_by: ['alertname', 'site']",
    '  group_wait: 1s',
    '  group_interval: 1s',
    `  repeat_interval: ${o.repeatInterval ?? '1h'}`,
    'receivers:',
    '  - name: seatbelt',
    '    webhook_configs:',
    `      - url: '${o.webhook}'`,
    '        send_resolved: true',
    '        http_config:',
    '          authorization:',
    '            type: Bearer',
    `            credentials: '${o.token}'`,
    '',
  ].join('\n');
  await writeFile(join(dir, 'alertmanager.yml'), config);
  let out = '';
  const child: ChildProcess = spawn(ALERTMANAGER, [`--config.file=${join(dir, 'alertmanager.yml')}`, `--storage.path=${join(dir, 'data')}`, `--web.listen-address=127.0.0.1:${port}`, '--cluster.listen-address=', '--log.level=warn'], { stdio: ['ignore', 'pipe', 'pipe'], env: { PATH: process.env.PATH ?? '' } });
  child.stdout?.on('data', (b: Buffer) => void (out += b.toString()));
  child.stderr?.on('data', (b: Buffer) => void (out += b.toString()));
  const exited = new Promise((done) => child.once('exit', done));
  const base = `http://127.0.0.1:${port}`;
  const end = performance.now() + 20_000;
  for (;;) {
    const ready = await fetch(`${base}/-/ready`).then((r) => r.ok, () => false);
    if (ready) break;
    if (child.exitCode !== null || performance.now() > end) {
      child.kill('SIGKILL');
      throw new Error(`Alertmanager did not start:\n${out.slice(-2000)}`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  return {
    base,
    log: () => out,
    post: async (alerts) => (await fetch(`${base}/api/v2/alerts`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(alerts) })).status,
    stop: async () => {
      child.kill('SIGTERM');
      const killer = setTimeout(() => child.kill('SIGKILL'), 10_000);
      await exited;
      clearTimeout(killer);
      await rm(dir, { recursive: true, force: true });
    },
  };
}
