// Scale: `seat probe fv --json` (compiled CLI, a fresh process each run) on generated fleets of 300 and
// 3,000 aliases answering in 20 ms, three of them hanging, placed first, in the middle or last in the
// inventory; at the inventory's default concurrency. Each beside the bound (the hanging aliases'
// timeout) and `curl -Z` making the same requests with the same parallelism, run alternately.
// Two kinds of run: as a person runs it again (what cost its timeout the run before is asked first —
// the untimed first run left that in the fleet's state directory), and a first run with nothing
// remembered (SEAT_PROBE_MEMORY=off: the inventory's order, where a hanging alias placed last waits
// for every other alias to be sent).
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { MAX_BODY_BYTES } from '../src/commands/probe.ts';
import { anchors, curlAvailable } from './probe-curl.ts';
import { median, mib, reportFacts, runCli, runProcess, scaleShape, spread, startBenchFleet, type BenchFleet, type Placement, type ProcessRun } from './probe-fleet.ts';

const FLOOR = fileURLToPath(new URL('./http-floor.mjs', import.meta.url));
const WIRE_FLOOR = fileURLToPath(new URL('./wire-floor.ts', import.meta.url));

const RUNS = 3;
const TIMEOUT_MS = 3000;
const CONCURRENCY = 128; // the inventory's default
const SIZES = [300, 3000];
const PLACEMENTS: Placement[] = ['first', 'middle', 'last'];
const TARGETS = { 300: 1.1, 3000: 1.2 } as Record<number, number>;
const RSS_TARGET_MIB = { 300: 100, 3000: 160 } as Record<number, number>;

