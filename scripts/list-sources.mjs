// What bin/seat.js stats to tell a stale build (a pull without `npm run build`) without walking src/
// at every start: every source file, and every folder (a file added, removed or renamed changes its
// folder's mtime). Paths relative to the source folder; '' is the folder itself.
import { readdirSync } from 'node:fs';
import { join, relative } from 'node:path';

/** @param {string} src @returns {{ dirs: string[], files: string[] }} */
export function listSources(src) {
  const entries = readdirSync(src, { recursive: true, withFileTypes: true });
  const rel = (e) => relative(src, join(e.parentPath ?? e.path, e.name));
  return { dirs: ['', ...entries.filter((e) => e.isDirectory()).map(rel)], files: entries.filter((e) => !e.isDirectory()).map(rel) };
}
