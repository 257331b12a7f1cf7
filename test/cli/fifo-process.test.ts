// The real entry point given a FIFO as its inventory: before, `seat` blocked in open() and a
// SIGTERM could not end it; now it is refused before opening and the process exits 2 on its own.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const MAIN = fileURLToPath(new URL('../../src/cli/main.ts', import.meta.url));

test('seat check --inventory FIFO exits 2 naming it, with nobody writing to the FIFO', { timeout: 60_000 }, async () => {
  const dir = await mkdtemp(join(tmpdir(), 'seat-fifo-'));
  try {
    const fifo = join(dir, 'fleet.yaml');
    execFileSync('mkfifo', [fifo]);
    const env = { ...process.env };
    delete env.SEAT_INVENTORY;
    const child = spawn(process.execPath, ['--import', 'tsx', MAIN, 'check', '--inventory', fifo], { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let err = '';
    child.stderr.on('data', (d: Buffer) => (err += d.toString()));
    const code = await new Promise<number | null>((resolve) => child.on('exit', (c) => resolve(c)));
    assert.equal(code, 2, err);
    assert.match(err, /^seat: .*fleet\.yaml is not a valid inventory:\n {2}.*fleet\.yaml: not a regular file: a named pipe \(FIFO\)/);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});
