// Slack ack benchmark: `/seat probe` acked while earlier probes run, queue and join, with several
// clients at once, paired with a bare node:http server answering the same bodies.
//
// The probes wait on the network as real ones do: the gateway they ask accepts and never answers,
// so each lasts its --timeout (plus grace); a ping of 127.0.0.1 rides along in half of them. At
// most four run (src/slack/probe-queue.ts); an ask for a probe already queued or running in that
// channel joins it (said on the ack); the rest wait with their place posted.
//
// Each round, the same client processes (4; bench/ack-client.mjs, forked once) send their own
// signed bodies (10 warm-up + 100) back to back, all at once: to one server, then the same bodies
// to the other; which goes first alternates by round. Each round gives a p50 and a p99 per server
// over every client's requests after the warm-up, and the paired ratio of the two.
//
// "Bolt" is the bot as `seat bot` runs it: the Bolt app behind its own receiver (src/slack/receiver.ts).
// Beside the latencies: the acking event loop's busy time and the bot process's CPU per ask, each
// series (what an ack costs the loop that acks, probes behind included in Bolt's).
//
// On the clock: from a client's write of the request to the end of the HTTP answer, in the
// client's process (signing off the clock). Off the clock but on the same event loop: what the
// acks start (probes, queued messages, progress, reports). The bare server lives in the bot's
// process, so both are timed with the same probes behind them; the Slack Web API stand-in and
// the silent gateway run in a process of their own, as Slack and the gateway do.
import { fork, spawn, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { availableParallelism } from 'node:os';
import { fileURLToPath } from 'node:url';
import { Fleet } from '../src/inventory/fleet.ts';
import { parseInventory } from '../src/inventory/load.ts';
import { createSeatApp } from '../src/slack/app.ts';
import { slashCommandBody } from '../test/helpers/slack.ts';

const SECRET = 'b1e2n3c4h5s6e7c8r9e0t1a2b3c4d5e6';
const WARMUP = 10;
/** Probes of their own (not joined) need another channel or scope: 8 channels × 4 scopes. */
const CHANNELS = Array.from({ length: 8 }, (_, i) => `C0BENCH0${i}`);
const SCOPES = ['aliases', 'aliases,power', 'aliases --paid', 'aliases,power --paid'];
/** How long each probe waits on the gateway that never answers. */
const PROBE_TIMEOUT_MS = 500;

export interface AckBenchOptions {
  rounds?: number;
  /** Client processes sending at once. */
  clients?: number;
  /** Requests per client per series, after its warm-up. */
  perClient?: number;
}

export async function benchAck(o: AckBenchOptions = {}): Promise<{ lines: string[]; p99: number }> {
  const { rounds: ROUNDS = 8, clients: CLIENTS = 4, perClient: PER_CLIENT = 100 } = o;
  const slack = await slackInItsOwnProcess();
  const r = parseInventory(`
oncall: { users: [U0ONCALL01], channels: [${CHANNELS.join(', ')}] }
gateway: { baseUrl: ${slack.gateway}, keys: { admin: { env: SEAT_BENCH_KEY } } }
sites: { fv: { hosts: { fv-ml1: { address: 127.0.0.1, gpuVendor: none } } } }
aliases: { gen: { kind: chat, backend: { name: local-bench, paid: false } } }
`);
  if (!r.ok) throw new Error(r.errors.join('\n'));
  const seat = createSeatApp({
    fleet: new Fleet(r.value),
    config: { botToken: 'xoxb-bench-0000000000', mode: { kind: 'http', signingSecret: SECRET, port: 0 }, slackApiUrl: slack.url },
    probeDeps: { env: { SEAT_BENCH_KEY: 'sk-bench-0123456789' } },
    // As `seat bot` runs: the probes in a thread of their own, off the loop that acks.
    probeThread: true,
    logger: { debug() {}, info() {}, warn() {}, error() {}, setLevel() {}, getLevel: () => 'error' as never, setName() {} },
  });
  const port = await seat.start();
  const bare = await bareServer();
  const urls = { bolt: `http://127.0.0.1:${port}/slack/events`, bare: `http://127.0.0.1:${bare.port}/slack/events` };
  const clients = Array.from({ length: CLIENTS }, () => fork(fileURLToPath(new URL('./ack-client.mjs', import.meta.url)), { stdio: ['ignore', 'ignore', 'inherit', 'ipc'] }));
  const rounds: { bolt: Pcts; bare: Pcts }[] = [];
  // What the acks were answered behind: probes running and waiting, sampled during Bolt's series.
  const behind = { running: [] as number[], waiting: [] as number[] };
  let joinedOnAck = 0;
  /** The bot's event loop busy per ask (µs), each series: what one ack costs the loop that acks. */
  const busy = { bolt: [] as number[], bare: [] as number[] };
  const cpuPer = { bolt: [] as number[], bare: [] as number[] };
  try {
    for (let round = 0; round < ROUNDS; round++) {
      const bodies = clients.map((_, c) => roundBodies(round, c, WARMUP + PER_CLIENT, `${slack.base}/response/bench`));
      const got: Partial<Record<'bolt' | 'bare', Pcts>> = {};
      for (const target of round % 2 === 0 ? (['bolt', 'bare'] as const) : (['bare', 'bolt'] as const)) {
        const sample = target === 'bolt' ? setInterval(() => {
          const n = seat.probes.counts();
          behind.running.push(n.running);
          behind.waiting.push(n.waiting);
        }, 20) : undefined;
        const elu0 = performance.eventLoopUtilization();
        const cpu0 = process.cpuUsage();
        try {
          const answers = await Promise.all(clients.map((c, i) => ask(c, { url: urls[target], secret: SECRET, bodies: bodies[i]!, warmup: WARMUP })));
          got[target] = pcts(answers.flatMap((a) => a.ms));
          const elu = performance.eventLoopUtilization(elu0);
          busy[target].push((elu.active * 1000) / (CLIENTS * (WARMUP + PER_CLIENT)));
          const cpu = process.cpuUsage(cpu0);
          cpuPer[target].push((cpu.user + cpu.system) / (CLIENTS * (WARMUP + PER_CLIENT)));
          // Bolt answers a joined probe on the ack itself; a probe of its own is acked with nothing.
          if (target === 'bolt') joinedOnAck += answers.reduce((n, a) => n + a.said, 0);
        } finally {
          clearInterval(sample);
        }
      }
      rounds.push({ bolt: got.bolt!, bare: got.bare! });
    }
    await seat.idle();
    const seen = await slack.counts();
    const s = (f: (x: { bolt: Pcts; bare: Pcts }) => number): string => spread(rounds.map(f));
    const boltP99 = median(rounds.map((x) => x.bolt.p99));
    const asks = ROUNDS * CLIENTS * (WARMUP + PER_CLIENT);
    return {
      p99: boltP99,
      lines: [
        `ack: /seat probe under load: ${ROUNDS} rounds, each ${CLIENTS} client processes at once × ${PER_CLIENT} signed requests back to back (+${WARMUP} warm-up), Bolt and bare node:http in turn on the same bodies (${availableParallelism()} CPUs)`,
        `ack: on the clock: a client's request to the end of its HTTP answer (client's process); behind both servers, in the bot's process: the probes the acks start, each waiting ${PROBE_TIMEOUT_MS} ms on a gateway that never answers; Slack's stand-in in its own process`,
        `ack: Bolt /seat probe  p50 ${s((x) => x.bolt.p50)} ms  p99 ${s((x) => x.bolt.p99)} ms (min/median/max over rounds; target p99 < 10 ms: ${boltP99 < 10 ? 'met' : 'NOT met'} at the median)`,
        `ack: bare node:http    p50 ${s((x) => x.bare.p50)} ms  p99 ${s((x) => x.bare.p99)} ms`,
        `ack: the acking loop busy per ask (event-loop utilisation over the series ÷ asks, min/median/max)  Bolt ${spread(busy.bolt)} µs  bare ${spread(busy.bare)} µs`,
        `ack: the bot's process CPU per ask (user+system, all its threads)  Bolt ${spread(cpuPer.bolt)} µs  bare ${spread(cpuPer.bare)} µs`,
        `ack: Bolt / bare, paired by round  p50 ${s((x) => x.bolt.p50 / x.bare.p50)}x  p99 ${s((x) => x.bolt.p99 / x.bare.p99)}x`,
        `ack: behind Bolt's acks: probes running ${range(behind.running)} (at most ${seat.probes.limit} at once), waiting ${range(behind.waiting)}; of ${asks} asks, ${seen.started} probes ran (${seen.queued} waited with their place posted), ${joinedOnAck + seen.joined} joined one queued or running (${joinedOnAck} told so on the ack); ${seen.finals} reports delivered`,
      ],
    };
  } finally {
    for (const c of clients) c.disconnect();
    await seat.stop();
    await bare.close();
    await slack.close();
  }
}

/** One client's bodies for a round: its own trigger ids, channels and scopes taken in turn. */
function roundBodies(round: number, client: number, count: number, responseUrl: string): string[] {
  return Array.from({ length: count }, (_, i) =>
    slashCommandBody({
      text: `probe fv --only ${SCOPES[(i + client) % SCOPES.length]} --timeout ${PROBE_TIMEOUT_MS}`,
      channel: CHANNELS[(i * 3 + client) % CHANNELS.length],
      responseUrl,
      triggerId: `bench.${round}.${client}.${i}`,
    }),
  );
}

/** One series from one client: its latencies after the warm-up, and how many answers said something. */
function ask(child: ChildProcess, job: { url: string; secret: string; bodies: string[]; warmup: number }): Promise<{ ms: number[]; said: number }> {
  return new Promise((resolve, reject) => {
    child.once('message', (m: { ms?: number[]; said?: number; error?: string }) => (m.ms ? resolve({ ms: m.ms, said: m.said ?? 0 }) : reject(new Error(`ack bench client: ${m.error}`))));
    child.send(job);
  });
}

/**
 * The recording Slack Web API stand-in (test/helpers/slack.ts) in a child process, its answers
 * off the bot's event loop, and beside it a gateway that accepts and never answers. It says what
 * Slack was asked when asked.
 */
async function slackInItsOwnProcess(): Promise<{ url: string; base: string; gateway: string; counts(): Promise<Seen>; close(): Promise<void> }> {
  const helper = new URL('../test/helpers/slack.ts', import.meta.url).href;
  const code = `
    const { createServer } = await import('node:net');
    const { startSlackApi } = await import(${JSON.stringify(helper)});
    const slack = await startSlackApi();
    const held = new Set();
    const silent = createServer((socket) => {
      held.add(socket);
      socket.on('error', () => {});
      socket.on('close', () => held.delete(socket));
    });
    await new Promise((resolve) => silent.listen(0, '127.0.0.1', resolve));
    process.send({ url: slack.url, base: slack.base, gateway: 'http://127.0.0.1:' + silent.address().port });
    process.on('message', async (m) => {
      if (m !== 'counts') return;
      const said = (method, re) => slack.calls.filter((c) => c.method === method && re.test(String(c.args.text))).length;
      process.send({
        started: said('chat.postMessage', /^probing /) + said('chat.update', /^probing .*: 0 of/),
        queued: said('chat.postMessage', /^queued: /),
        joined: slack.responses.filter((r) => /^:link: /.test(String(r.body.text))).length,
        finals: said('chat.update', /^(DRILL )?(OK|DEGRADED|DOWN) /),
      });
    });
    process.on('disconnect', () => {
      for (const s of held) s.destroy();
      silent.close();
      slack.close().then(() => process.exit(0));
    });
  `;
  const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', code], { stdio: ['ignore', 'ignore', 'inherit', 'ipc'] });
  const first = await new Promise<{ url: string; base: string; gateway: string }>((resolve, reject) => {
    child.once('message', (m) => resolve(m as { url: string; base: string; gateway: string }));
    child.once('exit', (code) => reject(new Error(`the Slack stand-in exited ${code}`)));
  });
  return {
    ...first,
    counts: () =>
      new Promise<Seen>((resolve) => {
        child.once('message', (m) => resolve(m as Seen));
        child.send('counts');
      }),
    close: () =>
      new Promise<void>((resolve) => {
        child.once('exit', () => resolve());
        child.disconnect();
      }),
  };
}

interface Seen {
  started: number;
  queued: number;
  joined: number;
  finals: number;
}

interface Pcts {
  p50: number;
  p99: number;
}

function pcts(ms: number[]): Pcts {
  const sorted = [...ms].sort((a, b) => a - b);
  return { p50: pct(sorted, 50), p99: pct(sorted, 99) };
}

/** The p-th percentile of sorted latencies (nearest rank). */
export function pct(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? NaN;
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const mid = s.length / 2;
  return s.length % 2 ? s[Math.floor(mid)]! : (s[mid - 1]! + s[mid]!) / 2;
}

function spread(xs: number[]): string {
  const sorted = [...xs].sort((a, b) => a - b);
  return `${sorted[0]!.toFixed(2)}/${median(sorted).toFixed(2)}/${sorted.at(-1)!.toFixed(2)}`;
}

function range(xs: number[]): string {
  if (xs.length === 0) return 'not sampled';
  const mean = xs.reduce((a, b) => a + b, 0) / xs.length;
  return `${Math.min(...xs)}–${Math.max(...xs)} (mean ${mean.toFixed(1)})`;
}

/** One series from a client process of its own (bench/ack-client.mjs, SEAT_ACK_BENCH): its sorted latencies after the warm-up. */
export async function clientSeries(job: { url: string; secret: string; bodiesFile: string; warmup: number; n?: number; gapMs: number }): Promise<number[]> {
  const child = spawn(process.execPath, [fileURLToPath(new URL('./ack-client.mjs', import.meta.url))], { env: { ...process.env, SEAT_ACK_BENCH: JSON.stringify(job) }, stdio: ['ignore', 'pipe', 'inherit'] });
  let out = '';
  child.stdout!.on('data', (d: Buffer) => (out += d.toString()));
  const code = await new Promise<number | null>((r) => child.on('close', r));
  if (code !== 0) throw new Error(`ack bench client exited ${code}`);
  return JSON.parse(out) as number[];
}

/** The baseline the acks are paired with: a node:http server that reads the body and answers 200, nothing else. */
export async function bareServer(): Promise<{ port: number; close(): Promise<void> }> {
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      res.writeHead(200);
      res.end();
    });
  });
  await new Promise<void>((res) => server.listen(0, '127.0.0.1', () => res()));
  return { port: (server.address() as AddressInfo).port, close: () => new Promise<void>((res) => server.close(() => res())) };
}
