// `seat diagnose` in a terminal: a file, `-` (stdin), lines pasted as the argument, or with
// --seat the seat's recent `docker logs` over ssh. Streams the log through the recognisers (constant
// memory), prints what it read, exits 0 (nothing recognised as a problem), 1 (problems) or 2 (no
// log to read: a missing file, an unknown seat, a seat the inventory cannot reach).
import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import type { DiagnoseCommand } from '../commands/table.ts';
import type { Fleet } from '../inventory/fleet.ts';
import { diagnoseStream, diagnoseText, exitCodeOf } from '../logdiag/diagnose.ts';
import { DEFAULT_SINCE, readSeatLogs } from '../logdiag/seat-logs.ts';
import { renderDiagnosis } from '../logdiag/render.ts';
import type { Diagnosis } from '../logdiag/types.ts';
import { clean, cut, firstLine } from '../probes/edge/text.ts';
import type { CliIo, ExitCode } from './io.ts';


type Read = { ok: true; diagnosis: Diagnosis; source: string; warning?: string } | { ok: false; error: string };

export async function diagnoseToTerminal(cmd: DiagnoseCommand, fleet: Fleet | null, io: CliIo): Promise<ExitCode> {
  const read = await readLog(cmd, fleet, io);
  if (!read.ok) {
    io.stderr.write(`seat diagnose: ${read.error}\n`);
    return 2;
  }
  if (read.warning) io.stderr.write(`seat diagnose: warning: ${read.warning}\n`);
  io.stdout.write(`${renderDiagnosis(read.diagnosis, { source: read.source })}\n`);
  return exitCodeOf(read.diagnosis);
}

async function readLog(cmd: DiagnoseCommand, fleet: Fleet | null, io: CliIo): Promise<Read> {
  if (cmd.seat !== undefined) {
    if (cmd.input !== undefined) return { ok: false, error: 'give a log (a file, - or pasted lines) or --seat SEAT, not both' };
    const deps = io.probeDeps ?? {};
    return readSeatLogs(cmd.seat, cmd.since ?? DEFAULT_SINCE, fleet, { env: deps.env ?? io.env, ...(deps.reaper ? { reaper: deps.reaper } : {}), ...(deps.pathPrefix ? { pathPrefix: deps.pathPrefix } : {}) });
  }
  if (cmd.since !== undefined) return { ok: false, error: '--since goes with --seat (how far back its docker logs go)' };
  const input = cmd.input;
  if (input === undefined || input === '') return { ok: false, error: 'needs a log: a file, - (stdin), pasted log lines, or --seat SEAT' };
  if (input === '-') return readStdin(io);
  return readPathOrText(input);
}

async function readStdin(io: CliIo): Promise<Read> {
  const stdin = io.stdin;
  if (!stdin) return { ok: false, error: 'no standard input to read' };
  if ((stdin as { isTTY?: boolean }).isTTY) io.stderr.write('seat diagnose: reading the log from standard input (Ctrl-D to end)\n');
  try {
    return { ok: true, diagnosis: await diagnoseStream(stdin as AsyncIterable<Uint8Array | string>), source: 'stdin' };
  } catch (err) {
    return { ok: false, error: `cannot read standard input: ${messageOf(err)}` };
  }
}

async function readPathOrText(input: string): Promise<Read> {
  const shown = cut(clean(input), 80);
  try {
    const s = await stat(input);
    if (!s.isFile() && !s.isFIFO()) return { ok: false, error: `${shown} is not a file` };
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    // Not a path: lines typed or pasted on the command line are the log itself, unless it starts
    // with a file and options follow it (the command line takes options before the log).
    if (/\s/.test(input)) {
      if (await startsWithPath(input)) return { ok: false, error: `options go before the log: seat diagnose [--seat SEAT] [--since 30m] <file|-|snippet…> (read ${shown} as one text)` };
      return { ok: true, diagnosis: diagnoseText(input), source: 'the pasted text' };
    }
    if (code === 'ENOENT' || code === 'ENOTDIR') return { ok: false, error: `no such file: ${shown} (give a file, - for stdin, or paste the log lines)` };
    return { ok: false, error: `cannot read ${shown}: ${messageOf(err)}` };
  }
  try {
    return { ok: true, diagnosis: await diagnoseStream(createReadStream(input, { highWaterMark: 256 * 1024 })), source: shown };
  } catch (err) {
    return { ok: false, error: `cannot read ${shown}: ${messageOf(err)}` };
  }
}

async function startsWithPath(text: string): Promise<boolean> {
  const first = text.trim().split(/\s+/)[0] ?? '';
  if (first === '-') return true;
  if (!/^--?[a-z]/.test(text.trim().slice(first.length).trim())) return false;
  try {
    await stat(first);
    return true;
  } catch {
    return false;
  }
}

function messageOf(err: unknown): string {
  return cut(clean(firstLine(err instanceof Error ? err.message : String(err))), 200);
}
