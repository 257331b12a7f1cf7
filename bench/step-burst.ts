// 50 signed Done clicks at once on one step (everyone on call pressing it, or Slack retrying),
// through the real Bolt app with its SQLite journal: one is recorded, the others are told who was
// first. On the clock: each request to its ack, from a client process of its own. Paired in the
// same run with a bare node:http server answering the same 50 signed requests at once.
import { spawn } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Fleet } from '../src/inventory/fleet.ts';
import { parseInventory } from '../src/inventory/load.ts';
import { createSeatApp } from '../src/slack/app.ts';
import { bareServer, pct } from './ack.ts';
import { startSlackApi } from '../test/helpers/slack.ts';
import { buttonBody } from '../test/helpers/slack-incident.ts';

const SECRET = 'b1e2n3c4h5s6e7c8r9e0t1a2b3c4d5e6';
const CLICKS = 50;
const ROUNDS = 5;

async function burst(url: string, bodiesFile: string): Promise<number[]> {
  const child = spawn(process.execPath, [fileURLToPath(new URL('./burst-client.mjs', import.meta.url))], { env: { ...process.env, SEAT_BURST: JSON.stringify({ url, secret: SECRET, bodiesFile }) }, stdio: ['ignore', 'pipe', 'inherit'] });
  let out = '';
  child.stdout!.on('data', (d: Buffer) => (out += d.toString()));
  const code = await new Promise<number | null>((r) => child.on('close', r));
  if (code !== 0) throw new Error(`burst client exited ${code}`);
  return JSON.parse(out) as number[];
}

export async function benchStepBurst(): Promise<{ lines: string[] }> {
  const slack = await startSlackApi();
  const dir = await mkdtemp(join(tmpdir(), 'seatbelt-bench-burst-'));
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
  const bare = await bareServer();
  const ours: number[] = [];
  const base: number[] = [];
  let recorded = 0;
  try {
    for (let round = 0; round < ROUNDS; round++) {
      // One step per round, clicked 50 times at once: gpu-oom-cotenant's `sudo-compose` (a check: no modal).
      const o = await service.open({ site, title: `burst ${round}`, actor: { kind: 'system' } });
      if ('error' in o) throw new Error(o.error);
      const p = await service.pin(o.incident.id, 'gpu-oom-cotenant', { kind: 'system' });
      if ('error' in p) throw new Error(p.error);
      const value = JSON.stringify({ incident: o.incident.id, step: 'sudo-compose', version: 0 });
      const bodies = Array.from({ length: CLICKS }, (_, i) => buttonBody({ actionId: 'seat_step_done', value, ts: '1700000000.000001', responseUrl: `${slack.base}/response/burst`, triggerId: `burst.${round}.${i}` }));
      const file = join(dir, `bodies-${round}.json`);
      await writeFile(file, JSON.stringify(bodies));
      // Alternated, so neither side always runs on a warmer machine.
      if (round % 2 === 0) {
        ours.push(...(await burst(`http://127.0.0.1:${port}/slack/events`, file)));
        await seat.idle();
        base.push(...(await burst(`http://127.0.0.1:${bare.port}/slack/events`, file)));
      } else {
        base.push(...(await burst(`http://127.0.0.1:${bare.port}/slack/events`, file)));
        ours.push(...(await burst(`http://127.0.0.1:${port}/slack/events`, file)));
        await seat.idle();
      }
      recorded += (await service.deps.store.events(o.incident.id)).filter((e) => e.kind === 'step.done').length;
    }
    ours.sort((a, b) => a - b);
    base.sort((a, b) => a - b);
    const [p50, p99, b50, b99] = [pct(ours, 50), pct(ours, 99), pct(base, 50), pct(base, 99)];
    return {
      lines: [
        `step-burst: ${CLICKS} signed Done clicks at once on one step, ${ROUNDS} rounds: ack p50 ${p50.toFixed(1)} ms  p99 ${p99.toFixed(1)} ms`,
        `step-burst: bare node:http, the same requests at once:    p50 ${b50.toFixed(1)} ms  p99 ${b99.toFixed(1)} ms  → ${(p99 / b99).toFixed(2)}x (p99) the baseline (target ≤ 3x)`,
        `step-burst: ${recorded} of ${ROUNDS} steps recorded done, once each (the other clicks told who was first)`,
      ],
    };
  } finally {
    await seat.idle();
    await seat.stop();
    await bare.close();
    await slack.close();
    await rm(dir, { recursive: true, force: true });
  }
}
