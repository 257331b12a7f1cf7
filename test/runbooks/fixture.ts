// A small runbook whose lines the tests count on, and a temp folder to load files from.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { loadRunbooks } from '../../src/runbooks/load.ts';

/** Line numbers matter: the tests assert them. Headings at 1, 5 and 17; seat fences at 9 and 19. */
export const DRILL = [
  '# Drill runbook', // 1
  '',
  'What this runbook is for,',
  'in two lines.',
  '## First step', // 5
  '',
  'Read this first.',
  '',
  '```seat', // 9
  'id: first',
  'kind: check',
  'why: The first lesson.',
  '```',
  '',
  'After the block.', // 15
  '',
  '## Second step', // 17
  '',
  '```seat', // 19
  'id: second',
  'kind: evidence',
  'why: The second lesson.',
  'evidence:', // 23
  '  kind: value',
  '  of: restart-count',
  '  label: The restart count',
  "  pattern: '^[0-9]+$'", // 27
  '```',
  '',
].join('\n');

/** Replace line `n` (1-based) of `text` with `lines` (none to delete it). */
export function edit(text: string, n: number, ...lines: string[]): string {
  const all = text.split('\n');
  all.splice(n - 1, 1, ...lines);
  return all.join('\n');
}

/** Remove lines `from` to `to` (1-based, inclusive) of `text`. */
export function cut(text: string, from: number, to: number): string {
  const all = text.split('\n');
  all.splice(from - 1, to - from + 1);
  return all.join('\n');
}

/** Write `files` into a fresh folder, run `fn` on it, and remove the folder. */
export async function inFolder<T>(files: Record<string, string | Buffer>, fn: (dir: string) => Promise<T>): Promise<T> {
  const dir = await mkdtemp(path.join(tmpdir(), 'seat-runbooks-'));
  try {
    for (const [name, content] of Object.entries(files)) await writeFile(path.join(dir, name), content);
    return await fn(dir);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** The errors for one file `drill.md` holding `text`, with the temp folder taken off the front. */
export async function refused(text: string | Buffer): Promise<string[]> {
  return inFolder({ 'drill.md': text }, async (dir) => {
    const r = await loadRunbooks(dir);
    if (r.runbooks.size > 0) throw new Error('expected the runbook to be refused');
    return r.errors.map((e) => e.replace(`${dir}/`, ''));
  });
}
