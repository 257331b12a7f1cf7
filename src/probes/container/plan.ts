// Seat containers, measured: one task per GPU host whose seats name a container (asked here for a
// `local` host, as its nvidia-smi is; systemd seats go to units.ts), answering one finding per container. One `ssh -o BatchMode=yes HOST docker inspect --type container
// A B ...` for the whole host (a dozen ssh logins at once to one host would meet sshd's MaxStartups),
// with plain words only since the remote shell re-parses them, output capped; beside it a TCP connect
// from here to each seat's address and port. Published ports are read from inspect's
// NetworkSettings.Ports, which is what `docker port` prints.
import type { Fleet, HostRef, SeatRef } from '../../inventory/fleet.ts';
import { makeFinding, measured } from '../finding.ts';
import { probeCommandOptions, runCommand, type CommandResult } from '../edge/exec.ts';
import { clean, cut, firstLine, firstSentence, fmtInt } from '../edge/text.ts';
import { failedInSsh, first60, runFailure, sshFailure, type Failure } from '../edge/remote.ts';
import { graceFor, innerBudget } from '../edge/timeout.ts';
import { tcpConnect, type TcpOutcome } from '../power/tcp.ts';
import type { Finding, ProbeEnv, ProbeScope, ProbeTask } from '../types.ts';
import type { ProbeMemory } from '../memory.ts';
import { judgeContainer, stateOf } from './judge.ts';
import { parseInspect, type Inspected } from './parse.ts';
import { unitOf, unitTask } from './units.ts';
import { hostCommand, SSH_WORDS } from './command.ts';

/** One container's inspect is a few KiB (its Health.Log at most five entries); a host's is well under this. */
export const MAX_INSPECT_BYTES = 1024 * 1024;

export interface ContainerPlanOptions {
  /** What the last probe read: a restart count is judged by whether it rose. */
  memory?: ProbeMemory | undefined;
}

/** One seat's container, and what it is compared with. */
interface One {
  seat: SeatRef;
  container: string;
  previous: number | null;
  /** How long ago the previous count was read, in words ("4 min ago"). */
  previousAgo: string | undefined;
}

export function planContainerTasks(fleet: Fleet, scope: ProbeScope, env: ProbeEnv, opts: ContainerPlanOptions = {}): ProbeTask[] {
  const now = env.clock().getTime();
  const previousOf = (host: string, container: string): Pick<One, 'previous' | 'previousAgo'> => {
    const seen = opts.memory?.restartBefore(host, container, now) ?? null;
    return seen === null ? { previous: null, previousAgo: undefined } : { previous: seen.count, previousAgo: agoWords(now - seen.at) };
  };
  const tasks: ProbeTask[] = [];
  for (const site of scope.sites) {
    for (const host of fleet.hostsAt(site)) {
      // The group asks GPU hosts (a scope with no GPU host has nothing to probe). A `local` host is
      // asked here, without ssh, as its nvidia-smi is.
      if (host.host.gpuVendor === 'none') continue;
      const mine = fleet.seatsAt(site).filter((seat) => seat.host.name === host.name);
      const ones: One[] = mine.flatMap((seat) => {
        const container = seat.seat.container;
        return seat.seat.runtime === 'docker' && container !== undefined ? [{ seat, container, ...previousOf(host.name, container) }] : [];
      });
      const units = mine.filter((seat) => seat.seat.runtime === 'systemd').map((seat) => ({ seat, unit: unitOf(seat) }));
      if (units.length > 0) tasks.push(unitTask(env, host, units));
      const first = ones[0];
      if (!first) continue;
      const names = [...new Set(ones.map((o) => o.container))];
      const argv = hostCommand(host, ['docker', 'inspect', '--type', 'container', ...names], env.timeoutMs);
      const ctx: Ctx = { env, host, argv };
      tasks.push({
        id: `containers:${host.name}`,
        group: 'gpus',
        probe: 'container',
        target: host.name,
        subject: subjectOf(first),
        site: host.site,
        host: host.name,
        timeoutMs: env.timeoutMs + graceFor(env.timeoutMs),
        run: (signal) => probeHost(ctx, ones, signal),
        onTimeout: (ms) => ones.map((o) => failed(ctx, o, { status: 'unknown', reason: 'timeout', detail: `no answer within ${ms} ms (killed)` }, null, null)),
      });
    }
  }
  return tasks;
}

interface Ctx {
  env: ProbeEnv;
  host: HostRef;
  argv: string[];
}

