#!/usr/bin/env node
// `seat` from a checkout: the compiled CLI (npm install builds it), or — when dist/ is missing or
// older than src/ (a pull without a rebuild) — the TypeScript itself through tsx, in a child
// that gets this process's SIGINT/SIGTERM (a kill aimed at `seat` must not leave it running).
import { existsSync, readdirSync, statSync } from 'node:fs';
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { join } from 'node:path';

const root = fileURLToPath(new URL('..', import.meta.url));
const compiled = join(root, 'dist/src/cli/main.js');

function fresh() {
  if (!existsSync(compiled)) return false;
  const built = statSync(compiled).mtimeMs;
  return readdirSync(join(root, 'src'), { recursive: true }).every((f) => statSync(join(root, 'src', String(f))).mtimeMs <= built);
}

if (fresh()) {
  await import(compiled);
} else {
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
