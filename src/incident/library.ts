// Where the package's own files are (runbooks/), from this module's place: src/incident/ under
// the tests (tsx), dist/src/incident/ in the built CLI.
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

let root: string | undefined;

export function packageRoot(): string {
  if (root) return root;
  let dir = dirname(fileURLToPath(import.meta.url));
  for (let i = 0; i < 8; i++) {
    if (existsSync(join(dir, 'package.json')) && existsSync(join(dir, 'runbooks'))) return (root = dir);
    dir = dirname(dir);
  }
  return (root = process.cwd());
}
