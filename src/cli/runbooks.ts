// `seat runbook list` and `seat runbook check`: no inventory needed, the runbooks ship with seatbelt.
import { RUNBOOKS } from '../diagnose/runbooks.ts';
import { clean, cut, firstSentence } from '../probes/edge/text.ts';
import { checkRunbooks, loadRunbooks } from '../runbooks/load.ts';
import type { CliIo, ExitCode } from './io.ts';

export async function runbooksToTerminal(verb: 'runbook list' | 'runbook check', io: CliIo): Promise<ExitCode> {
  if (verb === 'runbook check') {
    const r = await checkRunbooks();
    for (const l of r.lines) io.stdout.write(`${l}\n`);
    return r.ok ? 0 : 1;
  }
  const { runbooks, errors } = await loadRunbooks();
  const proposed = new Set(Object.keys(RUNBOOKS));
  const width = Math.max(0, ...[...runbooks.keys()].map((k) => k.length)) + 2;
  for (const [id, rb] of runbooks) {
    const how = proposed.has(id) ? 'proposed by the probe' : 'started by name';
    io.stdout.write(`${id.padEnd(width)}${rb.steps.length} steps · ${how} · ${cut(clean(firstSentence(rb.summary)), 110)}\n`);
  }
  for (const e of errors) io.stderr.write(`seat: ${e}\n`);
  io.stdout.write(`start one: seat runbook start <runbook> [incident] [--site SITE]\n`);
  return errors.length > 0 ? 1 : 0;
}
