// Where the journal file lives. One bot per site usually runs from the inventory's folder, so the
// inventory may name it (relative to itself, like its other paths); a person trying things can
// point SEAT_JOURNAL elsewhere; otherwise it is state, not config: XDG's state directory.
import { mkdirSync, statSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, isAbsolute, join, resolve } from 'node:path';
import { isPostgresUrl } from './spec.ts';

export interface JournalLocation {
  path: string;
  from: 'SEAT_JOURNAL' | 'inventory' | 'state-dir';
}

export function journalPath(env: NodeJS.ProcessEnv, inventory?: { journal?: string }, inventoryPath?: string, home: () => string = homedir): JournalLocation {
  const fromEnv = env.SEAT_JOURNAL;
  // A postgres:// URL is the shared journal of replicas (open.ts), taken as written.
  if (fromEnv) return { path: isPostgresUrl(fromEnv) ? fromEnv : resolve(fromEnv), from: 'SEAT_JOURNAL' };
  const named = inventory?.journal;
  if (named && isPostgresUrl(named)) return { path: named, from: 'inventory' };
  if (named) {
    const base = inventoryPath ? dirname(resolve(inventoryPath)) : process.cwd();
    return { path: resolve(base, named), from: 'inventory' };
  }
  return { path: join(stateDir(env, home), 'journal.sqlite'), from: 'state-dir' };
}

/** seatbelt's folder in XDG's state directory ($XDG_STATE_HOME/seatbelt, else ~/.local/state/seatbelt). */
export function stateDir(env: NodeJS.ProcessEnv, home: () => string = homedir): string {
  // The XDG spec says a relative XDG_STATE_HOME is invalid and is to be ignored.
  const xdg = env.XDG_STATE_HOME;
  const state = xdg && isAbsolute(xdg) ? xdg : join(env.HOME || home(), '.local', 'state');
  return join(state, 'seatbelt');
}

/**
 * `mkdir -p` for state folders, private to the user. Not mkdirSync's `recursive`: under a parent that
 * exists but refuses new entries with ENOENT (/proc, /sys) it retries forever and the command never
 * ends. Here each missing folder is made once, top down, and the first refusal is thrown.
 */
export function makeDirs(dir: string, mode = 0o700): void {
  const missing: string[] = [];
  for (let d = resolve(dir); ; ) {
    try {
      if (statSync(d).isDirectory()) break;
      throw Object.assign(new Error(`${d}: not a folder`), { code: 'ENOTDIR' });
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
    }
    missing.push(d);
    const up = dirname(d);
    if (up === d) break;
    d = up;
  }
  for (const d of missing.reverse()) {
    try {
      mkdirSync(d, { mode });
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    }
  }
}
