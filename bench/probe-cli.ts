// The whole command, timed from outside as a process: `seat probe fv --json` (compiled CLI, a fresh node
// each run) on the bench fleet of 30 aliases (24 × 20 ms, 3 × 2 s, 3 hanging), 4 GPUs over the ssh
// stand-in, upsd, BMC and firewall — beside `curl -Z` making the same HTTP requests and a node that only
// waits the timeout, run alternately in the same bench so a busy spell falls on all three.
import type { AliasBehaviour } from '../drills/litellm.ts';
import { MAX_BODY_BYTES } from '../src/commands/probe.ts';
import { anchors, curlAvailable } from './probe-curl.ts';
import { median, mib, reportFacts, runCli, spread, startBenchFleet, type ProcessRun } from './probe-fleet.ts';

const RUNS = 5;
const TIMEOUT_MS = 3000;
const CONCURRENCY = 64;

export async function benchProbeCli(): Promise<{ lines: string[]; ratio: number }> {
  const aliases: [string, AliasBehaviour][] = [];
  for (let i = 0; i < 30; i++) aliases.push([`a${String(i).padStart(2, '0')}`, i < 24 ? { mode: 'slow', delayMs: 20 } : i < 27 ? { mode: 'slow', delayMs: 2000 } : { mode: 'hang' }]);
  const fleet = await startBenchFleet({ aliases, timeoutMs: TIMEOUT_MS, concurrency: CONCURRENCY });
  const hasCurl = curlAvailable();
  const anchor = await anchors(fleet.gateway.url, aliases.map(([a]) => a), TIMEOUT_MS, MAX_BODY_BYTES, 128);
  try {
    // First runs, nothing remembered (SEAT_PROBE_MEMORY=off): the 30 aliases fit one wave, so order changes nothing here.
    const run = (): Promise<ProcessRun> => runCli(fleet, ['probe', 'fv', '--json'], { memory: false });
    await run(); // the page cache and the stand-ins' first connections, not timed
    const cli: ProcessRun[] = [];
    const curl: ProcessRun[] = [];
    const floor: ProcessRun[] = [];
    for (let r = 0; r < RUNS; r++) {
      if (hasCurl) curl.push(await anchor.curl());
      floor.push(await anchor.nodeFloor());
      cli.push(await run());
    }
    const check = checkReport(cli[cli.length - 1]!);
    const wall = cli.map((r) => r.wallMs);
    const ratio = median(wall) / TIMEOUT_MS;
    const curlMed = median(curl.map((r) => r.wallMs));
    const floorMed = median(floor.map((r) => r.wallMs));
    const rss = cli.flatMap((r) => (r.maxRssBytes === null ? [] : [mib(r.maxRssBytes)]));
    const cpu = cli.flatMap((r) => (r.cpuMs === null ? [] : [r.cpuMs]));
    const startup = cli.flatMap((r) => reportFacts(r)?.startupMs ?? []);
    const firstReq = cli.flatMap((r) => (r.firstRequestMs === null ? [] : [r.firstRequestMs]));
    return {
      ratio,
      lines: [
        `probe-cli: \`seat probe fv --json\` as a process (node ${process.version}, compiled dist/, cold: a fresh process each run, nothing remembered from the run before); min / median / max over ${RUNS} runs, run alternately with the anchors`,
        `probe-cli:   on the clock: spawn, node start-up, module loading, the inventory read and checked, every probe (30 aliases: 24 × 20 ms, 3 × 2 s, 3 hanging; 4 GPUs over the ssh stand-in; ${fleet.upsd}; BMC; firewall), the diagnosis, the JSON written, the exit`,
        `probe-cli:   a target's timeout counts from the command's start: the start-up (${spread(startup, 0, ' ms')}, as each report says; first request left at ${spread(firstReq, 0, ' ms')} after the process began) is spent of it, so a hanging alias waits ${TIMEOUT_MS} ms less the start-up`,
        `probe-cli:   whole command        ${spread(wall, 0, ' ms').padStart(24)}  → ${ratio.toFixed(3)}x the bound of ${TIMEOUT_MS} ms (the hanging aliases' timeout; target ≤ 1.03x: ${ratio <= 1.03 ? 'met' : 'NOT met'})`,
        hasCurl
          ? `probe-cli:   curl -Z (anchor)     ${spread(curl.map((r) => r.wallMs), 0, ' ms').padStart(24)}  (--parallel-max 128: the listing + 30 chat requests, same headers, bodies, --max-time ${TIMEOUT_MS / 1000}, no redirects) → seat is ${(median(wall) / curlMed).toFixed(3)}x curl (target ≤ 1.02x: ${median(wall) / curlMed <= 1.02 ? 'met' : 'NOT met'})`
          : 'probe-cli:   curl -Z (anchor)     not run: no curl on PATH',
        `probe-cli:   node floor (anchor)  ${spread(floor.map((r) => r.wallMs), 0, ' ms').padStart(24)}  (\`node -e "setTimeout(() => {}, ${TIMEOUT_MS})"\`: start-up and exit of a bare node) → seat is ${(median(wall) / floorMed).toFixed(3)}x, ${overUnder(median(wall) - floorMed)}`,
        `probe-cli:   peak RSS             ${spread(rss, 1, ' MiB').padStart(24)}  (getrusage maxRSS; MiB = bytes / 1,048,576; target < 100 MiB: ${median(rss) < 100 ? 'met' : 'NOT met'}); CPU ${spread(cpu, 0, ' ms')} (user + system, start-up included)`,
        `probe-cli:   ${check}`,
      ],
    };
  } finally {
    await anchor.close();
    await fleet.stop();
  }
}

/** What the report said of the hanging and the answering aliases: the figures mean nothing if it is wrong. */
export function checkReport(run: ProcessRun, hanging = ['a27', 'a28', 'a29']): string {
  let report: { findings: { probe: string; target: string; status: string; reason?: string }[]; durationMs: number };
  try {
    report = JSON.parse(run.stdout) as typeof report;
  } catch {
    return `the last run printed no JSON report (exit ${run.code}): ${run.stdout.slice(0, 120)}`;
  }
  const aliases = report.findings.filter((f) => f.probe === 'alias');
  const hung = aliases.filter((f) => hanging.includes(f.target));
  const hungOk = hung.length === hanging.length && hung.every((f) => f.status === 'down' && f.reason === 'timeout');
  const restUp = aliases.filter((f) => !hanging.includes(f.target)).every((f) => f.status === 'up');
  return `last run: ${report.findings.length} findings, ${aliases.length} aliases; the hanging ones down by their own timeout: ${hungOk ? 'yes' : `NO (${hung.map((f) => `${f.target} ${f.status}/${f.reason ?? ''}`).join(', ')})`}; every other alias up: ${restUp ? 'yes' : 'NO'}; run inside the process ${report.durationMs} ms`;
}

/** Seat against the bare node: over it by its own work, or under it because node's timer starts only
 * after node's start-up while seat's timeout counts from the process's start. */
function overUnder(ms: number): string {
  const d = Math.round(ms);
  return d >= 0 ? `${d} ms over it` : `${-d} ms under it (its timer starts after node's start-up; seat's timeout counts from the process's start)`;
}
