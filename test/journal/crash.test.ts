// Killed at a random moment, 20 times over: every seq the writer saw committed is still there, the
// chain verifies and SQLite finds the file intact. The writer is a real child process and the kill
// is SIGKILL, so nothing of ours runs on the way down.
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';
import { openSqliteCore } from '../../src/journal/sqlite.ts';

const dir = mkdtempSync(join(tmpdir(), 'seatbelt-crash-'));
after(() => rmSync(dir, { recursive: true, force: true }));

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const CHILD = fileURLToPath(new URL('./writer-child.ts', import.meta.url));
const RUNS = 20;

/** Starts the writer, kills it `ms` after it is ready, and gives back the seqs it reported. */
async function killedWriter(path: string, ms: number): Promise<{ seqs: number[]; stderr: string }> {
  const child = spawn(process.execPath, ['--import', 'tsx', CHILD, path], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let stderr = '';
  let timer: NodeJS.Timeout | undefined;
  child.stdout.setEncoding('utf8').on('data', (d: string) => {
    out += d;
    if (!timer && out.startsWith('ready\n')) timer = setTimeout(() => child.kill('SIGKILL'), ms);
  });
  child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
  // A writer that never gets ready is killed too, so the test cannot hang on it.
  const guard = setTimeout(() => child.kill('SIGKILL'), 15_000);
  await new Promise((r) => child.on('close', r));
  clearTimeout(timer);
  clearTimeout(guard);
  const lines = out.split('\n');
  lines.pop(); // whatever follows the last newline is not a whole line
  return { seqs: lines.filter((l) => l !== 'ready').map(Number), stderr };
}

test('SIGKILL at random moments loses no committed event and breaks neither the chain nor the file', async () => {
  const path = join(dir, 'journal.sqlite');
  const j = openSqliteCore(path);
  j.openIncident({ site: 'fv', title: 'crash drill', actor: { kind: 'system' }, at: new Date().toISOString(), drill: true });
  j.close();
  const reported: number[] = [];
  const delays: number[] = [];
  for (let run = 0; run < RUNS; run++) {
    const ms = 50 + Math.floor(Math.random() * 150);
    delays.push(ms);
    const { seqs, stderr } = await killedWriter(path, ms);
    assert.doesNotMatch(stderr, /Error/, `run ${run + 1} (killed after ${ms} ms) failed on its own: ${stderr.slice(0, 500)}`);
    reported.push(...seqs);
  }
  assert.ok(reported.length >= RUNS, `the writers reported only ${reported.length} commits in ${RUNS} runs`);
  const store = openSqliteCore(path);
  try {
    const present = new Set(store.events(1).map((e) => e.seq));
    const lost = reported.filter((s) => !present.has(s));
    assert.deepEqual(lost, [], `kill delays ${delays.join(', ')} ms`);
    const v = store.verify();
    assert.ok(v.ok, JSON.stringify(v));
    assert.equal(v.events, present.size);
  } finally {
    store.close();
  }
  const db = new Database(path, { readonly: true });
  assert.equal(db.pragma('integrity_check', { simple: true }), 'ok');
  db.close();
});
