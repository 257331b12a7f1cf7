// The compiled drill needs its stand-in executables, GPU fixtures and inventory beside it.
import { cpSync } from 'node:fs';

for (const part of ['bin', 'gpus', 'fleet.yaml']) {
  cpSync(new URL(`../drills/${part}`, import.meta.url), new URL(`../dist/drills/${part}`, import.meta.url), { recursive: true });
}
