// A real upsd with the dummy-ups driver (Debian nut-server, binaries in /lib/nut/) on a loopback
// port, in a temp dir of its own: for tests, the `npm start` drill and the benchmark.
// Both daemons run in the foreground as our children, so we hold their pids and reap them;
// where util-linux's setpriv exists they also get a parent-death signal, so even a killed test
// runner leaves none behind, and a start sweeps up instances whose owner process is gone.
import { spawn, type ChildProcess } from 'node:child_process';
import { accessSync, constants, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { listVars, type NutResult } from '../src/probes/nut.ts';

export type DummyMode = 'dummy-once' | 'dummy-loop';
export type DevState = Record<string, string> | string;

export interface UpsdOptions {
  upsName: string;
  port: number;
  /** The UPS's variables (`{ 'ups.status': 'OL' }`) or a whole `.dev` file. */
  dev: DevState;
  /** `dummy-loop` re-reads the .dev file by itself; with `dummy-once` (default) setState restarts the driver. */
  mode?: DummyMode;
  host?: string;
  /** upsd's MAXAGE: seconds without word from the driver before upsd calls the data stale (upsd's default 15). */
  maxAgeS?: number;
  nutDir?: string;
  readyTimeoutMs?: number;
}

export interface Upsd {
  host: string;
  port: number;
  upsName: string;
  dir: string;
  /** Replaces the whole .dev file (no merge) and waits until upsd serves it: about 2 s in either mode. */
  setState(dev: DevState, opts?: { timeoutMs?: number }): Promise<void>;
  /** Stops the driver only: upsd stays up and answers ERR DRIVER-NOT-CONNECTED. */
  stopDriver(): Promise<void>;
  /** Freezes the driver (SIGSTOP): after MAXAGE upsd answers ERR DATA-STALE. `thawDriver` resumes it. */
  freezeDriver(): void;
  thawDriver(): void;
  /** Idempotent. */
  stop(): Promise<void>;
}

const DEFAULT_NUT_DIR = '/lib/nut';
const DIR_PREFIX = 'seatbelt-upsd-';

/** Why a real upsd cannot run here, or null when it can. */
export function upsdUnavailableReason(nutDir = DEFAULT_NUT_DIR): string | null {
  for (const bin of ['upsd', 'dummy-ups']) {
    try {
      accessSync(join(nutDir, bin), constants.X_OK);
    } catch {
      return `${join(nutDir, bin)} not found or not executable (install Debian's nut-server)`;
    }
  }
  return null;
}

export function upsdAvailable(nutDir = DEFAULT_NUT_DIR): boolean {
  return upsdUnavailableReason(nutDir) === null;
}

/** A loopback port nobody holds right now: bind port 0, read it, let it go. */
export async function freePort(host = '127.0.0.1'): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, host, resolve);
  });
  const address = server.address();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  if (address === null || typeof address === 'string') throw new Error('could not read the bound port');
  return address.port;
}

// Every instance this process started, so an exit (even an uncaught error) stops them.
const live = new Set<Instance>();
let exitHookInstalled = false;

function installExitHook(): void {
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  process.on('exit', () => {
    for (const inst of live) inst.killNow();
  });
}

export async function startUpsd(opts: UpsdOptions): Promise<Upsd> {
  const nutDir = opts.nutDir ?? DEFAULT_NUT_DIR;
  const reason = upsdUnavailableReason(nutDir);
  if (reason) throw new Error(`cannot start upsd: ${reason}`);
  const host = opts.host ?? '127.0.0.1';
  sweepOrphans();
  await assertPortFree(host, opts.port);
  installExitHook();
  const inst = new Instance(opts, nutDir, host);
  live.add(inst);
  try {
    await inst.start(opts.readyTimeoutMs ?? 10_000);
  } catch (err) {
    await inst.stop();
    throw err;
  }
  return inst.handle();
}

class Instance {
  readonly dir: string;
  private driver: ChildProcess | null = null;
  private upsd: ChildProcess | null = null;
  private readonly logs: string[] = [];
  private stopping: Promise<void> | null = null;
  private readonly devPath: string;
  private readonly mode: DummyMode;

