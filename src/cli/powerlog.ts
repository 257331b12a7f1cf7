// `seat powerlog <file|-> [--site SITE]`: seed 002's "recover power.log first" — read the load
// figures up to the cut and put them beside the site UPS's rating before anything is bought.
import type { PowerlogCommand } from '../commands/table.ts';
import type { Fleet } from '../inventory/fleet.ts';
import { clean } from '../probes/edge/text.ts';
import { chooseUps, compareWithUps, openPowerLog, renderPowerLog, summarisePowerLog } from '../powerlog/index.ts';
import type { CliIo, ExitCode } from './io.ts';

/** fleet null: no inventory was given (nor a site), so the log is read but put beside no UPS. */
export async function powerlogToTerminal(cmd: PowerlogCommand, fleet: Fleet | null, io: CliIo): Promise<ExitCode> {
  const fail = (message: string): ExitCode => {
    io.stderr.write(`seat: ${clean(message)}\n`);
    return 2;
  };
  // The site is checked before a 50 MB log is read.
  const chosen = fleet ? chooseUps(fleet, cmd.site) : null;
  if (chosen && !chosen.ok) return fail(chosen.error);
  const source = await openPowerLog(cmd.file, io.stdin);
  if (!source.ok) return fail(source.error);
  const result = await summarisePowerLog(source.chunks);
  if (!result.ok) return fail(`${source.label}: ${result.message}`);
  const choice = chosen?.choice;
  const ups = !fleet || choice === undefined
    ? { why: "no inventory given: pass --inventory FILE or set SEAT_INVENTORY to compare with a site's UPS" }
    : choice.site === null
      ? choice
      : compareWithUps(result.summary, choice.site, choice.ups, fleet.inventory.settings.upsLoadWarnPct);
  io.stdout.write(`${renderPowerLog(result.summary, source.label, ups)}\n`);
  return 0;
}
