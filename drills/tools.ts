// The real programs a drill leans on, looked for before it starts: ping (ICMP to the drill's
// addresses), ip and root (fv dark inside a network namespace), upsd and dummy-ups from Debian's
// nut-server (a real upsd per site UPS). What was found and what was not is the drill's first word,
// with what each absence changes: an absence is "not measured", never a fake failure.
import { accessSync, constants } from 'node:fs';
import { join } from 'node:path';
import { upsdUnavailableReason } from './upsd.ts';

export const DEFAULT_NUT_DIR = '/lib/nut';

export interface DrillTools {
  /** Where each was found on PATH, or null. */
  ping: string | null;
  ip: string | null;
  root: boolean;
  /** The folder upsd and dummy-ups were found in, or null (then `nutMissing` says why). */
  nut: string | null;
  nutMissing: string | null;
}

export interface ToolSeams {
  /** Whose PATH is searched (default: this process's environment). */
  env?: NodeJS.ProcessEnv;
  /** Where nut-server's upsd and dummy-ups are (default /lib/nut). */
  nutDir?: string;
  uid?: number;
}

export function findTools(o: ToolSeams = {}): DrillTools {
  const env = o.env ?? process.env;
  const nutDir = o.nutDir ?? DEFAULT_NUT_DIR;
  const nutMissing = upsdUnavailableReason(nutDir);
  return {
    ping: onPath('ping', env),
    ip: onPath('ip', env),
    root: (o.uid ?? process.getuid?.() ?? -1) === 0,
    nut: nutMissing ? null : nutDir,
    nutMissing,
  };
}

/** The first executable `name` in env.PATH, or null. */
export function onPath(name: string, env: NodeJS.ProcessEnv = process.env): string | null {
  for (const dir of (env.PATH ?? '').split(':')) {
    if (dir === '') continue;
    const path = join(dir, name);
    try {
      accessSync(path, constants.X_OK);
      return path;
    } catch {
      // not here
    }
  }
  return null;
}

/** The drill's first lines: what it found, what it did not and what that changes. `dark`: the scenario's dark sites. */
export function toolLines(t: DrillTools, dark: readonly string[]): string[] {
  const found: string[] = [];
  const missing: string[] = [];
  const darkWords = dark.length > 0 ? dark.join(', ') : null;
  if (t.ping) found.push(`ping (${t.ping})`);
  else {
    missing.push(
      `ping (apt-get install iputils-ping): ICMP is not measured — each address without a TCP port reads "not measured", never down; the other sites' control checks go by TCP to their configured ports${darkWords ? `; ${darkWords} dark by its closed ports` : ''}`,
    );
  }
  if (t.ip) found.push(`ip (${t.ip})`);
  if (t.nut) found.push(`upsd and dummy-ups (${t.nut}, nut-server)`);
  else missing.push(`upsd and dummy-ups (apt-get install nut-server): ${t.nutMissing ?? 'not found'}; the UPSes that would answer are left out of the drill inventory (not probed)`);
  if (darkWords) {
    if (t.root && t.ip) found.push(`root: ${darkWords} dark inside a network namespace`);
    else missing.push(`${t.root ? 'ip (apt-get install iproute2)' : 'root'}: no network namespace; ${t.ping ? `a ping stand-in never answers for ${darkWords}` : `${darkWords} dark by its closed ports only`}`);
  } else if (!t.ip) missing.push('ip (apt-get install iproute2): not needed by this scenario');
  return [`tools found: ${found.length > 0 ? found.join(', ') : 'none'}`, ...missing.map((m) => `not found: ${m}`)];
}
