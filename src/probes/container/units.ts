// Seats run as systemd units (`runtime: systemd`, NixOS hosts such as brutus): one task per GPU host,
// one `systemctl show -p ... UNIT...` for all its units, here for a `local` host or over ssh with the
// probes' options (argument words, never a shell line of ours), output capped; beside it a TCP connect
// from here to each seat's port. One finding per unit, with the unit's state as data. A host without
// systemctl is not measured (tool_missing), never down.
import type { HostRef, SeatRef } from '../../inventory/fleet.ts';
import { makeFinding, measured } from '../finding.ts';
import { probeCommandOptions, runCommand, type CommandResult } from '../edge/exec.ts';
import { clean, cut, firstLine, firstSentence } from '../edge/text.ts';
import { failedInSsh, first60, runFailure, sshFailure, type Failure } from '../edge/remote.ts';
import { graceFor, innerBudget } from '../edge/timeout.ts';
import { tcpConnect, type TcpOutcome } from '../power/tcp.ts';
import type { Finding, ProbeEnv, ProbeTask } from '../types.ts';
import { hostCommand, SSH_WORDS } from './command.ts';
import { judgeUnit, MAX_UNIT_BYTES, parseUnits, UNIT_PROPERTIES, unitState, type UnitRead } from './unit.ts';

export interface UnitSeat {
  seat: SeatRef;
  unit: string;
}

/** The seat's unit: as the inventory names it, else `<seat name>.service`. */
export function unitOf(seat: SeatRef): string {
  return seat.seat.unit ?? `${seat.name}.service`;
}

interface Ctx {
  env: ProbeEnv;
  host: HostRef;
  argv: string[];
}

export function unitTask(env: ProbeEnv, host: HostRef, units: UnitSeat[]): ProbeTask {
  const names = units.map((u) => u.unit);
  const argv = hostCommand(host, ['systemctl', 'show', '-p', UNIT_PROPERTIES, ...names], env.timeoutMs);
  const ctx: Ctx = { env, host, argv };
  return {
    id: `units:${host.name}`,
    group: 'gpus',
    probe: 'container',
    target: host.name,
    subject: subjectOf(units[0]!),
    site: host.site,
    host: host.name,
    timeoutMs: env.timeoutMs + graceFor(env.timeoutMs),
    run: (signal) => probeUnits(ctx, units, signal),
    onTimeout: (ms) => units.map((u) => finding(ctx, u, { status: 'unknown', reason: 'timeout', detail: `no answer within ${ms} ms (killed)` }, null, null, null)),
  };
}

async function probeUnits(ctx: Ctx, units: UnitSeat[], signal: AbortSignal): Promise<Finding[]> {
  const { env, host } = ctx;
  const t0 = env.now();
  const budget = innerBudget(env.timeoutMs);
  const [shown, ...tcp] = await Promise.all([
    runCommand(ctx.argv, probeCommandOptions(env, signal, Math.min(env.maxOutputBytes, MAX_UNIT_BYTES))),
    ...units.map((u) => tcpConnect(host.host.address, u.seat.seat.port, budget, signal, env.now)),
  ]);
  const latencyMs = Math.round(env.now() - t0);
  const answers = (t: TcpOutcome | undefined): boolean | null => (t === undefined || t.error === 'stopped' ? null : t.ok);
  const why = failure(shown, ctx);
  const read = why ? null : parseUnits(shown.stdout, units.map((u) => u.unit));
  return units.map((u, i) => {
    const answering = answers(tcp[i]);
    if (why) return finding(ctx, u, why, null, answering, latencyMs);
    if (!read) return finding(ctx, u, { status: 'unknown', reason: 'unparseable', detail: `systemctl show answered what is not one block per unit asked: ${first60(shown.stdout)}` }, null, answering, latencyMs);
    const r = read[i]!;
    const err = tcp[i]?.error;
    const j = judgeUnit(r, u.unit, `${host.host.address}:${u.seat.seat.port}`, answering, err === undefined ? undefined : cut(clean(err), 80));
    return finding(ctx, u, j, r, answering, latencyMs);
  });
}

function finding(ctx: Ctx, u: UnitSeat, v: Failure | ReturnType<typeof judgeUnit>, r: UnitRead | null, answering: boolean | null, latencyMs: number | null): Finding {
  return makeFinding(ctx.env.clock, {
    probe: 'container' as const,
    target: `${u.unit}@${ctx.host.name}`,
    subject: subjectOf(u),
    provenance: measured({ how: 'exec', argv: ctx.argv }, { how: 'tcp', host: ctx.host.host.address, port: u.seat.seat.port }),
    latencyMs,
    site: ctx.host.site,
    host: ctx.host.name,
    ...v,
    data: { kind: 'unit', unit: unitState({ host: u.seat.host.name, seat: u.seat.name, unit: u.unit, port: u.seat.seat.port }, r, answering) },
  });
}

function subjectOf(u: UnitSeat) {
  return { kind: 'container' as const, host: u.seat.host.name, seat: u.seat.name, container: u.unit };
}

/** Why systemctl gave no usable output, or null when it exited 0. */
function failure(r: CommandResult, ctx: Ctx): Failure | null {
  const { env, host } = ctx;
  const remote = host.host.ssh !== 'local';
  const ran = runFailure(r, { launcher: remote ? 'ssh' : 'systemctl', tool: 'systemctl', timeoutMs: env.timeoutMs, maxBytes: Math.min(env.maxOutputBytes, MAX_UNIT_BYTES) });
  if (ran !== undefined) return ran;
  const err = clean(firstLine(r.stderr));
  const said = cut(clean(firstSentence(err || firstLine(r.stdout))), 160);
  if (remote && r.exitCode === 255 && failedInSsh(r, SSH_WORDS, /systemctl|systemd/i)) return sshFailure(host.host.ssh, err, cut(err, 160));
  if (r.exitCode === 127) return { status: 'unknown', reason: 'tool_missing', detail: `systemctl not found on PATH on ${host.name}${said ? ` (${said})` : ''}` };
  if (/failed to connect to bus|system has not been booted with systemd/i.test(r.stderr)) {
    return { status: 'unknown', reason: 'tool_failed', detail: `systemd not reachable on ${host.name}: ${said}` };
  }
  return { status: 'unknown', reason: 'tool_failed', detail: `systemctl exited ${r.exitCode ?? r.code}${said ? `: ${said}` : ''}` };
}
