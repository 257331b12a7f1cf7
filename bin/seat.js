#!/usr/bin/env node
// `seat` from a checkout: the compiled CLI (npm install builds it), or — when dist/ is missing or
// older than src/ (a pull without a rebuild) — the TypeScript itself through tsx, in a child
// that gets this process's SIGINT/SIGTERM (a kill aimed at `seat` must not leave it running).
import { existsSync, readFileSync, statSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { join } from 'node:path';

const root = fileURLToPath(new URL('..', import.meta.url));
const compiled = join(root, 'dist/src/cli/main.js');

/** The build is as new as every source: each file and folder of src/ and drills/ no newer than the
 * compiled CLI. A folder's mtime moves when a file in it is added, removed or renamed, so the build's
 * own list of them (dist/sources.json, written after the compile) is enough to stat: no walk of the
 * sources at every start (the walk cost more than the rest of `seat --version`). A list older than
 * the compiled CLI (a build that stopped half way) or not of that shape is not trusted: then the walk. */
async function fresh() {
  if (!existsSync(compiled)) return false;
  const built = statSync(compiled).mtimeMs;
  const newer = (rel) => (statSync(join(root, rel), { throwIfNoEntry: false })?.mtimeMs ?? Infinity) > built;
  const list = join(root, 'dist/sources.json');
  let listed = null;
  try {
    if (statSync(list).mtimeMs >= built) listed = JSON.parse(readFileSync(list, 'utf8'));
  } catch {
    listed = null;
  }
  const strings = (xs) => Array.isArray(xs) && xs.every((x) => typeof x === 'string');
  if (!(strings(listed?.dirs) && strings(listed?.files) && listed.dirs.includes('src'))) {
    const { listSources } = await import('../scripts/list-sources.mjs');
    listed = listSources(root);
  }
  return !listed.dirs.some(newer) && !listed.files.some(newer);
}

if (await fresh()) {
  await import(compiled);
} else {
  const { spawn } = await import('node:child_process');
  const child = spawn(process.execPath, ['--import', import.meta.resolve('tsx'), join(root, 'src/cli/main.ts'), ...process.argv.slice(2)], { stdio: 'inherit', cwd: process.cwd() });
  for (const sig of ['SIGINT', 'SIGTERM', 'SIGHUP']) process.on(sig, () => child.kill(sig));
  child.on('error', (err) => {
    process.stderr.write(`seat: cannot start the CLI: ${err.message}\n`);
    process.exit(3);
  });
  child.on('exit', (code, signal) => {
    const SIGNALS = { SIGINT: 130, SIGTERM: 143, SIGHUP: 129, SIGPIPE: 141 };
    process.exit(code ?? (signal && SIGNALS[signal]) ?? 3);
  });
}
