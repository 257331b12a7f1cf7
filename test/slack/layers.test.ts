// The layering DESIGN.md asks for, checked on the source: the Slack front end imports nothing from
// the terminal's, and the shared text (src/render/) imports no front end.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdir, readFile } from 'node:fs/promises';
import { join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const SRC = fileURLToPath(new URL('../../src/', import.meta.url));

async function sources(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { withFileTypes: true });
  const nested = await Promise.all(entries.map((e) => (e.isDirectory() ? sources(join(dir, e.name)) : Promise.resolve(e.name.endsWith('.ts') ? [join(dir, e.name)] : []))));
  return nested.flat();
}

async function importsOf(file: string): Promise<string[]> {
  const text = await readFile(file, 'utf8');
  return [...text.matchAll(/(?:^|\n)\s*(?:import|export)[^'"]*?from\s+'(\.[^']+)'|import\('(\.[^']+)'\)/g)].map((m) => relative(SRC, resolve(file, '..', m[1] ?? m[2] ?? '')));
}

for (const [folder, banned] of [
  ['slack', ['cli/']],
  ['render', ['cli/', 'slack/']],
] as const) {
  test(`src/${folder}/ imports nothing from ${banned.map((b) => `src/${b}`).join(' or ')}`, async () => {
    for (const file of await sources(join(SRC, folder))) {
      for (const target of await importsOf(file)) {
        assert.ok(!banned.some((b) => target.startsWith(b)), `${relative(SRC, file)} imports ${target}`);
      }
    }
  });
}

test('the Slack app plans no probe of its own: the runner’s start event says how many tasks', async () => {
  for (const file of await sources(join(SRC, 'slack'))) {
    assert.doesNotMatch(await readFile(file, 'utf8'), /\bplanProbe\b/, relative(SRC, file));
  }
});
