// Real PostgreSQL 15 clusters for the tests: initdb/pg_ctl in a temporary folder, loopback only, a
// free port, run as the `postgres` user when we are root (the server refuses root); a streaming
// standby made with pg_basebackup -R, synchronous; promote; kill (stop -m immediate). Stopped and
// removed by stop(), which the tests call in after() whatever happened.
import { execFile } from 'node:child_process';
import { appendFileSync, chmodSync, chownSync, existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import postgres from 'postgres';

export const PG_BIN = process.env.SEAT_PG_BIN ?? '/usr/lib/postgresql/15/bin';

/** Why PostgreSQL tests cannot run here, or undefined when they can. */
export function pgMissing(): string | undefined {
  return existsSync(join(PG_BIN, 'initdb')) && existsSync(join(PG_BIN, 'pg_ctl')) && existsSync(join(PG_BIN, 'pg_basebackup'))
    ? undefined
    : `PostgreSQL 15 is not installed (no ${PG_BIN}/initdb; Debian's postgresql package, installed by .ci/run)`;
}

/** The account the server runs as: `postgres` when we are root. */
function account(): { uid: number; gid: number } | undefined {
  if (process.getuid?.() !== 0) return undefined;
  // Debian's postgres user (uid 101, gid 104 on this image), as /etc/passwd names it.
  const line = readFileSync('/etc/passwd', 'utf8').split('\n').find((l) => l.startsWith('postgres:'));
  const [, , uid, gid] = line?.split(':') ?? [];
  return uid && gid ? { uid: Number(uid), gid: Number(gid) } : { uid: 65534, gid: 65534 };
}

function run(cmd: string, args: string[], timeoutMs = 60_000): Promise<string> {
  const who = account();
  return new Promise((resolve, reject) => {
    execFile(join(PG_BIN, cmd), args, { timeout: timeoutMs, ...(who ?? {}), env: { PATH: '/usr/bin:/bin', LANG: 'C.UTF-8' } }, (err, stdout, stderr) => {
      if (err) reject(new Error(`${cmd} ${args.join(' ')}: ${err.message}\n${stderr}`));
      else resolve(stdout);
    });
  });
}

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const a = s.address();
      s.close(() => (typeof a === 'object' && a ? resolve(a.port) : reject(new Error('no port'))));
    });
  });
}

export interface PgNode {
  port: number;
  data: string;
  /** stop -m immediate: the server dies as a power cut would take it. */
  kill(): Promise<void>;
  promote(): Promise<void>;
  stop(): Promise<void>;
}

export interface PgCluster {
  dir: string;
  primary: PgNode;
  standby?: PgNode;
  /** A URL for a role on a database (default `seat`) of the given nodes (default: the primary). */
  url(role: string, o?: { nodes?: PgNode[]; params?: string; db?: string }): string;
  /** A new database owned by seat_owner, its public schema too. */
  createDb(name: string): Promise<void>;
  /** Runs SQL as the superuser on a node. */
  su<T>(f: (sql: postgres.Sql) => Promise<T>, node?: PgNode, db?: string): Promise<T>;
  /** Adds a synchronous streaming standby of the primary. */
  addStandby(): Promise<PgNode>;
  stop(): Promise<void>;
}

function node(dir: string, name: string, port: number): PgNode {
  const data = join(dir, name);
  let up = true;
  return {
    port,
    data,
    async kill() {
      if (!up) return;
      up = false;
      await run('pg_ctl', ['-D', data, '-m', 'immediate', '-w', 'stop']).catch(() => undefined);
    },
    async promote() {
      await run('pg_ctl', ['-D', data, '-w', '-t', '30', 'promote']);
    },
    async stop() {
      if (!up) return;
      up = false;
      await run('pg_ctl', ['-D', data, '-m', 'immediate', '-w', 'stop']).catch(() => undefined);
    },
  };
}

/** Which process made a cluster: one whose maker is gone (killed at its timeout, no after()) is swept. */
const OWNER = 'owner.pid';

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Clusters of test processes that died without stopping them: their servers stopped, their folders removed. */
async function sweepClusters(): Promise<void> {
  let names: string[];
  try {
    names = readdirSync(tmpdir()).filter((n) => n.startsWith('seatbelt-pg-'));
  } catch {
    return;
  }
  for (const n of names) {
    const dir = join(tmpdir(), n);
    let pid: number;
    try {
      pid = Number(readFileSync(join(dir, OWNER), 'utf8'));
    } catch {
      continue; // made before owners were written, or not one of ours: left alone
    }
    if (!Number.isInteger(pid) || pid <= 0 || alive(pid)) continue;
    for (const node of ['primary', 'standby']) {
      if (existsSync(join(dir, node, 'postmaster.pid'))) await run('pg_ctl', ['-D', join(dir, node), '-m', 'immediate', '-w', 'stop']).catch(() => undefined);
    }
    rmSync(dir, { recursive: true, force: true });
  }
}

