// `seat probe` in a terminal: problems stream as they arrive (above a live line on a TTY, one
// plain line each when piped), then the report or one JSON object.
import type { ProbeCommand } from '../commands/parse.ts';
import { exitCodeFor, reportJson, runProbe } from '../commands/probe.ts';
import type { Fleet } from '../inventory/fleet.ts';
import { findingLine, progressLine, renderReport } from './render.ts';
import type { CliIo, ExitCode } from './run.ts';

export async function probeToTerminal(command: ProbeCommand, fleet: Fleet, io: CliIo): Promise<ExitCode> {
  const tty = io.stdout.isTTY === true && !command.json;
  const colour = tty && !io.env.NO_COLOR;
  let bad = 0;
  const report = await runProbe(fleet, command, {
    ...io.probeDeps,
    onEvent: (e) => {
      if (command.json) return;
      if (e.type === 'start') {
        if (tty) io.stdout.write(progressLine(command.site, 0, e.total, 0));
        return;
      }
      const problems = e.findings.filter((f) => f.status !== 'up');
      bad += problems.filter((f) => f.status !== 'unknown').length;
      if (tty) {
        // Problems stream above a rewritten status line; the full report follows at the end.
        const lines = problems.map((f) => `${findingLine(f, { colour })}\n`).join('');
        io.stdout.write(`\r\x1b[2K${lines}${progressLine(command.site, e.done, e.total, bad)}`);
      } else if (e.findings.length > 0) {
        // Piped: every finding once, as a plain line, as it arrives; then only the verdict.
        io.stdout.write(`${e.findings.map((f) => findingLine(f, { colour: false })).join('\n')}\n`);
      }
    },
  });
  if (command.json) io.stdout.write(`${JSON.stringify(reportJson(report), null, 2)}\n`);
  else {
    io.stdout.write(`${tty ? '\r\x1b[2K\n' : '\n'}${renderReport(report, { colour, sections: tty, all: command.all, scope: command })}\n`);
  }
  return exitCodeFor(report);
}
