// A person at the drill console: the real `seat` (or `npm start`) as a child, on a pseudo-terminal
// through util-linux's `script` when it is there, else with piped stdin. Lines are typed after the
// output shows what the person waits for; the output is kept with terminal escapes removed.
import { spawn, spawnSync, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { parse } from 'yaml';

export const MAIN = fileURLToPath(new URL('../../src/cli/main.ts', import.meta.url));
export const START = fileURLToPath(new URL('../../src/cli/start.ts', import.meta.url));

/** Why a pseudo-terminal cannot be had here, or null. */
export function noPty(): string | null {
  if (process.env.SEAT_TEST_NO_PTY) return 'SEAT_TEST_NO_PTY is set';
  const r = spawnSync('script', ['--version'], { encoding: 'utf8', timeout: 5000 });
  return r.status === 0 ? null : 'util-linux script is not installed: no pseudo-terminal';
}

export function cleanEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, SEAT_USER: 'drill-person', NO_COLOR: '1', ...extra };
  for (const k of ['SEAT_INVENTORY', 'SEAT_JOURNAL', 'SEAT_DRILL_KEEP', 'SLACK_BOT_TOKEN', 'SLACK_APP_TOKEN', 'SLACK_SIGNING_SECRET']) delete env[k];
  return env;
}

const ESCAPES = /\x1b\[[0-9;?]*[A-Za-z]|\r/g;

export class Session {
  private raw = '';
  private seen = 0;
  private readonly child: ChildProcessWithoutNullStreams;
  readonly exited: Promise<number | null>;
  readonly pty: boolean;

  /** `argv`: the program's arguments after node (e.g. [MAIN, 'drill', 'fv-site-dark']). */
  constructor(argv: string[], opts: { pty: boolean; env?: NodeJS.ProcessEnv }) {
    this.pty = opts.pty;
    const node = [process.execPath, '--import', 'tsx', ...argv];
    const env = opts.env ?? cleanEnv();
    this.child = opts.pty
      ? spawn('script', ['-qfec', `stty cols 200 rows 50; exec ${node.map(shellQuote).join(' ')}`, '/dev/null'], { env })
      : spawn(node[0]!, node.slice(1), { env });
    this.child.stdout.on('data', (d: Buffer) => (this.raw += d.toString()));
    this.child.stderr.on('data', (d: Buffer) => (this.raw += d.toString()));
    this.exited = new Promise((resolve) => this.child.on('close', (code) => resolve(code)));
  }

  get pid(): number | undefined {
    return this.child.pid;
  }

  /** Everything shown so far, escapes removed. */
  get out(): string {
    return this.raw.replace(ESCAPES, '');
  }

  /** Waits until the output since the last wait matches; returns that stretch. */
  async waitFor(re: RegExp, ms = 60_000): Promise<string> {
    const t0 = performance.now();
    for (;;) {
      const fresh = this.out.slice(this.seen);
      const m = re.exec(fresh);
      if (m) {
        this.seen += m.index + m[0].length;
        return fresh.slice(0, m.index + m[0].length);
      }
      if (performance.now() - t0 > ms || (this.child.exitCode !== null && !re.exec(this.out.slice(this.seen)))) {
        throw new Error(`waited for ${re} ${this.child.exitCode !== null ? `but the console exited (${this.child.exitCode})` : `${ms} ms`}; output since the last wait:\n${fresh.slice(-4000)}`);
      }
      await new Promise((r) => setTimeout(r, 25));
    }
  }

  /** Keys as typed: a line ends with Enter (CR on a terminal, LF in a pipe). */
  type(line: string): void {
    this.child.stdin.write(`${line}${this.pty ? '\r' : '\n'}`);
  }

  keys(raw: string): void {
    this.child.stdin.write(raw);
  }

  /** No more input (a pipe's end). */
  end(): void {
    this.child.stdin.end();
  }

  /** SEAT_TEST_DUMP=FILE: the whole session as shown, for reading after a run. */
  dump(): void {
    if (process.env.SEAT_TEST_DUMP) writeFileSync(process.env.SEAT_TEST_DUMP, this.out);
  }

  /** Ends it if it still runs: SIGTERM first (its exit hooks remove the namespace and folder), then SIGKILL. */
  async close(): Promise<void> {
    if (this.child.exitCode !== null || this.child.signalCode !== null) return;
    this.child.kill('SIGTERM');
    const t = setTimeout(() => this.child.kill('SIGKILL'), 5000);
    await this.exited;
    clearTimeout(t);
  }
}

function shellQuote(s: string): string {
  return `'${s.replace(/'/g, `'\\''`)}'`;
}

/** The path after `label:` in the console's opening lines. */
export function pathAfter(out: string, label: string): string {
  const m = new RegExp(`^${label}:\\s+(\\S+)`, 'm').exec(out);
  if (!m) throw new Error(`no "${label}:" line in:\n${out}`);
  return m[1]!;
}

/** Every host:port the drill's inventory points at: gateway, seats, BMCs, firewalls, UPSes. */
export function inventoryPorts(path: string): { host: string; port: number }[] {
  const inv = parse(readFileSync(path, 'utf8')) as {
    gateway: { baseUrl: string };
    sites: Record<string, { hosts: Record<string, { address: string }>; ups?: { host: string; port: number }; bmc?: Record<string, { address: string; tcpPorts: number[] }>; firewall?: { address: string; tcpPorts: number[] } }>;
    seats: Record<string, { host: string; port: number }>;
  };
  const url = new URL(inv.gateway.baseUrl);
  const out = [{ host: url.hostname, port: Number(url.port) }];
  const address = new Map<string, string>();
  for (const site of Object.values(inv.sites)) {
    for (const [name, h] of Object.entries(site.hosts)) address.set(name, h.address);
    if (site.ups) out.push({ host: site.ups.host, port: site.ups.port });
    for (const d of [...Object.values(site.bmc ?? {}), ...(site.firewall ? [site.firewall] : [])]) for (const port of d.tcpPorts) out.push({ host: d.address, port });
  }
  for (const s of Object.values(inv.seats)) out.push({ host: address.get(s.host)!, port: s.port });
  return out;
}
