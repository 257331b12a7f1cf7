// Where the journal file lives. One bot per site usually runs from the inventory's folder, so the
// inventory may name it (relative to itself, like its other paths); a person trying things can
// point SEAT_JOURNAL elsewhere; otherwise it is state, not config: XDG's state directory.
import { homedir } from 'node:os';
import { dirname, isAbsolute, join, resolve } from 'node:path';

export interface JournalLocation {
  path: string;
  from: 'SEAT_JOURNAL' | 'inventory' | 'state-dir';
}

export function journalPath(env: NodeJS.ProcessEnv, inventory?: { journal?: string }, inventoryPath?: string, home: () => string = homedir): JournalLocation {
  const fromEnv = env.SEAT_JOURNAL;
  if (fromEnv) return { path: resolve(fromEnv), from: 'SEAT_JOURNAL' };
  const named = inventory?.journal;
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
