#!/usr/bin/env node
// Runs the TypeScript CLI through tsx, so `npx seat ...` works from a checkout without a build step.
import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

const require = createRequire(import.meta.url);
const tsx = require.resolve('tsx');
const main = fileURLToPath(new URL('../src/cli/main.ts', import.meta.url));
const r = spawnSync(process.execPath, ['--import', tsx, main, ...process.argv.slice(2)], { stdio: 'inherit' });
process.exitCode = r.status ?? 3;
