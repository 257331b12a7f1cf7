// After tsc: the compiled drill needs its stand-in executables, GPU fixtures and inventory beside it,
// and the quick `seat help` its usage text.
import { cpSync, writeFileSync } from 'node:fs';

for (const part of ['bin', 'gpus', 'fleet.yaml']) {
  cpSync(new URL(`../drills/${part}`, import.meta.url), new URL(`../dist/drills/${part}`, import.meta.url), { recursive: true });
}

// `seat help` without loading the command table (and zod): the usage, written from the table now.
const { USAGE } = await import(new URL('../dist/src/commands/parse.js', import.meta.url).href);
writeFileSync(new URL('../dist/usage.txt', import.meta.url), `${USAGE}\n`);
