// `seat probe` in a terminal: problems stream as they arrive (above a live line on a TTY, one
// plain line each when piped), then the report or one JSON object.
import type { ProbeCommand } from '../commands/parse.ts';
import { exitCodeFor, reportJson, runProbe } from '../commands/probe.ts';
import type { Fleet } from '../inventory/fleet.ts';
import type { RunEvent } from '../probes/runner.ts';
import { darkRefusal, skippedLine } from '../guardrails/dark-site-probe.ts';
import { gateFromJournal, type TerminalGate } from './probe-gate.ts';
import { terminalAsk } from './probe-others.ts';
import { saveLastProbe } from './last-probe.ts';
import { journalPath } from '../journal/location.ts';
import { loadMemory, memoryPath, saveMemory } from './probe-memory.ts';
import { JsonReport } from './report-json.ts';
import type { CliIo, ExitCode } from './io.ts';

type Render = typeof import('./render.ts');

/** How long no finding must have come before the --json findings so far are laid out in report order.
 * Only a matter of speed: the bytes are the same whenever (or whether) it happens. */
const QUIET_MS = 150;

export async function probeToTerminal(command: ProbeCommand, fleet: Fleet, io: CliIo, inventoryPath?: string): Promise<ExitCode> {
  // A site an open incident found dark is not re-probed inside no-poll-dark-site's window; `all` skips it.
  const gate = await gateFromJournal(io.env, fleet, inventoryPath, command.site, io.now, { keep: true });
  try {
    return await probeGated(command, fleet, io, gate, inventoryPath);
  } finally {
    await gate.store?.close();
  }
}

async function probeGated(command: ProbeCommand, fleet: Fleet, io: CliIo, gate: TerminalGate, inventoryPath: string | undefined): Promise<ExitCode> {
  if (!gate.ok) {
    io.stderr.write(`seat: ${darkRefusal(gate.dark, 'seat')}\n`);
    return 1;
  }
  if ('unread' in gate && io.env.SEAT_DEBUG) io.stderr.write(`seat: the journal could not be read, so no-poll-dark-site was not checked: ${gate.unread}\n`);
  if (gate.skipped.length > 0) io.stderr.write(`seat: ${skippedLine(gate.skipped)}\n`);
  const skipSites = gate.skipped.map((d) => d.site);
  const tty = io.stdout.isTTY === true && !command.json;
  const colour = tty && !io.env.NO_COLOR;
  let bad = 0;
  // The text renderer is loaded while the probes wait on the network, not before the first request
  // (and not at all for --json): events that come before it are held and shown in order once it is in.
  let render: Render | null = null;
  const held: RunEvent[] = [];
  const show = (r: Render, e: RunEvent): void => {
    if (e.type === 'start') {
      if (tty) io.stdout.write(r.progressLine(command.site, 0, e.total, 0));
      return;
    }
    const problems = e.findings.filter((f) => f.status !== 'up');
    bad += problems.filter((f) => f.status !== 'unknown').length;
    if (tty) {
      // Problems stream above a rewritten status line; the full report follows at the end.
      const lines = problems.map((f) => `${r.findingLine(f, { colour })}\n`).join('');
      io.stdout.write(`\r\x1b[2K${lines}${r.progressLine(command.site, e.done, e.total, bad)}`);
    } else if (e.findings.length > 0) {
      // Piped: every finding once, as a plain line, as it arrives; then only the verdict.
      io.stdout.write(`${e.findings.map((f) => r.findingLine(f, { colour: false })).join('\n')}\n`);
    }
  };
  // A person's `seat probe` (a shell's or the console's) remembers what timed out, for the next one.
  const memPath = io.askedAt !== undefined && inventoryPath !== undefined && !io.probeDeps?.memory ? memoryPath(io.env, fleet.inventory.fleet, inventoryPath) : null;
  const memory = io.probeDeps?.memory ?? loadMemory(memPath);
  // --json: each finding serialised as it comes, while the others are still awaited, and laid out in
  // report order once nothing has come for QUIET_MS (the slowest targets are then all that is left).
  const json = command.json ? new JsonReport() : null;
  let quiet: NodeJS.Timeout | undefined;
  // The other live replicas are asked too, through the journal, when it is one they share.
  const others = gate.store && gate.journal ? await terminalAsk(gate.store, gate.journal, fleet, io.probeDeps, io.now ?? (() => new Date())) : null;
  if (others && tty) io.stderr.write(`seat: asking ${others.vantages.length} other vantage${others.vantages.length === 1 ? '' : 's'} through the journal too: ${others.vantages.join(', ')}\n`);
  const running = (others?.run ?? runProbe)(fleet, skipSites.length > 0 ? { ...command, skipSites } : command, {
    ...io.probeDeps,
    memory,
    ...(io.askedAt !== undefined ? { origin: io.askedAt } : {}),
    onEvent: (e) => {
      if (json) {
        if (e.type === 'task') {
          json.add(e.findings);
          clearTimeout(quiet);
          quiet = setTimeout(() => json.prepare(), QUIET_MS).unref();
        }
        return;
      }
      if (render) show(render, e);
      else held.push(e);
    },
  });
  const loading = command.json
    ? null
    : import('./render.ts').then((r) => {
        render = r;
        for (const e of held.splice(0)) show(r, e);
        return r;
      });
  // Either may fail; neither is left unobserved.
  const [settled, loaded] = await Promise.allSettled([running, loading]);
  await others?.close();
  clearTimeout(quiet);
  if (settled.status === 'rejected') throw settled.reason;
  if (loaded.status === 'rejected') throw loaded.reason;
  const report = settled.value;
  if (json) for (const piece of json.pieces(report)) io.stdout.write(piece);
  else if (!loaded.value) io.stdout.write(`${JSON.stringify(reportJson(report), null, 2)}\n`);
  else {
    io.stdout.write(`${tty ? '\r\x1b[2K\n' : '\n'}${loaded.value.renderReport(report, { colour, sections: tty, all: command.all, scope: command })}\n`);
  }
  // A person's probe is kept beside the journal: `seat runbook start` journals it as what detected the incident.
  if (io.askedAt !== undefined) {
    const kept = saveLastProbe(journalPath(io.env, fleet.inventory, inventoryPath).path, report);
    if (kept !== null && io.env.SEAT_DEBUG) io.stderr.write(`seat: the probe was not kept for runbook start: ${kept}\n`);
  }
  const unsaved = saveMemory(memPath, memory);
  if (unsaved !== null && io.env.SEAT_DEBUG) io.stderr.write(`seat: the probe's memory was not saved: ${unsaved}\n`);
  return exitCodeFor(report);
}
