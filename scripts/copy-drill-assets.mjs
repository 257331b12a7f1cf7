// After tsc: the compiled drill needs its stand-in executables, GPU fixtures and inventory beside it,
// the quick `seat help` its usage text, and bin/seat.js the list of what it was built from.
import { cpSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { listSources } from './list-sources.mjs';

for (const part of ['bin', 'gpus', 'fleet.yaml']) {
  cpSync(new URL(`../drills/${part}`, import.meta.url), new URL(`../dist/drills/${part}`, import.meta.url), { recursive: true });
}

// `seat help` without loading the command table (and zod): the usage, written from the table now.
const { USAGE } = await import(new URL('../dist/src/commands/parse.js', import.meta.url).href);
writeFileSync(new URL('../dist/usage.txt', import.meta.url), `${USAGE}\n`);

// What bin/seat.js stats to tell a stale build without walking the sources (./list-sources.mjs). Written
// last: a list older than the compiled CLI (a build that stopped half way) is not trusted.
writeFileSync(new URL('../dist/sources.json', import.meta.url), `${JSON.stringify(listSources(fileURLToPath(new URL('..', import.meta.url))))}\n`);
