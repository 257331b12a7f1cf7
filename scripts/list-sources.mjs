// What bin/seat.js stats to tell a stale build (a pull without `npm run build`) without walking the
// sources at every start: every file and folder of what the build compiles and copies (src/, drills/),
// relative to the checkout. A folder is listed because a file added, removed or renamed in it changes
// its mtime. Walked one folder at a time (not readdir's `recursive`, which lost entries in early Node 20).
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';

export const SOURCE_FOLDERS = ['src', 'drills'];

/** @param {string} root @param {readonly string[]} [folders] @returns {{ dirs: string[], files: string[] }} */
export function listSources(root, folders = SOURCE_FOLDERS) {
  const dirs = [];
  const files = [];
  const walk = (rel) => {
    dirs.push(rel);
    for (const e of readdirSync(join(root, rel), { withFileTypes: true })) {
      const child = join(rel, e.name);
      if (e.isDirectory()) walk(child);
      else files.push(child);
    }
  };
  for (const f of folders) if (existsSync(join(root, f))) walk(f);
  return { dirs, files };
}