export async function benchProbeScale(): Promise<{ lines: string[]; worst: number }> {
  const hasCurl = curlAvailable();
  const lines = [
    `probe-scale: \`seat probe fv --json\` as a process on generated fleets (n aliases answering in 20 ms, 3 hanging at the placement shown; 4 GPUs, upsd, BMC, firewall); concurrency ${CONCURRENCY}, timeout ${TIMEOUT_MS} ms; min / median / max over ${RUNS} runs; bound = ${TIMEOUT_MS} ms (a hanging alias costs its timeout)`,
    'probe-scale:   on the clock: spawn, node start-up, modules, inventory read and checked, every probe, the diagnosis, the JSON written, the exit; "first request" is when the first HTTP request left, after start-up; a target\'s timeout counts from the command\'s start (the start-up is spent of it, as the report says)',
    'probe-scale:   "again": as a person runs it a second time (the hanging aliases cost their timeout in the untimed run before, so they are asked first); "first run": nothing remembered, the inventory\'s order',
  ];
  const cpuPerRun = new Map<number, number[]>();
  const floorCpu: number[] = [];
  const floorLastSent: number[] = [];
  const wireCpu: number[] = [];
  const wireLastSent: number[] = [];
  let worst = 0;
  for (const n of SIZES) {
    for (const where of PLACEMENTS) {
      const shape = scaleShape(n, where, CONCURRENCY, TIMEOUT_MS);
      const fleet = await startBenchFleet(shape);
      const anchor = await anchors(fleet.gateway.url, shape.aliases.map(([a]) => a), TIMEOUT_MS, MAX_BODY_BYTES, CONCURRENCY);
      const hanging = shape.aliases.filter(([, b]) => b.mode === 'hang').map(([a]) => a);
      try {
        await runCli(fleet, ['probe', 'fv', '--json']); // not timed: page cache, the stand-in's first connections, and what it remembers
        const cli: ProcessRun[] = [];
        const first: ProcessRun[] = [];
        const curl: ProcessRun[] = [];
        for (let r = 0; r < RUNS; r++) {
          if (hasCurl) curl.push(await anchor.curl());
          cli.push(await runCli(fleet, ['probe', 'fv', '--json']));
          first.push(await runCli(fleet, ['probe', 'fv', '--json'], { memory: false }));
          if (n === SIZES[SIZES.length - 1]) {
            const answering = shape.aliases.filter(([, b]) => b.mode !== 'hang').map(([a]) => a);
            const floor = await clientFloor(fleet, answering, 'node:http');
            floorCpu.push(floor.cpuMs);
            floorLastSent.push(floor.lastSentMs);
            const wire = await clientFloor(fleet, answering, 'wire');
            wireCpu.push(wire.cpuMs);
            wireLastSent.push(wire.lastSentMs);
          }
        }
        const wall = cli.map((r) => r.wallMs);
        const ratio = median(wall) / TIMEOUT_MS;
        const firstWall = first.map((r) => r.wallMs);
        const firstRatio = median(firstWall) / TIMEOUT_MS;
        const facts = cli.flatMap((r) => reportFacts(r) ?? []);
        worst = Math.max(worst, ratio / (TARGETS[n] ?? 1));
        const cpu = cli.flatMap((r) => (r.cpuMs === null ? [] : [r.cpuMs]));
        cpuPerRun.set(n, [...(cpuPerRun.get(n) ?? []), ...cpu]);
        const rss = cli.flatMap((r) => (r.maxRssBytes === null ? [] : [mib(r.maxRssBytes)]));
        const firstReq = cli.flatMap((r) => (r.firstRequestMs === null ? [] : [r.firstRequestMs]));
        const curlMed = median(curl.map((r) => r.wallMs));
        lines.push(
          `probe-scale: ${String(n).padStart(5)} aliases, hanging ${where.padEnd(6)} again ${spread(wall, 0, ' ms').padStart(24)} → ${ratio.toFixed(3)}x the bound (target ≤ ${TARGETS[n]}x: ${ratio <= (TARGETS[n] ?? 0) ? 'met' : 'NOT met'})` +
            (hasCurl ? `; curl -Z ${spread(curl.map((r) => r.wallMs), 0, ' ms')} → seat is ${(median(wall) / curlMed).toFixed(3)}x curl` : '; curl: not on PATH'),
          `probe-scale:                              first run ${spread(firstWall, 0, ' ms')} → ${firstRatio.toFixed(3)}x the bound (${firstRatio <= (TARGETS[n] ?? 0) ? 'within' : 'over'} ${TARGETS[n]}x)` +
            (hasCurl ? `, ${(median(firstWall) / curlMed).toFixed(3)}x curl (which remembers nothing either)` : '') +
            `; the last request left at ${spread(first.flatMap((r) => (r.lastRequestMs === null ? [] : [r.lastRequestMs])), 0, ' ms')}, the process began its exit at ${spread(first.flatMap((r) => (r.exitMs === null ? [] : [r.exitMs])), 0, ' ms')}` +
            `; ${statusCheck(first[first.length - 1]!, hanging)}`,
          `probe-scale:                              RSS ${spread(rss, 1, ' MiB')} (target < ${RSS_TARGET_MIB[n]} MiB: ${median(rss) < (RSS_TARGET_MIB[n] ?? 0) ? 'met' : 'NOT met'}); CPU ${spread(cpu, 0, ' ms')}; first request at ${spread(firstReq, 0, ' ms')}; start-up spent of the timeout ${spread(facts.map((f) => f.startupMs), 0, ' ms')}; asked first ${spread(facts.map((f) => f.askedFirst))}; ${statusCheck(cli[cli.length - 1]!, hanging)}`,
        );
      } finally {
        await anchor.close();
        await fleet.stop();
      }
    }
  }
  const small = median(cpuPerRun.get(SIZES[0]!) ?? []);
  const big = median(cpuPerRun.get(SIZES[1]!) ?? []);
  const perTarget = ((big - small) / (SIZES[1]! - SIZES[0]!)) * 1000;
  const big_n = SIZES[SIZES.length - 1]!;
  const floorPer = (median(floorCpu) / (big_n - 3 + 1)) * 1000;
  const wirePer = (median(wireCpu) / (big_n - 3 + 1)) * 1000;
  // The last alias (index n − 1) is asked as a slot frees: in round ⌊(n − 1) / concurrency⌋.
  const rounds = Math.floor((big_n - 1) / CONCURRENCY);
  lines.push(
    `probe-scale: CPU per alias target ${perTarget.toFixed(0)} µs (user + system: (median CPU of the ${SIZES[1]} runs − that of the ${SIZES[0]} runs) / ${SIZES[1]! - SIZES[0]!}, so start-up cancels out); whole-process CPU / aliases: ${((small / SIZES[0]!) * 1000).toFixed(0)} µs at ${SIZES[0]}, ${((big / SIZES[1]!) * 1000).toFixed(0)} µs at ${SIZES[1]}`,
    `probe-scale:   baselines, each its own process making the listing and the ${big_n - 3} answering requests with the same pool size, bodies parsed, nothing else (start-up not counted): a bare node:http client (bench/http-floor.mjs) ${floorPer.toFixed(0)} µs per request (${spread(floorCpu, 0, ' ms')} CPU) → seat is ${(perTarget / floorPer).toFixed(2)}x that per target; seat's own client alone (bench/wire-floor.ts: src/probes/edge/wire.ts, no probe around it) ${wirePer.toFixed(0)} µs per request (${spread(wireCpu, 0, ' ms')} CPU) → seat is ${(perTarget / wirePer).toFixed(2)}x that`,
    `probe-scale:   a first run's floor: an alias placed last is asked only as a slot frees after the ${big_n - 3} before it. At ${CONCURRENCY} at a time and 20 ms each that is round ${rounds}, at ${rounds * 20} ms (${((rounds * 20 + TIMEOUT_MS) / TIMEOUT_MS).toFixed(3)}x the bound with no CPU at all); measured, the bare node:http client sends its last request at ${spread(floorLastSent, 0, ' ms')} (${((median(floorLastSent) + TIMEOUT_MS) / TIMEOUT_MS).toFixed(3)}x) and seat's client alone at ${spread(wireLastSent, 0, ' ms')} (${((median(wireLastSent) + TIMEOUT_MS) / TIMEOUT_MS).toFixed(3)}x) on this machine, with this gateway stand-in (its exit not counted; seat's start-up is spent of the timeout) (the ${big_n} "first run, last" line against them)`,
  );
  return { lines, worst };
}