  constructor(
    private readonly opts: UpsdOptions,
    private readonly nutDir: string,
    private readonly host: string,
  ) {
    this.mode = opts.mode ?? 'dummy-once';
    this.dir = mkdtempSync(join(tmpdir(), `${DIR_PREFIX}${process.pid}-`));
    this.devPath = join(this.dir, `${opts.upsName}.dev`);
    writeFileSync(this.devPath, devText(opts.dev));
    writeFileSync(
      join(this.dir, 'ups.conf'),
      `[${opts.upsName}]\n  driver = dummy-ups\n  port = ${this.devPath}\n  mode = ${this.mode}\n  desc = "seatbelt drill"\n`,
      { mode: 0o600 },
    );
    const maxAge = opts.maxAgeS !== undefined ? `MAXAGE ${opts.maxAgeS}\n` : '';
    writeFileSync(join(this.dir, 'upsd.conf'), `LISTEN ${host} ${opts.port}\n${maxAge}`, { mode: 0o600 });
    writeFileSync(join(this.dir, 'upsd.users'), '', { mode: 0o600 });
    this.writeOwner();
  }

  async start(readyTimeoutMs: number): Promise<void> {
    const until = performance.now() + readyTimeoutMs;
    await this.startDriver(until);
    this.upsd = this.spawnDaemon('upsd', []);
    this.writeOwner();
    await this.waitForState(this.opts.dev, until);
  }

  handle(): Upsd {
    return {
      host: this.host,
      port: this.opts.port,
      upsName: this.opts.upsName,
      dir: this.dir,
      setState: (dev, o) => this.setState(dev, o?.timeoutMs ?? 10_000),
      stopDriver: () => this.stopDriver(),
      freezeDriver: () => this.driver?.kill('SIGSTOP'),
      thawDriver: () => this.driver?.kill('SIGCONT'),
      stop: () => this.stop(),
    };
  }

  private async setState(dev: DevState, timeoutMs: number): Promise<void> {
    const until = performance.now() + timeoutMs;
    writeFileSync(this.devPath, devText(dev));
    if (this.mode === 'dummy-once') {
      await this.stopDriver();
      await this.startDriver(until);
    }
    await this.waitForState(dev, until);
  }

  /** Until upsd serves what the .dev file says (it answers `ups.status WAIT` before the driver's first dump). */
  private waitForState(dev: DevState, until: number): Promise<void> {
    const want = typeof dev === 'string' ? parseDev(dev) : dev;
    return this.waitFor(
      until,
      (r) => r.ok && r.vars['ups.status'] !== 'WAIT' && Object.entries(want).every(([k, v]) => r.vars[k] === v),
      `upsd to serve ${JSON.stringify(want)}`,
    );
  }

  private async startDriver(until: number): Promise<void> {
    const socket = join(this.dir, `dummy-ups-${this.opts.upsName}`);
    rmSync(socket, { force: true });
    this.driver = this.spawnDaemon('dummy-ups', ['-a', this.opts.upsName]);
    this.writeOwner();
    // upsd connects to the driver's socket at start; starting it before the socket exists costs a retry cycle.
    while (!existsSync(socket)) {
      this.assertRunning();
      if (performance.now() > until) throw new Error(`dummy-ups did not create ${socket} in time${this.logTail()}`);
      await sleep(20);
    }
  }

  private async stopDriver(): Promise<void> {
    const d = this.driver;
    this.driver = null;
    if (d) await terminate(d);
  }

