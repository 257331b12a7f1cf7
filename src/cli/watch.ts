// STUB: replaced by its implementation (issue 11).
import type { WatchGpusCommand } from '../commands/table.ts';
import type { Fleet } from '../inventory/fleet.ts';
import type { CliIo, ExitCode } from './run.ts';

export async function watchToTerminal(cmd: WatchGpusCommand, fleet: Fleet, io: CliIo): Promise<ExitCode> {
  await Promise.resolve();
  void cmd;
  io.stderr.write('seat: not built yet\n');
  return 3;
}
