// The newcomer's path of docs/journal.md ("Two replicas on one machine"), as typed: scripts/pg-pair.sh
// makes a primary and a synchronous standby on loopback, `seat journal migrate` makes the schema,
// an incident is worked on the shared journal, the primary is killed — a decision typed then is told
// as not recorded, within the connect bound, never a hang — the standby is promoted, and the next
// decision lands there; the chain holds with nothing shown as recorded lost.
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { createServer } from 'node:net';
import { chmod, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { pgMissing } from '../helpers/pg-cluster.ts';
import { runSeat } from '../helpers/seat-cli.ts';

const run = promisify(execFile);
const SCRIPT = fileURLToPath(new URL('../../scripts/pg-pair.sh', import.meta.url));
const INVENTORY = fileURLToPath(new URL('../../drills/fleet.yaml', import.meta.url));
let parent: string | undefined;
let dir: string | undefined;
after(async () => {
  if (dir) await run('bash', [SCRIPT, 'stop', dir], { timeout: 60_000 }).catch(() => undefined);
  if (parent) await rm(parent, { recursive: true, force: true });
});

/** A free loopback port below the ephemeral range (a client socket never takes it: no self-connect). */
async function lowPort(): Promise<number> {
  for (let i = 0; i < 50; i++) {
    const p = 20000 + Math.floor(Math.random() * 10000);
    const free = await new Promise<boolean>((resolve) => {
      const s = createServer();
      s.once('error', () => resolve(false));
      s.listen(p, '127.0.0.1', () => s.close(() => resolve(true)));
    });
    if (free) return p;
  }
  throw new Error('no free port below 30000');
}

test('scripts/pg-pair.sh and the CLI: migrate, work an incident, kill the primary (told not recorded), promote, finish', { skip: pgMissing() ?? false, timeout: 240_000 }, async () => {
  parent = await mkdtemp(join(tmpdir(), 'seatbelt-pg-pair-'));
  // The server runs as `postgres` when we are root: it must be able to enter the folder.
  await chmod(parent, 0o755);
  dir = join(parent, 'pair');
  const [a, b] = [await lowPort(), await lowPort()];
  assert.notEqual(a, b);
  const started = await run('bash', [SCRIPT, 'start', dir, String(a), String(b)], { timeout: 180_000 });
  const bot = /^bot: +(\S+)$/m.exec(started.stdout)?.[1];
  const owner = /^owner: +(\S+)$/m.exec(started.stdout)?.[1];
  assert.ok(bot && owner, started.stdout);
  assert.match(started.stdout, new RegExp(`primary on 127\\.0\\.0\\.1:${a}, synchronous standby on 127\\.0\\.0\\.1:${b}`));
  const env = { SEAT_INVENTORY: INVENTORY, SEAT_USER: 'ana', SEAT_JOURNAL: bot, PATH: process.env.PATH };
  const now = () => new Date();
  const seat = (...args: string[]) => runSeat(args, env, now);

  const migrated = await seat('journal', 'migrate', '--journal', owner);
  assert.equal(migrated.code, 0, migrated.err);
  assert.equal((await seat('incident', 'open', 'fv', 'fv dark, on the shared journal')).code, 0);
  assert.equal((await seat('runbook', 'start', 'site-dark', '1')).code, 0);
  assert.match((await seat('journal', 'status')).out, new RegExp(`database: 127\\.0\\.0\\.1:${a}, the primary`));

  await run('bash', [SCRIPT, 'kill-primary', dir], { timeout: 60_000 });
  const t0 = performance.now();
  const lost = await seat('note', 'typed while the primary is dead', '--incident', '1');
  const waited = performance.now() - t0;
  assert.notEqual(lost.code, 0);
  assert.match(lost.err, /no writable PostgreSQL primary could be reached.*nothing was recorded/);
  assert.ok(waited < 30_000, `told within the connect bound, not hung (${Math.round(waited)} ms)`);

  await run('bash', [SCRIPT, 'promote', dir], { timeout: 90_000 });
  const noted = await seat('note', 'after the promotion', '--incident', '1');
  assert.equal(noted.code, 0, noted.err);
  assert.match((await seat('journal', 'status')).out, new RegExp(`database: 127\\.0\\.0\\.1:${b}, the primary`));
  const verified = await seat('journal', 'verify');
  assert.equal(verified.code, 0, verified.out + verified.err);
  const events = (await seat('journal', '1')).out;
  assert.match(events, /runbook\.pinned — site-dark/, 'what was recorded before the kill is on the promoted node');
  assert.match(events, /note — after the promotion/);
  assert.doesNotMatch(events, /typed while the primary is dead/, 'what was told as not recorded is not there');
});