  private spawnDaemon(name: 'upsd' | 'dummy-ups', args: string[]): ChildProcess {
    const argv = [join(this.nutDir, name), ...args, '-FF', ...(process.getuid?.() === 0 ? ['-u', 'root'] : [])];
    const [file, ...rest] = hasSetpriv() ? ['setpriv', '--pdeathsig', 'SIGKILL', ...argv] : argv;
    const child = spawn(file!, rest, {
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, NUT_CONFPATH: this.dir, NUT_STATEPATH: this.dir, NUT_ALTPIDPATH: this.dir },
    });
    const keep = (chunk: Buffer): void => {
      this.logs.push(...chunk.toString('utf8').split('\n').filter(Boolean).map((l) => `${name}: ${l}`));
      if (this.logs.length > 200) this.logs.splice(0, this.logs.length - 200);
    };
    child.stdout?.on('data', keep);
    child.stderr?.on('data', keep);
    child.on('error', (err) => this.logs.push(`${name}: ${err.message}`));
    return child;
  }

  private writeOwner(): void {
    const pids = [this.driver?.pid, this.upsd?.pid].filter((p): p is number => typeof p === 'number');
    writeFileSync(join(this.dir, 'owner.json'), JSON.stringify({ owner: process.pid, pids }));
  }

  private assertRunning(): void {
    for (const [name, child] of [['dummy-ups', this.driver], ['upsd', this.upsd]] as const) {
      if (child && child.exitCode !== null) {
        const log = this.logs.join('\n');
        if (name === 'upsd' && /not listening on|no listening interface/i.test(log)) {
          throw new Error(`upsd could not listen on ${this.host}:${this.opts.port} (port already in use?)${this.logTail()}`);
        }
        throw new Error(`${name} exited with code ${child.exitCode}${this.logTail()}`);
      }
    }
  }

  private async waitFor(until: number, ok: (r: NutResult) => boolean, what: string): Promise<void> {
    let last: NutResult | null = null;
    for (;;) {
      this.assertRunning();
      last = await listVars(this.opts.upsName, { host: this.host, port: this.opts.port, timeoutMs: 1000 });
      if (ok(last)) return;
      if (performance.now() > until) {
        const seen = last.ok ? `ups.status ${JSON.stringify(last.vars['ups.status'])}` : last.error.message;
        throw new Error(`timed out waiting for ${what} on ${this.host}:${this.opts.port} (last: ${seen})${this.logTail()}`);
      }
      await sleep(50);
    }
  }

  private logTail(): string {
    return this.logs.length > 0 ? `\n${this.logs.slice(-12).join('\n')}` : '';
  }

  stop(): Promise<void> {
    this.stopping ??= (async () => {
      const children = [this.upsd, this.driver].filter((c): c is ChildProcess => c !== null);
      this.upsd = null;
      this.driver = null;
      await Promise.all(children.map(terminate));
      rmSync(this.dir, { recursive: true, force: true });
      live.delete(this);
    })();
    return this.stopping;
  }

  /** Synchronous, for process exit: no waiting is possible there. */
  killNow(): void {
    for (const c of [this.upsd, this.driver]) {
      if (c && c.exitCode === null && c.signalCode === null) {
        c.kill('SIGCONT');
        c.kill('SIGKILL');
      }
    }
    rmSync(this.dir, { recursive: true, force: true });
  }
}

async function terminate(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  child.kill('SIGCONT'); // a frozen driver cannot act on SIGTERM
  child.kill('SIGTERM');
  const killer = setTimeout(() => child.kill('SIGKILL'), 2000);
  await exited;
  clearTimeout(killer);
}

function devText(dev: DevState): string {
  if (typeof dev === 'string') return dev.endsWith('\n') ? dev : `${dev}\n`;
  return Object.entries(dev).map(([k, v]) => `${k}: ${v}\n`).join('');
}

function parseDev(text: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const line of text.split('\n')) {
    const m = /^\s*([A-Za-z0-9_.]+)\s*:\s*(.*?)\s*$/.exec(line);
    if (m && !line.trim().startsWith('#')) out[m[1]!] = m[2]!.replace(/^"(.*)"$/, '$1');
  }
  return out;
}

async function assertPortFree(host: string, port: number): Promise<void> {
  const server = createServer();
  try {
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, host, resolve);
    });
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    throw new Error(`cannot start upsd on ${host}:${port}: ${code === 'EADDRINUSE' ? 'the port is already in use' : (code ?? String(err))}`);
  }
  await new Promise<void>((resolve) => server.close(() => resolve()));
}

let setprivCache: boolean | null = null;
function hasSetpriv(): boolean {
  if (setprivCache === null) {
    setprivCache = ['/usr/bin/setpriv', '/bin/setpriv'].some((p) => {
      try {
        accessSync(p, constants.X_OK);
        return true;
      } catch {
        return false;
      }
    });
  }
  return setprivCache;
}

/** Instances left by a process that died without stopping them: kill their daemons, remove their dirs. */
function sweepOrphans(): void {
  let names: string[];
  try {
    names = readdirSync(tmpdir()).filter((n) => n.startsWith(DIR_PREFIX));
  } catch {
    return;
  }
  for (const name of names) {
    const dir = join(tmpdir(), name);
    let owner: { owner: number; pids: number[] };
    try {
      owner = JSON.parse(readFileSync(join(dir, 'owner.json'), 'utf8')) as typeof owner;
    } catch {
      continue; // being set up right now, or not ours to judge
    }
    if (owner.owner === process.pid || alive(owner.owner)) continue;
    for (const pid of owner.pids) {
      if (isNutDaemon(pid)) {
        try {
          process.kill(pid, 'SIGKILL');
        } catch {
          // gone already
        }
      }
    }
    rmSync(dir, { recursive: true, force: true });
  }
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function isNutDaemon(pid: number): boolean {
  try {
    const cmd = readFileSync(`/proc/${pid}/cmdline`, 'utf8');
    return /\/(upsd|dummy-ups)\0/.test(cmd) || /\/(upsd|dummy-ups)$/.test(cmd);
  } catch {
    return false;
  }
}
