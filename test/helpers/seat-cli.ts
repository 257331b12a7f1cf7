// `seat …` run in-process as a person would type it: what it printed, what it said on stderr, and
// its exit code, with an environment and a clock of the test's own.
import { runCli, type CliIo } from '../../src/cli/run.ts';

export async function runSeat(args: string[], env: NodeJS.ProcessEnv, now: () => Date): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const io: CliIo = {
    stdout: { write: (x: string | Uint8Array) => (out += String(x)) },
    stderr: { write: (x: string) => (err += x) },
    env,
    now,
  };
  return { code: await runCli(args, io), out, err };
}
