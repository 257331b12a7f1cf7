// SIGTERM to a real `seat bot` process: acks stop (/readyz 503, POST /alertmanager 503), the probe in
// flight (an alert's, held by a gateway that never answers) gets the bound, the bot says what was not
// recorded, its probe process is killed, and it exits 0 within the bound and a margin. Its stdout is
// not a terminal: JSON lines, without the token.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startSlackApi } from '../helpers/slack.ts';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const TOKEN = 'am-token-0123456789abcdef0123456789';
const KEY = 'sk-sigterm-gateway-0123456789';
const BOUND_MS = 2000;

/** The processes whose parent is `pid` (from /proc). */
function children(pid: number): number[] {
  const out: number[] = [];
  for (const d of readdirSync('/proc')) {
    if (!/^\d+$/.test(d)) continue;
    try {
      const stat = readFileSync(`/proc/${d}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      if (ppid === pid) out.push(Number(d));
    } catch {
      // gone meanwhile
    }
  }
  return out;
}

async function waitFor<T>(what: string, f: () => T | null | Promise<T | null>, ms = 60_000, log = (): string => ''): Promise<T> {
  const end = performance.now() + ms;
  for (;;) {
    const v = await f();
    if (v !== null) return v;
    if (performance.now() > end) throw new Error(`gave up waiting for ${what}\n${log().slice(-3000)}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

test('SIGTERM: acks stop, the probe in flight gets the bound and is killed, the bot exits 0 in time', { skip: existsSync('/proc/self/stat') ? false : 'needs /proc', timeout: 120_000 }, async () => {
  const slack = await startSlackApi();
  // A gateway that takes the connection and never answers: the alert's probe stays in flight.
  const held: Socket[] = [];
  const gateway = createServer((s) => void held.push(s));
  await new Promise<void>((r) => gateway.listen(0, '127.0.0.1', r));
  const gwPort = (gateway.address() as { port: number }).port;
  const dir = await mkdtemp(join(tmpdir(), 'seatbelt-sigterm-'));
  const inv = join(dir, 'fleet.yaml');
  await writeFile(inv, `
oncall: { users: [U0ONCALL01], channels: [C0ALERTS] }
settings: { probeTimeoutMs: 60000, deadlineMs: 120000 }
gateway: { baseUrl: 'http://127.0.0.1:${gwPort}', keys: { admin: { env: SEAT_SIGTERM_KEY } } }
sites: { fv: { hosts: { fv-ml1: { address: 127.0.0.1, gpuVendor: none } } } }
aliases: { gen: { kind: chat, backend: { name: lab, paid: false } } }
`);
  let err = '';
  let out = '';
  const env = { PATH: process.env.PATH ?? '', HOME: dir, SLACK_BOT_TOKEN: 'xoxb-1111-2222-good', SLACK_SIGNING_SECRET: '1234567890abcdef1234567890abcdef', PORT: '0', SLACK_API_URL: slack.url, SEAT_JOURNAL: join(dir, 'journal.sqlite'), SEAT_HTTP_LISTEN: '127.0.0.1:0', SEAT_PROBE_MEMORY: 'off', SEAT_ALERTMANAGER_TOKEN: TOKEN, SEAT_SIGTERM_KEY: KEY, SEAT_STOP_BOUND_MS: String(BOUND_MS) };
  const child = spawn(process.execPath, ['--import', 'tsx', join(ROOT, 'src/cli/main.ts'), 'bot', '--inventory', inv], { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
  child.stdout.on('data', (b: Buffer) => void (out += b.toString()));
  child.stderr.on('data', (b: Buffer) => void (err += b.toString()));
  const exited = new Promise<{ code: number | null; at: number }>((r) => child.once('exit', (code) => r({ code, at: performance.now() })));
  try {
    const port = await waitFor('the operations port', () => /operations on http:\/\/127\.0\.0\.1:(\d+)/.exec(err)?.[1] ?? null, 60_000, () => err);
    await waitFor('running', () => (err.includes('running on') ? true : null), 60_000, () => err);
    const ops = `http://127.0.0.1:${port}`;
    assert.equal((await fetch(`${ops}/readyz`)).status, 200);
    const body = JSON.stringify({ version: '4', groupKey: 'g1', status: 'firing', alerts: [{ status: 'firing', labels: { alertname: 'FvDown', site: 'fv' }, annotations: {}, startsAt: new Date().toISOString(), endsAt: '0001-01-01T00:00:00Z', fingerprint: 'ab' }] });
    const post = (): Promise<Response> => fetch(`${ops}/alertmanager`, { method: 'POST', headers: { authorization: `Bearer ${TOKEN}` }, body });
    assert.equal((await post()).status, 200);
    await waitFor('the probe at the gateway', () => (held.length > 0 ? true : null), 60_000, () => err);
    const probeProcs = children(child.pid!);
    assert.ok(probeProcs.length > 0, 'the bot runs its probes in a process of its own');
    const sent = performance.now();
    child.kill('SIGTERM');
    await waitFor('/readyz 503', async () => ((await fetch(`${ops}/readyz`).then((r) => r.status, () => 0)) === 503 ? true : null), 5000);
    assert.equal((await post().then((r) => r.status, () => 0)), 503, 'Alertmanager is told to send it again later');
    const { code, at } = await exited;
    assert.equal(code, 0, err);
    assert.ok(at - sent < BOUND_MS + 8000, `exited ${Math.round(at - sent)} ms after SIGTERM`);
    assert.match(err, /the work in flight did not finish within 2 s: what it had not recorded is not recorded/);
    for (const pid of probeProcs) assert.ok(!existsSync(`/proc/${pid}`) || readFileSync(`/proc/${pid}/stat`, 'utf8').includes(') Z '), `probe process ${pid} was killed`);
    const lines = out.trim().split('\n').map((l) => JSON.parse(l) as { event: string; finished?: boolean });
    assert.ok(lines.some((l) => l.event === 'bot.stopping' && l.finished === false), out);
    for (const s of [TOKEN, KEY, 'xoxb-1111-2222-good']) assert.ok(!out.includes(s) && !err.includes(s), 'no secret in the log');
  } finally {
    if (child.exitCode === null) child.kill('SIGKILL');
    for (const s of held) s.destroy();
    gateway.close();
    await slack.close();
    await rm(dir, { recursive: true, force: true });
  }
});
