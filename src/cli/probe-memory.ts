// `seat probe`'s memory between runs, in the state directory: one small JSON file per inventory, read
// before the plan (the targets that cost their timeout last time are asked first) and written after the
// report. A hint, not a record: a missing, unreadable or foreign file is an empty memory, and a failed
// write loses nothing the person sees. SEAT_PROBE_MEMORY=off turns it off.
import { closeSync, constants, fstatSync, openSync, readFileSync, renameSync, unlinkSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { makeDirs, stateDir } from '../journal/location.ts';
import { ProbeMemory } from '../probes/memory.ts';

/** A memory file past this is not read (50,000 targets' keys are well under it). */
export const MEMORY_MAX_BYTES = 4 * 1024 * 1024;

/** Where the memory of the fleet in `inventoryPath` lives, or null when it is turned off. */
export function memoryPath(env: NodeJS.ProcessEnv, fleet: string, inventoryPath: string): string | null {
  if (env.SEAT_PROBE_MEMORY === 'off') return null;
  const name = fleet.replace(/[^A-Za-z0-9._-]/g, '_').slice(0, 64) || 'fleet';
  return join(stateDir(env), 'probe-memory', `${name}-${fnv1a(resolve(inventoryPath))}.json`);
}

export function loadMemory(path: string | null): ProbeMemory {
  if (path === null) return new ProbeMemory();
  let fd: number;
  try {
    // Never blocks on a FIFO put in its place, never follows a link: only a plain file of ours is read.
    fd = openSync(path, constants.O_RDONLY | constants.O_NONBLOCK | constants.O_NOFOLLOW);
  } catch {
    return new ProbeMemory();
  }
  try {
    const st = fstatSync(fd);
    if (!st.isFile() || st.size > MEMORY_MAX_BYTES) return new ProbeMemory();
    return ProbeMemory.parse(readFileSync(fd, 'utf8'));
  } catch {
    return new ProbeMemory();
  } finally {
    closeSync(fd);
  }
}

/** Writes the memory whole or not at all: a temporary file made new ('wx': never through a link or into a
 * file someone put there first; then this save is given up), renamed over it. Two probes at once: the
 * last one to end wins (a hint). Says why when it could not. */
export function saveMemory(path: string | null, memory: ProbeMemory): string | null {
  if (path === null) return null;
  const tmp = `${path}.${process.pid}.${Date.now()}.tmp`;
  try {
    makeDirs(dirname(path));
    writeFileSync(tmp, JSON.stringify(memory), { mode: 0o600, flag: 'wx' });
    renameSync(tmp, path);
    return null;
  } catch (err) {
    try {
      unlinkSync(tmp);
    } catch {
      // never made, or already renamed
    }
    return err instanceof Error ? (err.message.split('\n')[0] ?? '') : String(err);
  }
}

/** 32-bit FNV-1a of a path, as 8 hex digits: two inventories of one fleet name keep two memories. */
function fnv1a(s: string): string {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) {
    h ^= s.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h.toString(16).padStart(8, '0');
}
