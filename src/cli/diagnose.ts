// `seat diagnose` in a terminal: a file, `-` (stdin), lines pasted as the argument, or with
// --seat the seat's recent `docker logs` over ssh. Streams the log through the recognisers (constant
// memory), prints what it read, exits 0 (nothing recognised as a problem), 1 (problems) or 2 (no
// log to read: a missing file, an unknown seat, a seat the inventory cannot reach).
import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import type { DiagnoseCommand } from '../commands/table.ts';
import type { Fleet } from '../inventory/fleet.ts';
import { diagnoseLineList, diagnoseStream, diagnoseText, exitCodeOf } from '../logdiag/diagnose.ts';
import { DOCKER_TAIL, dockerLogsArgv, mergeByTime } from '../logdiag/docker.ts';
import { renderDiagnosis } from '../logdiag/render.ts';
import type { Diagnosis } from '../logdiag/types.ts';
import { createReaper, runCommand, type CommandResult } from '../probes/edge/exec.ts';
import { clean, cut, firstLine } from '../probes/edge/text.ts';
import type { CliIo, ExitCode } from './run.ts';

const DEFAULT_SINCE = '30m';
/** `docker logs --tail 20000` of a chatty engine: a few MB; more than this is cut and said so. */
export const DOCKER_MAX_BYTES = 64 * 1024 * 1024;
export const DOCKER_TIMEOUT_MS = 60_000;

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
    return readSeat(cmd.seat, cmd.since ?? DEFAULT_SINCE, fleet, io);
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

async function readSeat(name: string, since: string, fleet: Fleet | null, io: CliIo): Promise<Read> {
  if (!fleet) return { ok: false, error: '--seat needs the inventory: pass --inventory FILE or set SEAT_INVENTORY' };
  const seat = fleet.seats.get(name);
  if (!seat) {
    const known = [...fleet.seats.keys()];
    return { ok: false, error: `no seat ${name} in the inventory${known.length > 0 ? ` (seats: ${cut(known.join(', '), 300)})` : ''}` };
  }
  const container = seat.seat.container;
  const host = seat.host;
  const pipe = (c: string): string => `docker logs --timestamps --since ${since} --tail ${DOCKER_TAIL} ${c} 2>&1 | seat diagnose -`;
  if (container === undefined) {
    return { ok: false, error: `seat ${name} has no container in the inventory: add container: NAME to its entry, or run \`${pipe('CONTAINER')}\` on ${host.name}` };
  }
  if (host.host.ssh === 'local') {
    return { ok: false, error: `host ${host.name} has no ssh destination in the inventory (ssh: local), so its docker logs cannot be fetched: run \`${pipe(container)}\` there` };
  }
  const connectTimeoutS = Math.max(5, Math.ceil(fleet.inventory.settings.probeTimeoutMs / 1000));
  const argv = dockerLogsArgv(host.host.ssh, container, since, connectTimeoutS);
  const deps = io.probeDeps ?? {};
  const r = await runCommand(argv, {
    timeoutMs: DOCKER_TIMEOUT_MS,
    env: deps.env ?? io.env,
    reaper: deps.reaper ?? createReaper(),
    maxBytes: DOCKER_MAX_BYTES,
    ...(deps.pathPrefix ? { pathPrefix: deps.pathPrefix } : {}),
  });
  const source = `docker logs of ${name} (${container} on ${host.name}, last ${since})`;
  const failed = failure(r, host.host.ssh, host.name, container);
  if (failed) return { ok: false, error: failed };
  const diagnosis = diagnoseLineList(mergeByTime(r.stdout, r.stderr));
  if (r.code === 'too_large') return { ok: true, diagnosis, source, warning: `the log was over ${DOCKER_MAX_BYTES / 1024 / 1024} MiB: only its first part was read` };
  return { ok: true, diagnosis, source };
}

function failure(r: CommandResult, ssh: string, host: string, container: string): string | null {
  const said = cut(clean(firstLine(r.stderr)), 200);
  switch (r.code) {
    case 'ok':
    case 'too_large':
      return null;
    case 'timeout':
      return `no answer from ${host} within ${DOCKER_TIMEOUT_MS / 1000} s (ssh killed)`;
    case 'not_found':
      return 'ssh not found on PATH';
    case 'stopped':
      return 'stopped before an answer';
    case 'killed':
      return `ssh was killed by ${r.signal ?? 'a signal'}`;
    case 'error':
      return `could not run ssh: ${r.error ?? 'unknown error'}`;
    case 'exit':
      break;
  }
  if (r.exitCode === 255) return `ssh to ${ssh} failed: ${said || 'exit 255'}`;
  if (r.exitCode === 127) return `docker not found on ${host}${said ? ` (${said})` : ''}`;
  return `docker logs ${container} on ${host} failed (exit ${r.exitCode ?? '?'})${said ? `: ${said}` : ''}`;
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
