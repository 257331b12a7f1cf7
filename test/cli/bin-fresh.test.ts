// bin/seat.js runs the compiled CLI only while it is as new as the sources it was built from: after a
// pull without `npm run build` (a source edited, added or removed) it runs the TypeScript through tsx,
// so nobody on call runs yesterday's code by mistake. Checked in a checkout of its own: the real
// bin/seat.js and the build's list script, a compiled and a source CLI that each say which they are.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, unlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { listSources } from '../../scripts/list-sources.mjs';

const REPO = fileURLToPath(new URL('../..', import.meta.url));
const HOUR = 3600;

interface Checkout {
  root: string;
  /** Which CLI `seat` ran: 'compiled' or 'source'. */
  run(): string;
  /** Sets a path's mtime, seconds from now. */
  age(rel: string, secondsFromNow: number): void;
  /** The build's own step that lists the sources (scripts/list-sources.mjs), run here. */
  list(): void;
}

function checkout(): Checkout {
  const root = mkdtempSync(join(tmpdir(), 'seatbelt-bin-'));
  for (const d of ['bin', 'src/cli', 'src/probes', 'dist/src/cli']) mkdirSync(join(root, d), { recursive: true });
  copyFileSync(join(REPO, 'bin/seat.js'), join(root, 'bin/seat.js'));
  symlinkSync(join(REPO, 'node_modules'), join(root, 'node_modules'));
  writeFileSync(join(root, 'src/cli/main.ts'), "process.stdout.write('source\\n');\n");
  writeFileSync(join(root, 'src/probes/runner.ts'), 'export const x: number = 1;\n');
  writeFileSync(join(root, 'dist/src/cli/main.js'), "process.stdout.write('compiled\\n');\n");
  const now = Date.now() / 1000;
  const c: Checkout = {
    root,
    run: () => {
      const r = spawnSync(process.execPath, [join(root, 'bin/seat.js'), '--version'], { cwd: root, encoding: 'utf8', timeout: 30_000 });
      assert.equal(r.status, 0, r.stderr);
      return r.stdout.trim();
    },
    age: (rel, s) => utimesSync(join(root, rel), now + s, now + s),
    list: () => writeFileSync(join(root, 'dist/sources.json'), JSON.stringify(listSources(join(root, 'src')))),
  };
  // Sources an hour old, the build just now.
  for (const rel of ['src', 'src/cli', 'src/probes', 'src/cli/main.ts', 'src/probes/runner.ts']) c.age(rel, -HOUR);
  return c;
}

test('the build lists every source file and folder for bin/seat.js, relative to src/', () => {
  const listed = JSON.parse(readFileSync(join(REPO, 'dist/sources.json'), 'utf8')) as { dirs: string[]; files: string[] };
  const all = readdirSync(join(REPO, 'src'), { recursive: true, withFileTypes: true });
  assert.equal(listed.files.length, all.filter((e) => !e.isDirectory()).length);
  assert.equal(listed.dirs.length, all.filter((e) => e.isDirectory()).length + 1);
  assert.ok(listed.files.includes('cli/main.ts'));
  assert.ok(listed.dirs.includes('') && listed.dirs.includes('probes/edge'));
});

test('bin/seat.js: the compiled CLI while it is newer than every listed source', () => {
  const c = checkout();
  try {
    c.list();
    assert.equal(c.run(), 'compiled');
  } finally {
    rmSync(c.root, { recursive: true, force: true });
  }
});

test('bin/seat.js: a source edited after the build runs the TypeScript', () => {
  const c = checkout();
  try {
    c.list();
    c.age('src/probes/runner.ts', 60);
    assert.equal(c.run(), 'source');
  } finally {
    rmSync(c.root, { recursive: true, force: true });
  }
});

test('bin/seat.js: a source added or removed after the build (its folder changed) runs the TypeScript', () => {
  const c = checkout();
  try {
    c.list();
    writeFileSync(join(c.root, 'src/probes/new.ts'), 'export {};\n');
    c.age('src/probes/new.ts', -HOUR); // an old file pulled in: only its folder says it is new
    assert.equal(c.run(), 'source');
    unlinkSync(join(c.root, 'src/probes/new.ts'));
    c.age('src/probes', -HOUR);
    assert.equal(c.run(), 'compiled');
    unlinkSync(join(c.root, 'src/probes/runner.ts'));
    assert.equal(c.run(), 'source', 'a listed source gone');
  } finally {
    rmSync(c.root, { recursive: true, force: true });
  }
});

test('bin/seat.js: without the list (an older build) it walks src/; without dist/ it runs the TypeScript', () => {
  const c = checkout();
  try {
    assert.equal(c.run(), 'compiled');
    c.age('src/cli/main.ts', 60);
    assert.equal(c.run(), 'source');
    c.age('src/cli/main.ts', -HOUR);
    rmSync(join(c.root, 'dist'), { recursive: true });
    assert.equal(c.run(), 'source');
  } finally {
    rmSync(c.root, { recursive: true, force: true });
  }
});
