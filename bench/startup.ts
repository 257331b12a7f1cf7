// Start-up: `seat --version` and `seat help` as processes (bin/seat.js, the compiled CLI), each run
// beside a bare `node -e 0` in turn, so the ratio is paired. On the clock: spawn, node start-up,
// what seat loads before its first word, the exit.
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const RUNS = 15;

export function benchStartup(): { lines: string[] } {
  const cases: Record<string, string[]> = { 'node -e 0': ['-e', '0'], 'seat --version': ['bin/seat.js', '--version'], 'seat help': ['bin/seat.js', 'help'] };
  const times: Record<string, number[]> = {};
  for (let i = 0; i < RUNS; i++) {
    for (const [name, args] of Object.entries(cases)) {
      const t = performance.now();
      const r = spawnSync(process.execPath, args, { cwd: ROOT, stdio: 'ignore' });
      if (r.status !== 0) throw new Error(`${name} exited ${r.status}`);
      (times[name] ??= []).push(performance.now() - t);
    }
  }
  const stats = (xs: number[]): [number, number, number] => {
    const s = [...xs].sort((a, b) => a - b);
    return [s[0]!, s[Math.floor(s.length / 2)]!, s.at(-1)!];
  };
  const base = stats(times['node -e 0']!)[1];
  const lines = [`startup: ${RUNS} runs each, in turn; min / median / max; on the clock: spawn, node start-up, seat's loading, the exit`];
  for (const name of Object.keys(cases)) {
    const [lo, mid, hi] = stats(times[name]!);
    const ratio = name === 'node -e 0' ? '(the baseline)' : `→ ${(mid / base).toFixed(2)}x \`node -e 0\` (target ≤ 1.5x: ${mid / base <= 1.5 ? 'met' : 'NOT met'})`;
    lines.push(`startup:   ${name.padEnd(15)} ${lo.toFixed(1)} / ${mid.toFixed(1)} / ${hi.toFixed(1)} ms  ${ratio}`);
  }
  return { lines };
}