async function probeHost(ctx: Ctx, ones: One[], signal: AbortSignal): Promise<Finding[]> {
  const { env, host } = ctx;
  const t0 = env.now();
  const budget = innerBudget(env.timeoutMs);
  const [inspect, ...tcp] = await Promise.all([
    runCommand(ctx.argv, probeCommandOptions(env, signal, Math.min(env.maxOutputBytes, MAX_INSPECT_BYTES))),
    ...ones.map((o) => tcpConnect(host.host.address, o.seat.seat.port, budget, signal, env.now)),
  ]);
  const latencyMs = Math.round(env.now() - t0);
  // A connect cut by the stop measured nothing either way.
  const answers = (t: TcpOutcome | undefined): boolean | null => (t === undefined || t.error === 'stopped' ? null : t.ok);
  // docker exits 1 when a container is missing and still prints the ones it found.
  const missing = new Set([...inspect.stderr.matchAll(/no such (?:object|container): ([A-Za-z0-9][A-Za-z0-9_.-]*)/gi)].map((m) => m[1]!));
  const why = inspect.code === 'exit' && missing.size > 0 ? null : failure(inspect, ctx);
  const parsed = why ? null : parseInspect(inspect.stdout);
  return ones.map((o, i) => {
    const answering = answers(tcp[i]);
    if (why) return failed(ctx, o, why, answering, latencyMs);
    if (!parsed!.ok) return failed(ctx, o, { status: 'unknown', reason: 'unparseable', detail: `docker inspect answered ${parsed!.error}: ${first60(inspect.stdout)}` }, answering, latencyMs);
    const mine = parsed!.value.get(o.container);
    if (!mine) {
      return missing.has(o.container)
        ? failed(ctx, o, { status: 'down', reason: 'no_container', detail: `docker on ${host.name} has no container ${o.container}` }, answering, latencyMs)
        : failed(ctx, o, { status: 'unknown', reason: 'unparseable', detail: `docker inspect said nothing of ${o.container}` }, answering, latencyMs);
    }
    if (!mine.ok) return failed(ctx, o, { status: 'unknown', reason: 'unparseable', detail: `docker inspect answered ${mine.error}` }, answering, latencyMs);
    return judged(ctx, o, mine.value, answering, tcp[i]?.error, latencyMs);
  });
}

function judged(ctx: Ctx, o: One, inspected: Inspected, answering: boolean | null, answerError: string | undefined, latencyMs: number): Finding {
  const j = judgeContainer({
    inspected,
    port: o.seat.seat.port,
    address: ctx.host.host.address,
    answering,
    answerError: answerError === undefined ? undefined : cut(clean(answerError), 80),
    previousRestartCount: o.previous,
    previousAgo: o.previousAgo,
    note: inspected.skipped > 0 ? `${fmtInt(inspected.skipped)} port binding${inspected.skipped === 1 ? '' : 's'} not read` : undefined,
  });
  return makeFinding(ctx.env.clock, { ...common(ctx, o, latencyMs), ...j, data: { kind: 'container', container: stateOf(base(o), inspected, answering, o.previous) } });
}

function failed(ctx: Ctx, o: One, v: Failure, answering: boolean | null, latencyMs: number | null): Finding {
  return makeFinding(ctx.env.clock, { ...common(ctx, o, latencyMs), ...v, data: { kind: 'container', container: stateOf(base(o), null, answering, o.previous) } });
}

function common(ctx: Ctx, o: One, latencyMs: number | null) {
  return {
    probe: 'container' as const,
    target: `${o.container}@${ctx.host.name}`,
    subject: subjectOf(o),
    provenance: measured({ how: 'exec', argv: ctx.argv }, { how: 'tcp', host: ctx.host.host.address, port: o.seat.seat.port }),
    latencyMs,
    site: ctx.host.site,
    host: ctx.host.name,
  };
}

function base(o: One) {
  return { host: o.seat.host.name, seat: o.seat.name, container: o.container, port: o.seat.seat.port };
}

function subjectOf(o: One) {
  return { kind: 'container' as const, host: o.seat.host.name, seat: o.seat.name, container: o.container };
}


/** Why docker gave no usable output, or null when it exited 0. */
function failure(r: CommandResult, ctx: Ctx): Failure | null {
  const { env, host } = ctx;
  const remote = host.host.ssh !== 'local';
  const ran = runFailure(r, { launcher: remote ? 'ssh' : 'docker', tool: 'docker', timeoutMs: env.timeoutMs, maxBytes: Math.min(env.maxOutputBytes, MAX_INSPECT_BYTES) });
  if (ran !== undefined) return ran;
  const err = clean(firstLine(r.stderr));
  const said = cut(clean(firstSentence(err || firstLine(r.stdout))), 160);
  if (remote && r.exitCode === 255 && failedInSsh(r, SSH_WORDS, /docker/i)) return sshFailure(host.host.ssh, err, cut(err, 160));
  if (r.exitCode === 127) return { status: 'unknown', reason: 'tool_missing', detail: `docker not found on PATH on ${host.name}${said ? ` (${said})` : ''}` };
  if (/permission denied.*docker|docker.*permission denied/i.test(r.stderr)) {
    return { status: 'unknown', reason: 'no_permission', detail: `the ssh user may not use docker on ${host.name}: ${said}` };
  }
  if (/cannot connect to the docker daemon/i.test(r.stderr)) return { status: 'unknown', reason: 'tool_failed', detail: `docker daemon not reachable on ${host.name}: ${said}` };
  return { status: 'unknown', reason: 'tool_failed', detail: `docker exited ${r.exitCode ?? r.code}${said ? `: ${said}` : ''}` };
}


/** "at the last probe, 4 min ago": how long since a count was read, in the words a person reads. */
function agoWords(ms: number): string {
  const min = Math.round(ms / 60_000);
  if (min < 1) return 'under a minute ago';
  if (min < 120) return `${min} min ago`;
  return `${Math.round(min / 60)} h ago`;
}
