// One drill upsd: a real upsd with the dummy-ups driver (Debian nut-server, binaries in /lib/nut/) on
// a loopback port, started, driven (new UPS state, a lost or frozen driver) and stopped.
import { accessSync, constants, existsSync, rmSync } from 'node:fs';
import type { ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { listVars, type NutResult } from '../../src/probes/nut.ts';
import { assertLoopback, assertPortFree, hostPort, waitForListener } from '../net.ts';
import { parseDev, writeConfigDir, writeDev, type ConfigDir, type DevState, type DummyMode } from './config.ts';
import { killNow, spawnDaemon, sweepOrphans, terminate, track, writeOwner, type DaemonName } from './processes.ts';

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

export async function startUpsd(opts: UpsdOptions): Promise<Upsd> {
  const nutDir = opts.nutDir ?? DEFAULT_NUT_DIR;
  const reason = upsdUnavailableReason(nutDir);
  if (reason) throw new Error(`cannot start upsd: ${reason}`);
  const host = opts.host ?? '127.0.0.1';
  assertLoopback(host, 'let upsd listen on');
  sweepOrphans();
  await assertPortFree(host, opts.port, 'upsd');
  const inst = new Instance(opts, nutDir, host);
  try {
    await inst.start(opts.readyTimeoutMs ?? 10_000);
  } catch (err) {
    await inst.stop();
    throw err;
  }
  return inst.handle();
}

class Instance {
  private readonly files: ConfigDir;
  private driver: ChildProcess | null = null;
  private upsd: ChildProcess | null = null;
  private readonly logs: string[] = [];
  private stopping: Promise<void> | null = null;
  private readonly mode: DummyMode;
  private readonly untrack: () => void;

  constructor(
    private readonly opts: UpsdOptions,
    private readonly nutDir: string,
    private readonly host: string,
  ) {
    this.mode = opts.mode ?? 'dummy-once';
    this.files = writeConfigDir({ upsName: opts.upsName, host, port: opts.port, dev: opts.dev, mode: this.mode, ...(opts.maxAgeS !== undefined ? { maxAgeS: opts.maxAgeS } : {}) });
    this.untrack = track(this);
    this.writeOwner();
  }

  private get where(): string {
    return hostPort(this.host, this.opts.port);
  }

  async start(readyTimeoutMs: number): Promise<void> {
    const until = performance.now() + readyTimeoutMs;
    await this.startDriver(until);
    this.upsd = this.spawn('upsd', []);
    this.writeOwner();
    await waitForListener(this.host, this.opts.port, { timeoutMs: Math.max(0, until - performance.now()), check: () => this.assertRunning() }).catch((err: unknown) => {
      throw new Error(`upsd: ${err instanceof Error ? err.message : String(err)}${this.logTail()}`);
    });
    await this.waitForState(this.opts.dev, until);
  }

  handle(): Upsd {
    return {
      host: this.host,
      port: this.opts.port,
      upsName: this.opts.upsName,
      dir: this.files.dir,
      setState: (dev, o) => this.setState(dev, o?.timeoutMs ?? 10_000),
      stopDriver: () => this.stopDriver(),
      freezeDriver: () => this.driver?.kill('SIGSTOP'),
      thawDriver: () => this.driver?.kill('SIGCONT'),
      stop: () => this.stop(),
    };
  }

  private async setState(dev: DevState, timeoutMs: number): Promise<void> {
    const until = performance.now() + timeoutMs;
    writeDev(this.files.devPath, dev);
    if (this.mode === 'dummy-once') {
      await this.stopDriver();
      await this.startDriver(until);
    }
    await this.waitForState(dev, until);
  }

  /** Until upsd serves what the .dev file says (it answers `ups.status WAIT` before the driver's first dump). */
  private async waitForState(dev: DevState, until: number): Promise<void> {
    const want = typeof dev === 'string' ? parseDev(dev) : dev;
    let last: NutResult | null = null;
    for (;;) {
      this.assertRunning();
      last = await listVars(this.opts.upsName, { host: this.host, port: this.opts.port, timeoutMs: 1000 });
      if (last.ok && last.vars['ups.status'] !== 'WAIT' && Object.entries(want).every(([k, v]) => last?.ok && last.vars[k] === v)) return;
      if (performance.now() > until) {
        const seen = last.ok ? `ups.status ${JSON.stringify(last.vars['ups.status'])}` : last.error.message;
        throw new Error(`timed out waiting for upsd to serve ${JSON.stringify(want)} on ${this.where} (last: ${seen})${this.logTail()}`);
      }
      await sleep(50);
    }
  }

  private async startDriver(until: number): Promise<void> {
    const socket = this.files.driverSocket;
    rmSync(socket, { force: true });
    this.driver = this.spawn('dummy-ups', ['-a', this.opts.upsName]);
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

  private spawn(name: DaemonName, args: string[]): ChildProcess {
    return spawnDaemon(name, args, {
      nutDir: this.nutDir,
      dir: this.files.dir,
      log: (line) => {
        this.logs.push(line);
        if (this.logs.length > 200) this.logs.splice(0, this.logs.length - 200);
      },
    });
  }

  private writeOwner(): void {
    writeOwner(this.files.dir, [this.driver, this.upsd]);
  }

  private assertRunning(): void {
    for (const [name, child] of [['dummy-ups', this.driver], ['upsd', this.upsd]] as const) {
      if (child && child.exitCode !== null) {
        const log = this.logs.join('\n');
        if (name === 'upsd' && /not listening on|no listening interface/i.test(log)) {
          throw new Error(`upsd could not listen on ${this.where} (port already in use?)${this.logTail()}`);
        }
        throw new Error(`${name} exited with code ${child.exitCode}${this.logTail()}`);
      }
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
      rmSync(this.files.dir, { recursive: true, force: true });
      this.untrack();
    })();
    return this.stopping;
  }

  /** Synchronous, for process exit: no waiting is possible there. */
  killNow(): void {
    killNow([this.upsd, this.driver]);
    rmSync(this.files.dir, { recursive: true, force: true });
  }
}
