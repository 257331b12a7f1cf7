// The house has no import circles: every relative import of src/ (static, type-only, re-export and
// dynamic import('…')) is an edge, and a circle through any of them fails this test, printed a → b → a.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const src = join(root, 'src');
const IMPORT = /(?:^|[\s;])(?:import|export)\s+(?:type\s+)?(?:[^'";]*?\sfrom\s+)?['"](\.{1,2}\/[^'"]+)['"]|\bimport\(\s*['"](\.{1,2}\/[^'"]+)['"]\s*\)/g;

export function importGraph(dir: string): Map<string, string[]> {
  const files = (readdirSync(dir, { recursive: true }) as string[]).filter((f) => f.endsWith('.ts')).map((f) => join(dir, f));
  const graph = new Map<string, string[]>();
  for (const file of files) {
    const text = readFileSync(file, 'utf8').replace(/^\s*\/\/.*$/gm, '');
    const to = [...text.matchAll(IMPORT)].map((m) => resolve(dirname(file), (m[1] ?? m[2])!)).filter((t) => t.startsWith(dir + '/') && files.includes(t));
    graph.set(file, [...new Set(to)]);
  }
  return graph;
}

/** Every circle found by a depth-first walk, each once, as a → b → a (paths relative to the repository). */
export function circles(graph: Map<string, string[]>): string[] {
  const found: string[] = [];
  const state = new Map<string, 'open' | 'done'>();
  const stack: string[] = [];
  const visit = (f: string): void => {
    state.set(f, 'open');
    stack.push(f);
    for (const t of graph.get(f) ?? []) {
      if (state.get(t) === 'open') found.push([...stack.slice(stack.indexOf(t)), t].map((p) => relative(root, p)).join(' → '));
      else if (!state.has(t)) visit(t);
    }
    stack.pop();
    state.set(f, 'done');
  };
  for (const f of [...graph.keys()].sort()) if (!state.has(f)) visit(f);
  return found;
}

test('src/ has no import circles (type-only and dynamic imports count)', () => {
  const graph = importGraph(src);
  assert.ok(graph.size > 50 && [...graph.values()].some((t) => t.length > 0), 'the imports were read');
  assert.deepEqual(circles(graph), []);
});

test('the circle finder sees a circle through a type import and a dynamic import', () => {
  const g = new Map([[join(src, 'a.ts'), [join(src, 'b.ts')]], [join(src, 'b.ts'), [join(src, 'a.ts')]]]);
  assert.deepEqual(circles(g), ['src/a.ts → src/b.ts → src/a.ts']);
});