const CONF = (port: number, fsync: boolean): string => `
listen_addresses = '127.0.0.1'
port = ${port}
unix_socket_directories = ''
wal_level = replica
max_wal_senders = 4
hot_standby = on
synchronous_commit = on
fsync = ${fsync ? 'on' : 'off'}
full_page_writes = ${fsync ? 'on' : 'off'}
shared_buffers = 64MB
max_connections = 50
log_min_messages = warning
`;

/**
 * A primary with database `seat`, an owner role `seat_owner` (owns the database) and a bot role
 * `seat_bot` (login, nothing granted). Trust on loopback: these clusters hold test data only.
 */
export async function startCluster(o: { fsync?: boolean } = {}): Promise<PgCluster> {
  await sweepClusters();
  const dir = mkdtempSync(join(tmpdir(), 'seatbelt-pg-'));
  writeFileSync(join(dir, OWNER), String(process.pid));
  const who = account();
  chmodSync(dir, 0o700);
  if (who) chownSync(dir, who.uid, who.gid);
  const nodes: PgNode[] = [];
  try {
    const port = await freePort();
    await run('initdb', ['-D', join(dir, 'primary'), '-U', 'postgres', '-A', 'trust', '-E', 'UTF8', '--locale=C', '--no-sync'], 120_000);
    appendFileSync(join(dir, 'primary', 'postgresql.conf'), CONF(port, o.fsync ?? false));
    writeFileSync(join(dir, 'primary', 'pg_hba.conf'), 'host all all 127.0.0.1/32 trust\nhost replication all 127.0.0.1/32 trust\n');
    await run('pg_ctl', ['-D', join(dir, 'primary'), '-l', join(dir, 'primary.log'), '-w', '-t', '60', 'start']);
    const primary = node(dir, 'primary', port);
    nodes.push(primary);
    const url = (role: string, o: { nodes?: PgNode[]; params?: string; db?: string } = {}): string =>
      `postgres://${role}@${(o.nodes ?? [primary]).map((n) => `127.0.0.1:${n.port}`).join(',')}/${o.db ?? 'seat'}${o.params ? `?${o.params}` : ''}`;
    const su = async <T>(f: (sql: postgres.Sql) => Promise<T>, n: PgNode = primary, db = 'seat'): Promise<T> => {
      const sql = postgres(`postgres://postgres@127.0.0.1:${n.port}/${db}`, { max: 1, onnotice: () => undefined, fetch_types: false });
      try {
        return await f(sql);
      } finally {
        await sql.end({ timeout: 1 });
      }
    };
    const boot = postgres(`postgres://postgres@127.0.0.1:${port}/postgres`, { max: 1, onnotice: () => undefined, fetch_types: false });
    try {
      await boot`CREATE ROLE seat_owner LOGIN`;
      await boot`CREATE ROLE seat_bot LOGIN`;
      await boot`CREATE DATABASE seat OWNER seat_owner`;
    } finally {
      await boot.end({ timeout: 1 });
    }
    // PostgreSQL 15: only the owner creates in public; the database owner owns public? Not so: give it.
    await su((sql) => sql`ALTER SCHEMA public OWNER TO seat_owner`);
    const cluster: PgCluster = {
      dir,
      primary,
      url,
      su,
      async createDb(name) {
        await su((sql) => sql.unsafe(`CREATE DATABASE ${name} OWNER seat_owner`), primary, 'postgres');
        await su((sql) => sql`ALTER SCHEMA public OWNER TO seat_owner`, primary, name);
      },
      async addStandby() {
        const sport = await freePort();
        const sdata = join(dir, 'standby');
        await run('pg_basebackup', ['-h', '127.0.0.1', '-p', String(port), '-U', 'postgres', '-D', sdata, '-R', '-X', 'stream', '-c', 'fast', '--no-sync'], 120_000);
        appendFileSync(join(sdata, 'postgresql.conf'), `\nport = ${sport}\n`);
        await run('pg_ctl', ['-D', sdata, '-l', join(dir, 'standby.log'), '-w', '-t', '60', 'start']);
        const s = node(dir, 'standby', sport);
        nodes.push(s);
        cluster.standby = s;
        await su(async (sql) => {
          await sql`ALTER SYSTEM SET synchronous_standby_names = '*'`;
          await sql`SELECT pg_reload_conf()`;
          // Until the standby streams, a commit would wait: wait for it to be synchronous.
          for (let i = 0; i < 200; i++) {
            const [r] = await sql<{ n: number }[]>`SELECT count(*)::integer AS n FROM pg_stat_replication WHERE sync_state = 'sync'`;
            if (r && r.n > 0) return;
            await new Promise((res) => setTimeout(res, 50));
          }
          throw new Error('the standby never became synchronous');
        });
        return s;
      },
      async stop() {
        for (const n of nodes) await n.stop();
        rmSync(dir, { recursive: true, force: true });
      },
    };
    return cluster;
  } catch (err) {
    for (const n of nodes) await n.stop();
    rmSync(dir, { recursive: true, force: true });
    throw err;
  }
}
