// `seat --version` reads package.json at run time, walking up from the module: from src/cli in a
// checkout and from dist/src/cli in a build alike.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { readVersion } from '../../src/cli/version.ts';

let root: string;
before(async () => {
  root = await mkdtemp(join(tmpdir(), 'seatbelt-version-'));
  await mkdir(join(root, 'dist/src/cli'), { recursive: true });
  await writeFile(join(root, 'package.json'), JSON.stringify({ name: 'seatbelt', version: '9.8.7' }));
  // Some other package.json on the way up is not ours.
  await writeFile(join(root, 'dist/package.json'), JSON.stringify({ name: 'something-else', version: '0.0.1' }));
});
after(async () => {
  await rm(root, { recursive: true, force: true });
});

test('from dist/src/cli the version is found two levels further up', async () => {
  assert.equal(await readVersion(pathToFileURL(join(root, 'dist/src/cli/version.js')).href), '9.8.7');
});

test('from src/cli in a checkout', async () => {
  assert.equal(await readVersion(pathToFileURL(join(root, 'src/cli/version.ts')).href), '9.8.7');
});

test('no package.json of ours anywhere above: null, not a throw', async () => {
  assert.equal(await readVersion(pathToFileURL('/nonexistent-seatbelt/a/b.js').href), null);
});
