// deploy/seatbelt.service passes `systemd-analyze verify`, and holds the settings the deploy relies on.
// verify checks that ExecStart's program and WorkingDirectory exist; on a machine without
// /usr/bin/node or /opt/seatbelt, a copy with those two paths pointed at ones that exist (this node,
// this checkout) is verified instead, in a temp dir. Nothing else of the unit is changed.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ANALYZE = '/usr/bin/systemd-analyze';
const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const UNIT = join(ROOT, 'deploy/seatbelt.service');
const skip = existsSync(ANALYZE) ? false : `${ANALYZE} is not installed (systemd)`;

function verify(path: string): Promise<{ code: number; out: string }> {
  return new Promise((resolve) => {
    execFile(ANALYZE, ['verify', '--man=no', path], { timeout: 60_000 }, (err, stdout, stderr) => {
      const code = err ? (typeof err.code === 'number' ? err.code : 1) : 0;
      resolve({ code, out: `${stdout}${stderr}` });
    });
  });
}

async function checkable(text: string, dir: string, name = 'seatbelt.service'): Promise<string> {
  const local = text.replace('ExecStart=/usr/bin/node ', `ExecStart=${process.execPath} `).replace('WorkingDirectory=/opt/seatbelt', `WorkingDirectory=${ROOT.replace(/\/$/, '')}`);
  const path = join(dir, name);
  await writeFile(path, local);
  return path;
}

test('the unit passes systemd-analyze verify', { skip, timeout: 90_000 }, async () => {
  const dir = await mkdtemp(join(tmpdir(), 'seatbelt-unit-'));
  try {
    const r = await verify(await checkable(await readFile(UNIT, 'utf8'), dir));
    assert.equal(r.code, 0, r.out);
    assert.equal(r.out.trim(), '', r.out);
    // The check is a real one: verify exits 0 on a value it ignores, but says so; the test reads what it says.
    const bad = await verify(await checkable((await readFile(UNIT, 'utf8')).replace('ProtectSystem=strict', 'ProtectSystem=stricter'), dir, 'broken.service'));
    assert.match(bad.out, /Failed to parse protect system value, ignoring: stricter/);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

test('the unit runs `seat bot` hardened, the journal in its state directory, the tokens from /etc/seatbelt/env', async () => {
  const text = await readFile(UNIT, 'utf8');
  const set = new Set(text.split('\n').filter((l) => !l.startsWith('#') && l.includes('=')));
  for (const line of [
    'ExecStart=/usr/bin/node bin/seat.js bot',
    'WorkingDirectory=/opt/seatbelt',
    'StateDirectory=seatbelt',
    'Environment=SEAT_JOURNAL=%S/seatbelt/journal.sqlite',
    'EnvironmentFile=-/etc/seatbelt/env',
    'ProtectSystem=strict',
    'NoNewPrivileges=yes',
    'PrivateTmp=yes',
    'ProtectHome=yes',
    'Restart=on-failure',
    'KillSignal=SIGTERM',
    'Environment=SEAT_HTTP_LISTEN=127.0.0.1:9464',
  ]) assert.ok(set.has(line), `missing ${line}`);
  assert.ok(![...set].some((l) => l.startsWith('AmbientCapabilities=')), 'no capability is granted');
  assert.ok(![...set].some((l) => /TOKEN|SECRET|xox/.test(l)), 'no token in the unit');
  assert.match(text, /^TimeoutStopSec=\d+s$/m);
});
