// Probe benchmark: a loopback fleet of 30 aliases (24 answering in ~20 ms, 3 in 2 s, 3 hanging),
// 4 GPUs over the ssh stand-in, a real upsd, BMC and firewall — the whole mixed probe run
// concurrently, beside its lower bound and a serial run of the same tasks.
import { Fleet } from '../src/inventory/fleet.ts';
import { parseInventory } from '../src/inventory/load.ts';
import { planProbe, runProbe, type ProbeRequest } from '../src/commands/probe.ts';
import { runTasks } from '../src/probes/runner.ts';
import type { AliasBehaviour } from '../drills/litellm.ts';
import { DRILL_BIN } from '../drills/drill.ts';
import { mib, runCli, startBenchFleet } from './probe-fleet.ts';

const TIMEOUT_MS = 3000;

export interface ProbeBench {
  lines: string[];
  ratio: number;
}

export async function benchProbe(): Promise<ProbeBench> {
  const aliases: [string, AliasBehaviour][] = [];
  for (let i = 0; i < 30; i++) {
    aliases.push([`a${String(i).padStart(2, '0')}`, i < 24 ? { mode: 'slow', delayMs: 20 } : i < 27 ? { mode: 'slow', delayMs: 2000 } : { mode: 'hang' }]);
  }
  const bench = await startBenchFleet({ aliases, timeoutMs: TIMEOUT_MS, concurrency: 64 });
  const parsed = parseInventory(bench.yaml);
  if (!parsed.ok) throw new Error(parsed.errors.join('\n'));
  const fleet = new Fleet(parsed.value);
  const req: ProbeRequest = { site: 'fv', only: ['aliases', 'gpus', 'power'], timeoutMs: null, paid: false };
  const deps = { env: bench.env, pathPrefix: [DRILL_BIN] };

  try {
    // Warm-up (module loading, first connections), then the measured runs.
    await runProbe(fleet, { ...req, timeoutMs: 500 }, deps);
    const t0 = performance.now();
    const slowest: string[] = [];
    const report = await runProbe(fleet, req, {
      ...deps,
      onEvent: (e) => {
        if (e.type === 'task' && e.done > e.total - 3) slowest.push(`${e.task.id} at ${Math.round(performance.now() - t0)} ms`);
      },
    });
    const concurrent = performance.now() - t0;
    const tasks = planProbe(fleet, req, deps).tasks;
    const s0 = performance.now();
    await runTasks(tasks, { concurrency: 1, deadlineMs: 120_000 });
    const serial = performance.now() - s0;
    const bound = TIMEOUT_MS; // the hanging aliases cost exactly their timeout; every other target is faster
    // A first run, nothing remembered: the peak RSS of `seat probe fv` as a person runs it.
    const rss = (await runCli(bench, ['probe', 'fv', '--timeout', '1000'], { memory: false })).maxRssBytes;
    if (rss === null) throw new Error('no RSS from the CLI');
    const ratio = concurrent / bound;
    return {
      ratio,
      lines: [
        `probe: ${report.findings.length} findings from ${tasks.length} tasks (30 aliases: 24 × 20 ms, 3 × 2 s, 3 hanging; 4 GPUs; ${bench.upsd}; BMC; firewall)`,
        `probe: concurrent ${ms(concurrent)}  lower bound ${ms(bound)} (the ${TIMEOUT_MS} ms timeout of the hanging aliases)  → ${ratio.toFixed(3)}x the bound (target ≤ 1.05x)`,
        `probe: last to finish: ${slowest.join(', ')}`,
        `probe: serial     ${ms(serial)}  → ${(serial / bound).toFixed(2)}x the bound; concurrent is ${(serial / concurrent).toFixed(1)}x faster`,
        `probe: CLI peak RSS ${mib(rss).toFixed(1)} MiB for \`seat probe fv\` on this fleet (getrusage maxRSS, bytes / 1,048,576; target < 100 MiB; min/median/max in probe-cli below)`,
      ],
    };
  } finally {
    await bench.stop();
  }
}

function ms(x: number): string {
  return `${Math.round(x).toLocaleString('en-US')} ms`.padStart(9);
}
