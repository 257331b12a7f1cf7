// STUB: replaced by its implementation (issue 11).
import type { ExportCommand } from '../commands/table.ts';
import type { Fleet } from '../inventory/fleet.ts';
import type { CliIo, ExitCode } from './run.ts';

export async function exportToTerminal(cmd: ExportCommand, fleet: Fleet, io: CliIo, inventoryPath: string): Promise<ExitCode> {
  await Promise.resolve();
  void cmd;
  void inventoryPath;
  io.stderr.write('seat: not built yet\n');
  return 3;
}
