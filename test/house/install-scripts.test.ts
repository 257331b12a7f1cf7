// npm 11 warns at the end of `npm install` about every dependency with an install script that
// package.json's `allowScripts` does not cover (npm 12 will skip their scripts). This test reads
// node_modules as npm left it and fails when one appears that allowScripts does not name, so a new
// native dependency is a reviewed line in package.json, never a warning on a newcomer's first command.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

const root = join(import.meta.dirname, '..', '..');
const INSTALL_SCRIPTS = ['preinstall', 'install', 'postinstall'] as const;

interface Manifest { name?: string; version?: string; scripts?: Record<string, string>; allowScripts?: Record<string, unknown> }

function readManifest(dir: string): Manifest | null {
  try { return JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as Manifest; } catch { return null; }
}

/** Every installed package (nested node_modules included) that runs code at install time. */
function withInstallScripts(dir: string, found: Map<string, string>): void {
  if (!existsSync(dir)) return;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (!entry.isDirectory() || entry.name.startsWith('.')) continue;
    const path = join(dir, entry.name);
    if (entry.name.startsWith('@')) { withInstallScripts(path, found); continue; }
    const m = readManifest(path);
    if (m?.name) {
      const scripts = INSTALL_SCRIPTS.filter((s) => typeof m.scripts?.[s] === 'string');
      // npm runs `node-gyp rebuild` for a package with a binding.gyp and no install script of its own.
      if (scripts.length > 0 || existsSync(join(path, 'binding.gyp'))) found.set(m.name, m.version ?? '');
    }
    withInstallScripts(join(path, 'node_modules'), found);
  }
}

/** allowScripts keys are a name (`pkg`) or a pinned name (`pkg@1.2.3`, `@scope/pkg@1.2.3`). */
function covered(allow: Record<string, unknown>, name: string, version: string): boolean {
  return allow[name] === true || allow[`${name}@*`] === true || allow[`${name}@${version}`] === true;
}

test('every installed package with an install script is covered by package.json allowScripts', () => {
  const own = readManifest(root);
  assert.ok(own, 'package.json readable');
  const allow = own.allowScripts ?? {};
  const found = new Map<string, string>();
  withInstallScripts(join(root, 'node_modules'), found);
  assert.ok(found.size > 0, 'node_modules holds the native dependencies (better-sqlite3)');
  const uncovered = [...found].filter(([name, version]) => !covered(allow, name, version)).map(([n, v]) => `${n}@${v}`);
  assert.deepEqual(uncovered, [], `install scripts not covered by package.json allowScripts: ${uncovered.join(', ')}`);
});
