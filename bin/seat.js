#!/usr/bin/env node
// `seat` from a checkout: the compiled CLI (npm install builds it), or — when dist/ is missing or
// older than src/ (a pull without a rebuild) — the TypeScript itself through tsx.
import { existsSync, readdirSync, statSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
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
  const r = spawnSync(process.execPath, ['--import', import.meta.resolve('tsx'), join(root, 'src/cli/main.ts'), ...process.argv.slice(2)], { stdio: 'inherit', cwd: process.cwd() });
  process.exitCode = r.status ?? 3;
}
