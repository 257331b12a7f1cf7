// A pure parser for `docker inspect --type container NAME...`: a JSON array, one object per container
// found. Its NetworkSettings.Ports is what `docker port` prints (`8000/tcp -> 0.0.0.0:8022`; nothing
// when nothing is published: PORTS=[]). Only the fields below are read: inspect also carries each
// container's environment, which may hold secrets, and none of it is kept. Nothing here throws; every
// string a peer chose is cleaned and cut before it can be shown.
import { clean, cut } from '../edge/text.ts';
import type { ContainerState, PortBinding } from '../types.ts';

export type ParseResult<T> = { ok: true; value: T } | { ok: false; error: string };

export interface Inspected {
  state: ContainerState['state'];
  /** docker's own word when it is not one we know, quoted and cleaned, for the detail. */
  stateSaid: string | null;
  health: ContainerState['health'];
  healthSaid: string | null;
  /** The last healthcheck's output when it failed, cleaned and cut. */
  healthOutput: string | null;
  restartCount: number | null;
  oomKilled: boolean | null;
  exitCode: number | null;
  networkMode: string | null;
  ports: PortBinding[];
  /** Bindings not read: over MAX_BINDINGS, or not shaped as docker writes them. */
  skipped: number;
}

const STATES: ReadonlySet<string> = new Set(['running', 'exited', 'restarting', 'created', 'paused', 'dead', 'removing']);
const HEALTHS: ReadonlySet<string> = new Set(['healthy', 'unhealthy', 'starting']);
/** More bindings than any seat has; a peer's thousands are not read. */
export const MAX_BINDINGS = 64;

/** Each container of one answer by name (docker's `/name`, the slash dropped), or why the answer as a
 * whole could not be read. An element that is no container is an error of its own. */
export function parseInspect(text: string): ParseResult<Map<string, ParseResult<Inspected>>> {
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch {
    return { ok: false, error: 'not JSON' };
  }
  if (!Array.isArray(doc)) return { ok: false, error: 'not a list of containers' };
  const out = new Map<string, ParseResult<Inspected>>();
  for (const c of doc as unknown[]) {
    if (isObject(c) && typeof c.Name === 'string') out.set(c.Name.replace(/^\//, ''), inspected(c));
  }
  return { ok: true, value: out };
}

function inspected(c: Record<string, unknown>): ParseResult<Inspected> {
  if (!isObject(c.State)) return { ok: false, error: 'no container State in it' };
  const s = c.State;
  const status = typeof s.Status === 'string' ? s.Status : null;
  const health = isObject(s.Health) ? s.Health : null;
  const hs = health && typeof health.Status === 'string' ? health.Status : null;
  const hostConfig = isObject(c.HostConfig) ? c.HostConfig : null;
  const net = isObject(c.NetworkSettings) ? c.NetworkSettings : null;
  return {
    ok: true,
    value: {
      state: status === null ? null : STATES.has(status) ? (status as ContainerState['state']) : 'other',
      stateSaid: status !== null && !STATES.has(status) ? quoted(status) : null,
      health: health === null ? 'none' : hs !== null && HEALTHS.has(hs) ? (hs as ContainerState['health']) : 'other',
      healthSaid: hs !== null && !HEALTHS.has(hs) ? quoted(hs) : null,
      healthOutput: hs === 'unhealthy' ? lastOutput(health?.Log) : null,
      restartCount: count(c.RestartCount),
      oomKilled: typeof s.OOMKilled === 'boolean' ? s.OOMKilled : null,
      exitCode: Number.isSafeInteger(s.ExitCode) ? (s.ExitCode as number) : null,
      networkMode: hostConfig && typeof hostConfig.NetworkMode === 'string' ? shown(hostConfig.NetworkMode) : null,
      ...publishedPorts(net?.Ports),
    },
  };
}

/** NetworkSettings.Ports: `{"8000/tcp": [{"HostIp": "0.0.0.0", "HostPort": "8022"}], "9000/tcp": null}`. */
function publishedPorts(v: unknown): { ports: PortBinding[]; skipped: number } {
  const ports: PortBinding[] = [];
  let skipped = 0;
  if (!isObject(v)) return { ports, skipped };
  for (const [key, list] of Object.entries(v)) {
    if (list === null) continue; // exposed, not published
    const m = /^(\d{1,5})\/([a-z]{1,8})$/.exec(key);
    if (!m || !Array.isArray(list)) {
      skipped += 1;
      continue;
    }
    for (const b of list as unknown[]) {
      const one = isObject(b) && typeof b.HostPort === 'string' ? binding(m[1]!, m[2]!, typeof b.HostIp === 'string' ? b.HostIp : '', b.HostPort) : null;
      if (one && ports.length < MAX_BINDINGS) ports.push(one);
      else skipped += 1;
    }
  }
  return { ports, skipped };
}

function binding(containerPort: string, proto: string, hostIp: string, hostPort: string): PortBinding | null {
  const cp = Number(containerPort);
  const hp = Number(hostPort);
  if (!/^\d{1,5}$/.test(hostPort) || cp < 1 || cp > 65535 || hp < 1 || hp > 65535) return null;
  const ip = hostIp.replace(/^\[(.*)\]$/, '$1');
  // An address is digits, hex, dots and colons; a binding with anything else in it is not read.
  if (!/^[0-9A-Fa-f.:]{0,45}$/.test(ip)) return null;
  return { containerPort: cp, proto, hostIp: ip, hostPort: hp };
}

function lastOutput(log: unknown): string | null {
  if (!Array.isArray(log) || log.length === 0) return null;
  const last = log[log.length - 1] as unknown;
  return isObject(last) && typeof last.Output === 'string' ? shown(last.Output.slice(0, 4096)) || null : null;
}

function count(v: unknown): number | null {
  return typeof v === 'number' && Number.isSafeInteger(v) && v >= 0 ? v : null;
}

/** `"word"`, and when cleaning changed it, says so: a cleaned "running" is still not docker's running. */
function quoted(s: string): string {
  const c = shown(s);
  return `${JSON.stringify(c)}${c === s ? '' : ' (control characters removed)'}`;
}

function shown(s: string): string {
  return cut(clean(s.slice(0, 4096)), 80);
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}
