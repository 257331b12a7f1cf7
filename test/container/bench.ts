// What the container tests share: a loopback listener standing in for a seat's port (and a port
// nobody holds), the drill's docker stand-in behind its ssh stand-in, and fixture trees written per
// case into a temp folder that is removed afterwards.
import assert from 'node:assert/strict';
import { mkdtemp, mkdir, rm, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ProbeMemory } from '../../src/probes/memory.ts';
import { DRILL_BIN } from '../../drills/drill.ts';
import { closeServer, freePort, listen } from '../../drills/net.ts';
import { Fleet } from '../../src/inventory/fleet.ts';
import { parseInventory } from '../../src/inventory/load.ts';
import { planContainerTasks } from '../../src/probes/container/plan.ts';
import type { ContainerState, Finding, ProbeEnv } from '../../src/probes/types.ts';
import { testProbeEnv } from '../helpers/probe-env.ts';

export const ADDRESS = '127.0.2.20'; // ana-ml2 to the drill's ssh stand-in
export const HOST = 'ana-ml2';
export const TARGET = `flash-next-seat@${HOST}`;

export interface Bench {
  /** A port on ADDRESS that accepts connections, and one that refuses them. */
  listening: number;
  silent: number;
  fixture(files: Record<string, string>): Promise<string>;
  stop(): Promise<void>;
}

export async function startBench(): Promise<Bench> {
  const dir = await mkdtemp(join(tmpdir(), 'seat-container-'));
  const server: Server = createServer((s) => s.end());
  const listening = await listen(server, 0, ADDRESS);
  const silent = await freePort(ADDRESS);
  let n = 0;
  return {
    listening,
    silent,
    // <dir>/<case>/ana-ml2/<file>: flash-next-seat.inspect is its element of docker's answer.
    fixture: async (files) => {
      const root = join(dir, `case-${n++}`);
      await mkdir(join(root, HOST), { recursive: true });
      for (const [name, text] of Object.entries(files)) await writeFile(join(root, HOST, name), text);
      return root;
    },
    stop: async () => {
      await closeServer(server);
      await rm(dir, { recursive: true, force: true });
    },
  };
}

export function fleetOf(port: number, extra = ''): Fleet {
  const r = parseInventory(`
gateway: { baseUrl: http://127.0.0.1:14000, keys: { admin: { env: LITELLM_ADMIN_KEY } } }
sites:
  ana:
    hosts:
      ana-ml2: { address: ${ADDRESS}, ssh: drill@${ADDRESS}, gpus: [{ index: 0 }, { index: 1 }] }
      lab: { address: 127.0.0.1, gpus: [{ index: 0 }] }
      gone: { address: 127.0.2.99, ssh: ops@127.0.2.99, gpus: [{ index: 0 }] }
seats:
  flash-next: { host: ana-ml2, gpus: [0], port: ${port}, container: flash-next-seat, gpuMemoryUtilization: 0.5 }
  no-container: { host: ana-ml2, gpus: [1], port: 8013, engine: other }
  local-seat: { host: lab, gpus: [0], port: 8014, container: local-seat, engine: other }
${extra}`);
  if (!r.ok) assert.fail(r.errors.join('\n'));
  return new Fleet(r.value);
}

/** The drill's bin first on PATH; SEAT_DRILL_DOCKER (the fixture tree) passed to the stand-ins when given. */
export function probeEnv(fixtures: string | null, over: Partial<ProbeEnv> = {}): ProbeEnv {
  const vars: Record<string, string> = fixtures === null ? {} : { SEAT_DRILL_DOCKER: fixtures };
  return testProbeEnv({ env: { PATH: process.env.PATH ?? '/usr/bin:/bin', ...vars }, passEnv: Object.keys(vars), pathPrefix: [DRILL_BIN], timeoutMs: 3000, ...over });
}

export interface InspectOptions {
  status?: string;
  health?: string | null;
  restarts?: number;
  network?: string;
  ports?: Record<string, unknown>;
  exitCode?: number;
  oom?: boolean;
  log?: string;
}

/** One container's element of docker inspect's answer: the fields the probe reads, as docker prints them. */
export function inspectJson(o: InspectOptions): string {
  const health = o.health === null ? {} : { Health: { Status: o.health ?? 'healthy', FailingStreak: 0, Log: o.log ? [{ ExitCode: 1, Output: o.log }] : [] } };
  const status = o.status ?? 'running';
  return JSON.stringify({
    Id: '5e1f',
    Name: '/flash-next-seat',
    RestartCount: o.restarts ?? 0,
    State: { Status: status, Running: status === 'running', Restarting: status === 'restarting', OOMKilled: o.oom ?? false, ExitCode: o.exitCode ?? 0, StartedAt: '2026-09-13T06:40:02Z', ...health },
    Config: { Env: ['HF_TOKEN=hf_secret_never_shown'] },
    HostConfig: { NetworkMode: o.network ?? 'bridge' },
    NetworkSettings: { Ports: o.ports ?? {} },
  });
}

export const PUBLISHED = (port: number): Record<string, { HostIp: string; HostPort: string }[]> => ({
  '8000/tcp': [
    { HostIp: '0.0.0.0', HostPort: String(port) },
    { HostIp: '::', HostPort: String(port) },
  ],
});

/** Every finding of ana-ml2's container task. */
/** `previous`: the findings of the probe before, read at `previousAt` (default: now on the env's clock). */
export async function probeHost(fleet: Fleet, env: ProbeEnv, previous?: Finding[], previousAt?: number): Promise<Finding[]> {
  const task = planContainerTasks(fleet, { sites: ['ana'] }, env, { memory: previous ? ProbeMemory.of(previous, previousAt ?? env.clock().getTime()) : undefined }).find((t) => t.host === HOST);
  assert.ok(task, 'a container task for ana-ml2');
  return task.run(new AbortController().signal);
}

/** flash-next-seat's finding. */
export async function probe(fleet: Fleet, env: ProbeEnv, previous?: Finding[], previousAt?: number): Promise<Finding> {
  const mine = (await probeHost(fleet, env, previous, previousAt)).filter((f) => f.target === TARGET);
  assert.equal(mine.length, 1);
  return mine[0]!;
}

export function stateOf(f: Finding): ContainerState {
  assert.equal(f.data.kind, 'container');
  if (f.data.kind !== 'container') throw new Error('unreachable');
  return f.data.container;
}
