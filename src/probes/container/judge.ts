// What a container's state means for its seat. Healthy and reachable sit on opposite sides of the
// container boundary (seed 002: `Up 4 minutes (healthy)` with `PORTS=[]`): the healthcheck runs inside
// against localhost, so the port binding and a connect from outside are judged on their own.
import { fmtInt } from '../edge/text.ts';
import type { ContainerState, FindingStatus, PortBinding, Reason } from '../types.ts';
import type { Inspected } from './parse.ts';

export interface Judged {
  status: FindingStatus;
  reason?: Reason;
  detail: string;
}

/** Without an earlier report to compare with, more restarts than this is a crash loop (seed 000: 7). */
export const RESTARTS_ALONE = 3;

export interface JudgeInput {
  inspected: Inspected;
  /** The seat's port: the host port clients use. */
  port: number;
  address: string;
  /** TCP connect to address:port from here; null when not tried. */
  answering: boolean | null;
  answerError?: string | undefined;
  previousRestartCount: number | null;
  /** When the previous count was read, in words ("4 min ago"). */
  previousAgo?: string | undefined;
  /** Said after the judgement: where the bindings came from when `docker port` failed. */
  note?: string | undefined;
}

export function judgeContainer(j: JudgeInput): Judged {
  const i = j.inspected;
  const restarts = restartText(i.restartCount, j.previousRestartCount, j.previousAgo);
  const tail = [restarts.text, j.note].filter((x): x is string => !!x).map((x) => `; ${x}`).join('');
  const last = lastExit(i);
  if (i.state === 'restarting') return { status: 'down', reason: 'restarting', detail: `docker is restarting it${last}${tail}` };
  if (i.state !== 'running') {
    const said = i.state === null ? 'no state reported' : i.state === 'other' ? `unknown state ${i.stateSaid ?? '?'}` : i.state;
    return { status: 'down', reason: 'not_running', detail: `not running: ${said}${last}${tail}` };
  }
  if (i.health === 'unhealthy') {
    return { status: 'down', reason: 'unhealthy', detail: `running, its healthcheck fails${i.healthOutput ? ` (${JSON.stringify(i.healthOutput)})` : ''}${tail}` };
  }
  const inside =
    i.health === 'healthy'
      ? 'healthy inside'
      : i.health === 'starting'
        ? 'running, healthcheck still starting'
        : i.health === 'other'
          ? `running, healthcheck says ${i.healthSaid ?? '?'}`
          : 'running (no healthcheck)';
  const where = `${j.address}:${j.port}`;
  const mine = i.ports.filter((b) => b.hostPort === j.port);
  const hostNetwork = i.networkMode === 'host';
  if (!hostNetwork && mine.length === 0) {
    const what = i.ports.length === 0 ? 'no port published (PORTS=[])' : `published on ${bindingsText(i.ports)}, not on the seat's port ${j.port}`;
    const other = j.answering ? ` — something else answers on ${where}` : '';
    return { status: 'down', reason: 'not_published', detail: `${inside}, but ${what}: nothing outside reaches it${other}${tail}` };
  }
  const bound = hostNetwork ? 'host network' : bindingsText(mine);
  if (j.answering === false) {
    const local = !hostNetwork && mine.every((b) => isLoopback(b.hostIp)) ? ` (bound to ${mine[0]?.hostIp ?? '?'} only)` : '';
    return { status: 'down', reason: 'not_answering', detail: `${inside}, ${bound}${local}, but ${where} does not answer from here${j.answerError ? ` (${j.answerError})` : ''}${tail}` };
  }
  const answers = j.answering ? `, ${where} answers` : '';
  if (i.health === 'starting') return { status: 'degraded', reason: 'starting', detail: `${inside}, ${bound}${answers}${tail}` };
  if (restarts.alarm) return { status: 'degraded', reason: 'restarting', detail: `${inside}, ${bound}${answers}${tail}` };
  return { status: 'up', detail: `${inside}, ${bound}${answers}${tail}` };
}

/** The restart count as shown, and whether it is an alarm: rising since the last probe (within a day),
 * or high alone when there is nothing recent to compare with. */
export function restartText(count: number | null, previous: number | null, ago?: string): { text: string; alarm: boolean } {
  if (count === null) return { text: 'restart count not reported', alarm: false };
  const n = `RestartCount ${fmtInt(count)}`;
  const when = ago ? `the last probe, ${ago}` : 'the last probe';
  if (previous !== null) {
    if (count > previous) return { text: `${n}, up from ${fmtInt(previous)} at ${when}: it crashed and was restarted since`, alarm: true };
    if (count < previous) return { text: `${n} (was ${fmtInt(previous)} at ${when}: the container was recreated)`, alarm: false };
    return { text: count > 0 ? `${n}, unchanged since ${when}` : '', alarm: false };
  }
  if (count > RESTARTS_ALONE) return { text: `${n}: it keeps crashing and being restarted`, alarm: true };
  return { text: count > 0 ? n : '', alarm: false };
}

function lastExit(i: Inspected): string {
  const parts = [i.exitCode !== null && i.exitCode !== 0 ? `exit code ${i.exitCode}` : '', i.oomKilled ? 'OOM-killed' : ''].filter((x) => x !== '');
  return parts.length > 0 ? ` (last ${parts.join(', ')})` : '';
}

/** `8000/tcp -> 0.0.0.0:8022, [::]:8022`; past `max` bindings, how many more. */
export function bindingsText(ports: PortBinding[], max = 4): string {
  const byContainer = new Map<string, string[]>();
  for (const b of ports.slice(0, max)) {
    const key = `${b.containerPort}/${b.proto}`;
    const host = `${b.hostIp.includes(':') ? `[${b.hostIp}]` : b.hostIp}:${b.hostPort}`;
    byContainer.set(key, [...(byContainer.get(key) ?? []), host]);
  }
  const more = ports.length > max ? ` (and ${fmtInt(ports.length - max)} more)` : '';
  return `${[...byContainer.entries()].map(([k, hosts]) => `${k} -> ${hosts.join(', ')}`).join('; ')}${more}`;
}

function isLoopback(ip: string): boolean {
  return ip.startsWith('127.') || ip === '::1';
}

/** The state as data, from what was read (or nothing, when the query failed). */
export function stateOf(base: Pick<ContainerState, 'host' | 'seat' | 'container' | 'port'>, i: Inspected | null, answering: boolean | null, previous: number | null): ContainerState {
  const ports = i?.ports ?? [];
  return {
    ...base,
    state: i?.state ?? null,
    health: i?.health ?? null,
    restartCount: i?.restartCount ?? null,
    previousRestartCount: previous,
    oomKilled: i?.oomKilled ?? null,
    exitCode: i?.exitCode ?? null,
    networkMode: i?.networkMode ?? null,
    ports,
    published: ports.some((b) => b.hostPort === base.port),
    answering,
  };
}
