#!/usr/bin/env node
// `seat` from a checkout: the compiled CLI (npm install builds it), or the TypeScript through tsx.
import { existsSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const compiled = fileURLToPath(new URL('../dist/src/cli/main.js', import.meta.url));
if (existsSync(compiled)) {
  await import(compiled);
} else {
  const source = fileURLToPath(new URL('../src/cli/main.ts', import.meta.url));
  const r = spawnSync(process.execPath, ['--import', 'tsx', source, ...process.argv.slice(2)], { stdio: 'inherit' });
  process.exitCode = r.status ?? 3;
}
