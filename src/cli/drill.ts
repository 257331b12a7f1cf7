// STUB: replaced by its implementation (issue 11).
import type { DrillCommand } from '../commands/table.ts';
import type { CliIo, ExitCode } from './run.ts';

export async function drillToTerminal(cmd: DrillCommand, io: CliIo): Promise<ExitCode> {
  await Promise.resolve();
  void cmd;
  io.stderr.write('seat: not built yet\n');
  return 3;
}
