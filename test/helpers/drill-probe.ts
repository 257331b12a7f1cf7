// A `seat probe --json` on a running drill from the console's own vantage: in this process, on the
// drill's stand-ins (its dark view included), as the console runs it. The other vantages' reports come
// from drills/scenarios/vantage-probe.ts; mergeVantages puts them together.
import assert from 'node:assert/strict';
import type { RunningDrill } from '../../drills/scenarios/index.ts';
import type { VantageJson } from '../../drills/scenarios/vantage-probe.ts';
import { runCli, type CliIo } from '../../src/cli/run.ts';

export async function probeHere(drill: Pick<RunningDrill, 'inventoryPath' | 'env' | 'probe'>, args: string[], env: NodeJS.ProcessEnv = {}): Promise<VantageJson> {
  let out = '';
  let err = '';
  const all: NodeJS.ProcessEnv = { PATH: process.env.PATH, SEAT_PROBE_MEMORY: 'off', ...drill.env, ...env };
  const io: CliIo = {
    stdout: { write: (s: string | Uint8Array) => (out += typeof s === 'string' ? s : Buffer.from(s).toString()), isTTY: false },
    stderr: { write: (s: string) => (err += s) },
    env: all,
    probeDeps: { env: all, ...drill.probe },
  };
  const code = await runCli(['--inventory', drill.inventoryPath, ...args, ...(args.includes('--json') ? [] : ['--json'])], io);
  assert.ok(code === 0 || code === 1, `seat ${args.join(' ')}: exit ${code}: ${err}`);
  return JSON.parse(out) as VantageJson;
}
