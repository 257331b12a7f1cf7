// This seatbelt's version (`seat --version`, a replica's heartbeat): read from package.json at run time, found by walking up from this module, so
// it answers the same from src/ (tsx) and from dist/src/ (compiled), where no package.json is copied.
import { readFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const PACKAGE_NAME = 'seatbelt';

export async function readVersion(from: string = import.meta.url, read = (p: string) => readFile(p, 'utf8')): Promise<string | null> {
  let dir = dirname(fileURLToPath(from));
  for (;;) {
    const found = await versionIn(join(dir, 'package.json'), read);
    if (found) return found;
    const up = dirname(dir);
    if (up === dir) return null;
    dir = up;
  }
}

async function versionIn(file: string, read: (p: string) => Promise<string>): Promise<string | null> {
  try {
    const pkg = JSON.parse(await read(file)) as { name?: unknown; version?: unknown };
    return pkg.name === PACKAGE_NAME && typeof pkg.version === 'string' ? pkg.version : null;
  } catch {
    return null;
  }
}
