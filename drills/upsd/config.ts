// What a drill upsd reads: the dummy-ups .dev file (the UPS's variables) and NUT's ups.conf,
// upsd.conf and upsd.users, all in one temp dir of its own.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export type DummyMode = 'dummy-once' | 'dummy-loop';
/** The UPS's variables (`{ 'ups.status': 'OL' }`) or a whole `.dev` file. */
export type DevState = Record<string, string> | string;

/** Every drill upsd's dir starts so; the process side sweeps up dirs whose owner is gone. */
export const DIR_PREFIX = 'seatbelt-upsd-';

export interface UpsdConfig {
  upsName: string;
  host: string;
  port: number;
  dev: DevState;
  mode: DummyMode;
  /** upsd's MAXAGE: seconds without word from the driver before upsd calls the data stale (upsd's default 15). */
  maxAgeS?: number;
}

export interface ConfigDir {
  dir: string;
  devPath: string;
  /** The socket dummy-ups creates and upsd connects to. */
  driverSocket: string;
}

/** A fresh temp dir holding everything upsd and dummy-ups read (NUT_CONFPATH=dir). */
export function writeConfigDir(c: UpsdConfig): ConfigDir {
  const dir = mkdtempSync(join(tmpdir(), `${DIR_PREFIX}${process.pid}-`));
  const devPath = join(dir, `${c.upsName}.dev`);
  writeFileSync(devPath, devText(c.dev));
  writeFileSync(join(dir, 'ups.conf'), `[${c.upsName}]\n  driver = dummy-ups\n  port = ${devPath}\n  mode = ${c.mode}\n  desc = "seatbelt drill"\n`, { mode: 0o600 });
  const maxAge = c.maxAgeS !== undefined ? `MAXAGE ${c.maxAgeS}\n` : '';
  writeFileSync(join(dir, 'upsd.conf'), `LISTEN ${c.host} ${c.port}\n${maxAge}`, { mode: 0o600 });
  writeFileSync(join(dir, 'upsd.users'), '', { mode: 0o600 });
  return { dir, devPath, driverSocket: join(dir, `dummy-ups-${c.upsName}`) };
}

export function writeDev(devPath: string, dev: DevState): void {
  writeFileSync(devPath, devText(dev));
}

export function devText(dev: DevState): string {
  if (typeof dev === 'string') return dev.endsWith('\n') ? dev : `${dev}\n`;
  return Object.entries(dev).map(([k, v]) => `${k}: ${v}\n`).join('');
}

/** The variables a .dev text sets, as upsd will serve them. */
export function parseDev(text: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const line of text.split('\n')) {
    const m = /^\s*([A-Za-z0-9_.]+)\s*:\s*(.*?)\s*$/.exec(line);
    if (m && !line.trim().startsWith('#')) out[m[1]!] = m[2]!.replace(/^"(.*)"$/, '$1');
  }
  return out;
}
