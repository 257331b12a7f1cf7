// A seat's recent `docker logs`, fetched over ssh the way the inventory says, and diagnosed: for
// `seat diagnose --seat` in a terminal and `/seat diagnose --seat` in Slack alike.
import type { Fleet } from '../inventory/fleet.ts';
import { createReaper, runCommand, type CommandResult, type Reaper } from '../probes/edge/exec.ts';
import { clean, cut, firstLine } from '../probes/edge/text.ts';
import { diagnoseLineList } from './diagnose.ts';
import { DOCKER_TAIL, dockerLogsArgv, mergeByTime } from './docker.ts';
import type { Diagnosis } from './types.ts';

export const DEFAULT_SINCE = '30m';
/** `docker logs --tail 20000` of a chatty engine: a few MB; more than this is cut and said so. */
export const DOCKER_MAX_BYTES = 64 * 1024 * 1024;
export const DOCKER_TIMEOUT_MS = 60_000;

export type SeatLogRead = { ok: true; diagnosis: Diagnosis; source: string; warning?: string } | { ok: false; error: string };

export interface SeatLogDeps {
  env: NodeJS.ProcessEnv;
  reaper?: Reaper;
  pathPrefix?: string[];
}

export async function readSeatLogs(name: string, since: string, fleet: Fleet | null, deps: SeatLogDeps): Promise<SeatLogRead> {
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
  const r = await runCommand(argv, {
    timeoutMs: DOCKER_TIMEOUT_MS,
    env: deps.env,
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
