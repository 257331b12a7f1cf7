// Step click benchmark: a signed Done click on a step through the real Bolt app, with a real SQLite
// journal (WAL, synchronous=FULL) behind it. On the clock: the HTTP request to its ack, measured
// by a client in its own process; the decision (guardrails, compare-and-set, commit) and the thread
// message's update happen after the ack and are checked for, not timed. Beside it: a bare node:http
// server answering the same bodies.
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Fleet } from '../src/inventory/fleet.ts';
import { parseInventory } from '../src/inventory/load.ts';
import { createSeatApp } from '../src/slack/app.ts';
import { bareServer, clientSeries, pct } from './ack.ts';
import { startSlackApi } from '../test/helpers/slack.ts';
import { buttonBody } from '../test/helpers/slack-incident.ts';

const SECRET = 'b1e2n3c4h5s6e7c8r9e0t1a2b3c4d5e6';
const N = 300;
const WARMUP = 30;

export async function benchStepAck(): Promise<{ lines: string[] }> {
  const slack = await startSlackApi();
  const dir = await mkdtemp(join(tmpdir(), 'seatbelt-bench-step-'));
  const r = parseInventory(await readFile(new URL('../examples/fleet.yaml', import.meta.url), 'utf8'));
  if (!r.ok) throw new Error(r.errors.join('\n'));
  const inv = structuredClone(r.value);
  inv.oncall.users = ['U0ONCALL01'];
  inv.oncall.channels = ['C0INCIDENT'];
  const seat = createSeatApp({
    fleet: new Fleet(inv),
    config: { botToken: 'xoxb-bench-0000000000', mode: { kind: 'http', signingSecret: SECRET, port: 0 }, slackApiUrl: slack.url },
    logger: { debug() {}, info() {}, warn() {}, error() {}, setLevel() {}, getLevel: () => 'error' as never, setName() {} },
    journal: join(dir, 'journal.sqlite'),
  });
  const port = await seat.start();
  const service = seat.incidents!;
  const site = Object.keys(inv.sites)[0]!;
  // One incident per click, gpu-oom-cotenant pinned: each click decides its own `sudo-compose` (a check: no modal).
  const bodies: string[] = [];
  for (let i = 0; i < WARMUP + N; i++) {
    const o = await service.open({ site, title: `bench ${i}`, actor: { kind: 'system' } });
    if ('error' in o) throw new Error(o.error);
    const p = await service.pin(o.incident.id, 'gpu-oom-cotenant', { kind: 'system' });
    if ('error' in p) throw new Error(p.error);
    bodies.push(buttonBody({ actionId: 'seat_step_done', value: JSON.stringify({ incident: o.incident.id, step: 'sudo-compose', version: 0 }), ts: `1700000000.${String(i).padStart(6, '0')}`, responseUrl: `${slack.base}/response/bench`, triggerId: `bench.step.${i}` }));
  }
  const bare = await bareServer();
  const barePort = bare.port;
  try {
    const bodiesFile = join(dir, 'bodies.json');
    await writeFile(bodiesFile, JSON.stringify(bodies));
    const clicks = await clientSeries({ url: `http://127.0.0.1:${port}/slack/events`, bodiesFile, secret: SECRET, warmup: WARMUP, n: N, gapMs: 25 });
    await seat.idle();
    const base = await clientSeries({ url: `http://127.0.0.1:${barePort}/slack/events`, bodiesFile, secret: SECRET, warmup: WARMUP, n: N, gapMs: 25 });
    let committed = 0;
    for (let i = 1; i <= WARMUP + N; i++) if ((await service.view(i))?.steps.find((s) => s.spec.id === 'sudo-compose')?.state.state === 'done') committed++;
    const updates = slack.calls.filter((c) => c.method === 'chat.update').length;
    const [p50, p99] = [pct(clicks, 50), pct(clicks, 99)];
    const [b50, b99] = [pct(base, 50), pct(base, 99)];
    return {
      lines: [
        `step: Done click acked  p50 ${p50.toFixed(2)} ms  p99 ${p99.toFixed(2)} ms over ${N} signed clicks, 25 ms apart (target p99 < 10 ms; the decision commits after the ack)`,
        `step: bare node:http    p50 ${b50.toFixed(2)} ms  p99 ${b99.toFixed(2)} ms  → ${(p50 / b50).toFixed(2)}x (p50), ${(p99 / b99).toFixed(2)}x (p99) the baseline`,
        `step: ${committed} of ${WARMUP + N} clicks committed as step.done (synchronous=FULL), ${updates} step messages updated in place after their commit`,
      ],
    };
  } finally {
    await seat.stop();
    await bare.close();
    await slack.close();
    await rm(dir, { recursive: true, force: true });
  }
}