/** CPU and when the last request left (ms) for a bare client making the same answering requests: node:http, or seat's own. */
async function clientFloor(fleet: BenchFleet, answering: string[], client: 'node:http' | 'wire'): Promise<{ cpuMs: number; lastSentMs: number }> {
  const dir = await mkdtemp(join(tmpdir(), 'seatbelt-bench-floor-'));
  try {
    const list = join(dir, 'aliases.json');
    await writeFile(list, JSON.stringify(answering));
    const args = client === 'wire' ? ['--import', 'tsx', WIRE_FLOOR] : [FLOOR];
    const run = await runProcess(process.execPath, [...args, fleet.gateway.url, list, String(CONCURRENCY)], fleet.env);
    const m = /(?:FLOOR|WIRE) ([\d.]+) ([\d.]+) (\d+) (\d+) ([\d.]+)/.exec(run.stdout);
    if (!m) throw new Error(`${client} floor said nothing: exit ${run.code}`);
    // A floor that failed its requests would be a flattering one: every answer must have been a 2xx.
    if (Number(m[4]) !== Number(m[3])) throw new Error(`${client} floor: ${m[4]} of ${m[3]} requests answered 2xx`);
    return { cpuMs: Number(m[2]), lastSentMs: Number(m[5]) };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** The hanging aliases down by their own timeout and every other alias up: the figures mean nothing otherwise. */
function statusCheck(run: ProcessRun, hanging: string[]): string {
  let report: { findings: { probe: string; target: string; status: string; reason?: string }[] };
  try {
    report = JSON.parse(run.stdout) as typeof report;
  } catch {
    return `NO JSON report (exit ${run.code})`;
  }
  const aliases = report.findings.filter((f) => f.probe === 'alias');
  const hung = aliases.filter((f) => hanging.includes(f.target));
  const hungOk = hung.length === hanging.length && hung.every((f) => f.status === 'down' && f.reason === 'timeout');
  const notUp = aliases.filter((f) => !hanging.includes(f.target) && f.status !== 'up').length;
  return `hanging: ${hungOk ? 'down/timeout' : `WRONG (${hung.map((f) => `${f.status}/${f.reason ?? ''}`).join(', ')})`}, others not up: ${notUp}`;
}
