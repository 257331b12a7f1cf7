// Alerts and scrapes, paired in the same run on the same 3,000-alias fleet (a loopback LiteLLM
// stand-in answering each alias in 20 ms):
//   - an Alertmanager webhook's arrival at POST /alertmanager → the report posted in the alert
//     channel, against `/seat probe fv` (signed, over the real Bolt app) → its final report, in turns;
//   - a /metrics scrape over HTTP after that probe, against prom-client serialising the same
//     registry alone (registry.metrics()).
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startGateway } from '../drills/litellm.ts';
import { Fleet } from '../src/inventory/fleet.ts';
import { parseInventory } from '../src/inventory/load.ts';
import { prepareBotWiring } from '../src/ops/bot-wiring.ts';
import { startBotOps } from '../src/ops/ops.ts';
import { createSeatApp } from '../src/slack/app.ts';
import { signedPost, slashCommandBody, startSlackApi } from '../test/helpers/slack.ts';
import { median, spread } from './probe-fleet.ts';

const KEY = 'sk-alert-bench-0123456789';
const TOKEN = 'am-bench-token-0123456789abcdef';
const SECRET = '1234567890abcdef1234567890abcdef';
const ALIASES = 3000;
const PAIRS = 7;
const SCRAPES = 50;
const QUIET = { debug() {}, info() {}, warn() {}, error() {}, setLevel() {}, getLevel: () => 'error' as never, setName() {} };

export async function benchAlert(): Promise<{ lines: string[] }> {
  const names = Array.from({ length: ALIASES }, (_, i) => `a${String(i).padStart(5, '0')}`);
  const gateway = await startGateway({ keys: { admin: KEY }, aliases: Object.fromEntries(names.map((n) => [n, { mode: 'slow' as const, delayMs: 20 }])), record: false });
  const slack = await startSlackApi();
  const dir = await mkdtemp(join(tmpdir(), 'seatbelt-bench-alert-'));
  const inv = parseInventory(`
oncall: { users: [U0ONCALL01], channels: [C0ALERTS] }
settings: { probeTimeoutMs: 3000, deadlineMs: 30000, concurrency: 128 }
gateway: { baseUrl: ${gateway.url}, keys: { admin: { env: SEAT_ALERT_BENCH_KEY } } }
sites: { fv: { hosts: { fv-ml1: { address: 127.0.0.1, gpuVendor: none } } } }
aliases:
${names.map((a) => `  ${a}: { kind: chat, backend: { name: local, paid: false } }`).join('\n')}
`);
  if (!inv.ok) throw new Error(inv.errors.join('\n'));
  const fleet = new Fleet(inv.value);
  const env = { SEAT_ALERTMANAGER_TOKEN: TOKEN, SEAT_HTTP_LISTEN: '127.0.0.1:0', SEAT_ALERT_BENCH_KEY: KEY };
  const wiring = prepareBotWiring(fleet, { env });
  if (!wiring.ok) throw new Error(wiring.error);
  const ops = await startBotOps(fleet, { env, journalPath: join(dir, 'journal.sqlite'), alertmanager: wiring.value.alertmanager });
  if (!ops.ok || !ops.value.listener) throw new Error(ops.ok ? 'no listener' : ops.error);
  const seat = createSeatApp({ fleet, config: { botToken: 'xoxb-bench-0000000000', mode: { kind: 'http', signingSecret: SECRET, port: 0 }, slackApiUrl: slack.url }, probeDeps: { env: { SEAT_ALERT_BENCH_KEY: KEY } }, probeThread: 'process', onReport: ops.value.record, logger: QUIET, tokenVerification: false });
  const port = await seat.start();
  wiring.value.attach(seat);
  ops.value.setSlackConnected(true);
  const opsBase = `http://127.0.0.1:${ops.value.listener.port}`;
  const alertMs: number[] = [];
  const probeMs: number[] = [];
  try {
    const alert = async (i: number): Promise<number> => {
      const name = `BenchAlert${i}`;
      const body = JSON.stringify({ version: '4', groupKey: `bench-${i}`, status: 'firing', alerts: [{ status: 'firing', labels: { alertname: name, site: 'fv' }, annotations: { summary: 'bench' }, startsAt: new Date().toISOString(), endsAt: '0001-01-01T00:00:00Z', fingerprint: 'be' }] });
      const t0 = performance.now();
      const res = await fetch(`${opsBase}/alertmanager`, { method: 'POST', headers: { authorization: `Bearer ${TOKEN}` }, body });
      if (res.status !== 200) throw new Error(`the webhook got ${res.status}`);
      await slack.waitFor((s) => s.calls.some((c) => c.method === 'chat.postMessage' && String(c.args.text).includes(name)), 60_000);
      return slack.calls.find((c) => c.method === 'chat.postMessage' && String(c.args.text).includes(name))!.at - t0;
    };
    const probe = async (i: number): Promise<number> => {
      const mark = slack.calls.length;
      const t0 = performance.now();
      await signedPost(`http://127.0.0.1:${port}/slack/events`, slashCommandBody({ text: 'probe fv', channel: 'C0ALERTS', responseUrl: `${slack.base}/response/bench`, triggerId: `bench.${i}` }), { secret: SECRET });
      await seat.idle();
      const last = slack.calls.slice(mark).filter((c) => c.method === 'chat.update' || c.method === 'chat.postMessage').at(-1);
      if (!last) throw new Error('no report posted');
      return last.at - t0;
    };
    await alert(-1);
    await probe(-1);
    for (let i = 0; i < PAIRS; i++) {
      if (i % 2 === 0) {
        alertMs.push(await alert(i));
        probeMs.push(await probe(i));
      } else {
        probeMs.push(await probe(i));
        alertMs.push(await alert(i));
      }
    }
    // The scrape: over HTTP, against prom-client alone on the same registry.
    const scrape: number[] = [];
    const alone: number[] = [];
    let bytes = 0;
    for (let i = 0; i < SCRAPES; i++) {
      let t0 = performance.now();
      bytes = (await (await fetch(`${opsBase}/metrics`)).text()).length;
      scrape.push(performance.now() - t0);
      t0 = performance.now();
      await ops.value.metrics.registry.metrics();
      alone.push(performance.now() - t0);
    }
    const a = median(alertMs);
    const p = median(probeMs);
    const s = median(scrape.slice(5));
    const r = median(alone.slice(5));
    return {
      lines: [
        `alert:     webhook → report posted ${spread(alertMs, 0, ' ms')} vs /seat probe fv → its report ${spread(probeMs, 0, ' ms')} (${ALIASES} aliases, ${PAIRS} pairs in turns): ${(a / p).toFixed(3)}x (bound 1.05x)`,
        `alert:     /metrics scrape over HTTP median ${s.toFixed(2)} ms (${(bytes / 1024).toFixed(0)} KiB) vs prom-client serialising the same registry alone ${r.toFixed(2)} ms: ${(s / r).toFixed(2)}x (goal < 50 ms)`,
      ],
    };
  } finally {
    await wiring.value.stop(seat, { ops: ops.value, say: () => {} });
    await slack.close();
    await gateway.stop();
    await rm(dir, { recursive: true, force: true });
  }
}
