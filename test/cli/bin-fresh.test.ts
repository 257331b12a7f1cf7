// bin/seat.js runs the compiled CLI only while it is as new as the sources it was built from: after a
// pull without `npm run build` (a source edited, added or removed) it runs the TypeScript through tsx,
// so nobody on call runs yesterday's code by mistake. Checked in a checkout of its own: the real
// bin/seat.js and the build's listing step, a compiled and a source CLI that each say which they are.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, symlinkSync, unlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { listSources, SOURCE_FOLDERS } from '../../scripts/list-sources.mjs';

const REPO = fileURLToPath(new URL('../..', import.meta.url));
const HOUR = 3600;

interface Checkout {
  root: string;
  /** Which CLI `seat` ran: 'compiled' or 'source'. */
  run(): string;
  /** Sets a path's mtime, seconds from now. */
  age(rel: string, secondsFromNow: number): void;
  /** The build's own listing step (scripts/list-sources.mjs), written as the build writes it: after the compile. */
  list(): void;
}

function checkout(): Checkout {
  const root = mkdtempSync(join(tmpdir(), 'seatbelt-bin-'));
  for (const d of ['bin', 'scripts', 'src/cli', 'src/probes', 'drills/bin', 'dist/src/cli']) mkdirSync(join(root, d), { recursive: true });
  copyFileSync(join(REPO, 'bin/seat.js'), join(root, 'bin/seat.js'));
  copyFileSync(join(REPO, 'scripts/list-sources.mjs'), join(root, 'scripts/list-sources.mjs'));
  symlinkSync(join(REPO, 'node_modules'), join(root, 'node_modules'));
  writeFileSync(join(root, 'src/cli/main.ts'), "process.stdout.write('source\\n');\n");
  writeFileSync(join(root, 'src/probes/runner.ts'), 'export const x: number = 1;\n');
  writeFileSync(join(root, 'drills/bin/nvidia-smi'), '#!/bin/sh\n');
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
    list: () => {
      writeFileSync(join(root, 'dist/sources.json'), JSON.stringify(listSources(root)));
      c.age('dist/sources.json', -5 * 60);
    },
  };
  // Sources an hour old, the build ten minutes ago: a file or folder changed now is newer than it.
  for (const rel of ['src', 'src/cli', 'src/probes', 'src/cli/main.ts', 'src/probes/runner.ts', 'drills', 'drills/bin', 'drills/bin/nvidia-smi']) c.age(rel, -HOUR);
  c.age('dist/src/cli/main.js', -10 * 60);
  return c;
}

function inCheckout(fn: (c: Checkout) => void): void {
  const c = checkout();
  try {
    fn(c);
  } finally {
    rmSync(c.root, { recursive: true, force: true });
  }
}

test('the build lists every file and folder of src/ and drills/, relative to the checkout', () => {
  const listed = listSources(REPO);
  // An independent walk: statSync on each entry, no withFileTypes.
  const dirs: string[] = [];
  const files: string[] = [];
  const walk = (abs: string): void => {
    dirs.push(relative(REPO, abs));
    for (const name of readdirSync(abs)) {
      const p = join(abs, name);
      if (statSync(p).isDirectory()) walk(p);
      else files.push(relative(REPO, p));
    }
  };
  for (const f of SOURCE_FOLDERS) walk(join(REPO, f));
  assert.deepEqual([...listed.dirs].sort(), dirs.sort());
  assert.deepEqual([...listed.files].sort(), files.sort());
  assert.ok(listed.files.includes('src/cli/main.ts') && listed.dirs.includes('src/probes/edge') && listed.dirs.includes('drills/bin'));
});

test('bin/seat.js: the compiled CLI while it is newer than every listed source', () => {
  inCheckout((c) => {
    c.list();
    assert.equal(c.run(), 'compiled');
  });
});

test('bin/seat.js: a source edited after the build runs the TypeScript, in src/ or in drills/', () => {
  inCheckout((c) => {
    c.list();
    c.age('src/probes/runner.ts', 0);
    assert.equal(c.run(), 'source');
    c.age('src/probes/runner.ts', -HOUR);
    c.age('drills/bin/nvidia-smi', 0);
    assert.equal(c.run(), 'source');
  });
});

test('bin/seat.js: a source added or removed after the build (its folder changed) runs the TypeScript', () => {
  inCheckout((c) => {
    c.list();
    writeFileSync(join(c.root, 'src/probes/new.ts'), 'export {};\n');
    c.age('src/probes/new.ts', -HOUR); // an old file pulled in: only its folder says it is new
    assert.equal(c.run(), 'source');
    unlinkSync(join(c.root, 'src/probes/new.ts'));
    c.age('src/probes', -HOUR);
    assert.equal(c.run(), 'compiled');
    unlinkSync(join(c.root, 'src/probes/runner.ts'));
    assert.equal(c.run(), 'source', 'a listed source gone');
  });
});

test('bin/seat.js: a list older than the compiled CLI (a build that stopped half way) is not trusted: the sources are walked', () => {
  inCheckout((c) => {
    c.list();
    c.age('dist/sources.json', -20 * 60);
    // A file the old list does not hold, in a folder it does not hold either.
    mkdirSync(join(c.root, 'src/newdir'));
    writeFileSync(join(c.root, 'src/newdir/x.ts'), 'export {};\n');
    c.age('src', -HOUR);
    c.age('src/newdir', -HOUR);
    c.age('src/newdir/x.ts', 0);
    assert.equal(c.run(), 'source');
    c.age('src/newdir/x.ts', -HOUR);
    assert.equal(c.run(), 'compiled');
  });
});

test('bin/seat.js: without a list, or with one not of its shape, the sources are walked; without dist/ the TypeScript runs', () => {
  inCheckout((c) => {
    assert.equal(c.run(), 'compiled', 'no list: walked, all older');
    c.age('src/cli/main.ts', 0);
    assert.equal(c.run(), 'source');
    c.age('src/cli/main.ts', -HOUR);
    for (const bad of ['{"dirs":[],"files":[]}', '{"dirs":["src",7],"files":[]}', 'not json', '{"dirs":"src"}']) {
      writeFileSync(join(c.root, 'dist/sources.json'), bad);
      c.age('src/probes/runner.ts', 0);
      assert.equal(c.run(), 'source', `a list of ${bad} is not trusted`);
      c.age('src/probes/runner.ts', -HOUR);
      assert.equal(c.run(), 'compiled');
    }
    rmSync(join(c.root, 'dist'), { recursive: true });
    assert.equal(c.run(), 'source');
  });
});
