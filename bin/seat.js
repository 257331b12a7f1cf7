#!/usr/bin/env node
// `seat` from a checkout: the compiled CLI (npm install builds it), or — when dist/ is missing or
// older than src/ (a pull without a rebuild) — the TypeScript itself through tsx, in a child
// that gets this process's SIGINT/SIGTERM (a kill aimed at `seat` must not leave it running).
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { join } from 'node:path';

const root = fileURLToPath(new URL('..', import.meta.url));
const compiled = join(root, 'dist/src/cli/main.js');

/** The build is as new as every source: each file and folder it listed (dist/sources.json, written by
 * the build) no newer than the compiled CLI. A folder's mtime moves when a file in it is added,
 * removed or renamed, so a new source is seen without walking src/ at every start (that walk cost
 * more than the rest of `seat --version`). Without the list, the walk. */
function fresh() {
  if (!existsSync(compiled)) return false;
  const built = statSync(compiled).mtimeMs;
  const src = join(root, 'src');
  const newer = (rel) => (statSync(join(src, rel), { throwIfNoEntry: false })?.mtimeMs ?? Infinity) > built;
  let listed;
  try {
    listed = JSON.parse(readFileSync(join(root, 'dist/sources.json'), 'utf8'));
  } catch {
    listed = null;
  }
  if (Array.isArray(listed?.dirs) && Array.isArray(listed?.files)) return !listed.dirs.some(newer) && !listed.files.some(newer);
  return !readdirSync(src, { recursive: true }).some((f) => newer(String(f)));
}

if (fresh()) {
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
