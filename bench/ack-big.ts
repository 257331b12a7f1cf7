// Acks behind a big probe: `/seat probe` asked again and again (the first starts a probe of 3,000
// aliases; the next join it while it runs, said on the ack, or start the next once it is done), with
// the probes in-process, in a worker thread, and in a process of their own (commands/probe-thread.ts;
// the process is what `seat bot` runs), in turn. The gateway (3,000 aliases
// answering in 20 ms) and Slack's stand-in live in a process of their own, as they do for real.
// On the clock: one client's request (its own process, 10 ms between requests) to the end of the
// answer. Off the clock, on the bot's loop or not: planning 3,000 tasks, their requests, the report.
import { spawn } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Fleet } from '../src/inventory/fleet.ts';
import { parseInventory } from '../src/inventory/load.ts';
import { createSeatApp } from '../src/slack/app.ts';
import { slashCommandBody } from '../test/helpers/slack.ts';
import { clientSeries, pct } from './ack.ts';
import { median } from './probe-fleet.ts';

const SECRET = 'b1e2n3c4h5s6e7c8r9e0t1a2b3c4d5e6';
const KEY = 'sk-big-0123456789';
const ALIASES = 3000;
const ASKS = 300;
const GAP_MS = 10;
const ROUNDS = 3;
const MODES = ['in-process', 'thread', 'process'] as const;
type Mode = (typeof MODES)[number];
const QUIET = { debug() {}, info() {}, warn() {}, error() {}, setLevel() {}, getLevel: () => 'error' as never, setName() {} };

export async function benchAckBig(): Promise<{ lines: string[] }> {
  const names = Array.from({ length: ALIASES }, (_, i) => `a${String(i).padStart(5, '0')}`);
  const peers = await peersInTheirOwnProcess(names);
  const dir = await mkdtemp(join(tmpdir(), 'seatbelt-bench-big-'));
  try {
    const inv = parseInventory(`
oncall: { users: [U0ONCALL01], channels: [C0BIG] }
gateway: { baseUrl: ${peers.gateway}, keys: { admin: { env: SEAT_BIG_KEY } } }
sites: { fv: { hosts: { fv-ml1: { address: 127.0.0.1, gpuVendor: none } } } }
aliases:
${names.map((a) => `  ${a}: { kind: chat, backend: { name: local, paid: false } }`).join('\n')}
`);
    if (!inv.ok) throw new Error(inv.errors.join('\n'));
    const fleet = new Fleet(inv.value);
    const got: Record<Mode, { p50: number; p99: number; max: number }[]> = { 'in-process': [], thread: [], process: [] };
    for (let round = 0; round < ROUNDS; round++) {
      // Which goes first turns with the round.
      for (const mode of [...MODES.slice(round % MODES.length), ...MODES.slice(0, round % MODES.length)]) {
        const seat = createSeatApp({
          fleet,
          config: { botToken: 'xoxb-bench-0000000000', mode: { kind: 'http', signingSecret: SECRET, port: 0 }, slackApiUrl: peers.slack },
          probeDeps: { env: { SEAT_BIG_KEY: KEY } },
          probeThread: mode === 'in-process' ? false : mode,
          logger: QUIET,
        });
        const port = await seat.start();
        try {
          // The first ask starts the probe; every later one joins it and is told so on the ack.
          const bodies = Array.from({ length: ASKS + 1 }, (_, i) =>
            slashCommandBody({ text: 'probe fv --only aliases', channel: 'C0BIG', responseUrl: `${peers.base}/response/big`, triggerId: `big.${round}.${mode}.${i}` }),
          );
          const file = join(dir, `bodies-${round}-${mode}.json`);
          await writeFile(file, JSON.stringify(bodies));
          const ms = await clientSeries({ url: `http://127.0.0.1:${port}/slack/events`, secret: SECRET, bodiesFile: file, warmup: 1, gapMs: GAP_MS });
          got[mode].push({ p50: pct(ms, 50), p99: pct(ms, 99), max: ms[ms.length - 1] ?? NaN });
          await seat.idle();
        } finally {
          await seat.stop();
        }
      }
    }
    const s = (xs: number[]): string => {
      const sorted = [...xs].sort((a, b) => a - b);
      return `${sorted[0]!.toFixed(1)}/${sorted[Math.floor(sorted.length / 2)]!.toFixed(1)}/${sorted.at(-1)!.toFixed(1)}`;
    };
    const line = (mode: Mode): string =>
      `ack-big:   probes ${mode.padEnd(10)}  p50 ${s(got[mode].map((x) => x.p50))} ms  p99 ${s(got[mode].map((x) => x.p99))} ms  max ${s(got[mode].map((x) => x.max))} ms`;
    const cut = (mode: Mode): string => (median(got['in-process'].map((x) => x.p99)) / median(got[mode].map((x) => x.p99))).toFixed(1);
    return {
      lines: [
        `ack-big: /seat probe acked while a probe of ${ALIASES.toLocaleString('en-US')} aliases (20 ms answers) runs behind; one client, ${ASKS} asks ${GAP_MS} ms apart, joining the running probe or starting the next; ${ROUNDS} rounds, in-process, in a thread and in a process in turn (min/median/max over rounds)`,
        line('in-process'),
        line('thread'),
        line('process'),
        `ack-big:   off the acking loop the p99 is ${cut('thread')}x lower in a thread, ${cut('process')}x in a process (as \`seat bot\` runs): planning, 3,000 requests and the report no longer hold the loop that acks`,
      ],
    };
  } finally {
    await rm(dir, { recursive: true, force: true });
    await peers.close();
  }
}

/** The LiteLLM stand-in with every alias answering in 20 ms, and Slack's, in a child process. */
async function peersInTheirOwnProcess(names: string[]): Promise<{ slack: string; base: string; gateway: string; close(): Promise<void> }> {
  const slackHelper = new URL('../test/helpers/slack.ts', import.meta.url).href;
  const litellm = new URL('../drills/litellm.ts', import.meta.url).href;
  const code = `
    const { startSlackApi } = await import(${JSON.stringify(slackHelper)});
    const { startGateway } = await import(${JSON.stringify(litellm)});
    const slack = await startSlackApi();
    const aliases = Object.fromEntries(${JSON.stringify(names)}.map((a) => [a, { mode: 'slow', delayMs: 20 }]));
    const gateway = await startGateway({ keys: { admin: ${JSON.stringify(KEY)} }, aliases });
    process.send({ slack: slack.url, base: slack.base, gateway: gateway.url });
    process.on('disconnect', () => process.exit(0));
  `;
  const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', code], { stdio: ['ignore', 'ignore', 'inherit', 'ipc'] });
  const first = await new Promise<{ slack: string; base: string; gateway: string }>((resolve, reject) => {
    child.once('message', (m) => resolve(m as { slack: string; base: string; gateway: string }));
    child.once('exit', (c) => reject(new Error(`the stand-ins exited ${c}`)));
  });
  return { ...first, close: () => new Promise<void>((resolve) => (child.once('exit', () => resolve()), child.disconnect())) };
}
