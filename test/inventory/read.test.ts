// The inventory file is never waited on forever: FIFOs and devices are refused before opening,
// the size is capped, the read has a timeout, and a 2 MB file is parsed in steps that leave the
// event loop free (a signal handler can run) with duplicates still found in one pass.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtemp, readFile, rm, truncate, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadInventory } from '../../src/inventory/load.ts';
import { WORKER_FROM_BYTES } from '../../src/inventory/fast-yaml.ts';
import { MAX_INVENTORY_BYTES } from '../../src/inventory/read.ts';

let dir: string;
before(async () => {
  dir = await mkdtemp(join(tmpdir(), 'seatbelt-read-'));
});
after(async () => {
  await rm(dir, { recursive: true, force: true });
});

test('a FIFO is refused at once as not a regular file, without opening it', async () => {
  const fifo = join(dir, 'fleet.fifo');
  execFileSync('mkfifo', [fifo]);
  const r = await loadInventory(fifo);
  assert.deepEqual(r, { ok: false, errors: [`${fifo}: not a regular file: a named pipe (FIFO); an inventory is a YAML file`] });
});

test('a directory and a device are refused too', async () => {
  assert.deepEqual(await loadInventory(dir), { ok: false, errors: [`${dir}: not a regular file: a directory; an inventory is a YAML file`] });
  assert.deepEqual(await loadInventory('/dev/zero'), { ok: false, errors: ['/dev/zero: not a regular file: a device; an inventory is a YAML file'] });
});

test('a file over the cap is refused by its size, unread', async () => {
  const big = join(dir, 'big.yaml');
  await writeFile(big, '');
  await truncate(big, MAX_INVENTORY_BYTES + 1); // sparse: no 8 MiB written
  assert.deepEqual(await loadInventory(big), { ok: false, errors: [`${big}: inventory is 8388609 bytes; the most is 8388608 bytes (8 MiB)`] });
  const small = join(dir, 'small.yaml');
  await writeFile(small, 'x'.repeat(2048));
  assert.deepEqual(await loadInventory(small, { maxBytes: 1024 }), { ok: false, errors: [`${small}: inventory is 2048 bytes; the most is 1024 bytes`] });
});

test('a read that never delivers ends at the timeout with one line', async () => {
  const r = await loadInventory('stuck.yaml', { timeoutMs: 20, readBytes: () => new Promise<Uint8Array>(() => {}) });
  assert.deepEqual(r, { ok: false, errors: ['stuck.yaml: cannot read the inventory: no data within 20 ms'] });
});

test('bytes that are not UTF-8 are refused without being shown', async () => {
  const bin = join(dir, 'bin.yaml');
  await writeFile(bin, Buffer.from([0xff, 0xfe, 0x73, 0x6b, 0x2d, 0x31]));
  assert.deepEqual(await loadInventory(bin), { ok: false, errors: [`${bin}: not a text file (not UTF-8): an inventory is YAML text`] });
});

function bulkInventory(example: string, bytes: number): { text: string; count: number } {
  const lines: string[] = [];
  for (let n = 0; example.length + lines.length * 41 < bytes; n++) lines.push(`  bulk-${n}: { kind: chat, seats: [gen] }`);
  return { text: example.replace(/^aliases:\n/m, `aliases:\n${lines.join('\n')}\n`), count: lines.length };
}

test('a 2 MB inventory loads, and its duplicate key is found by line', async () => {
  const example = await readFile(new URL('../../examples/fleet.yaml', import.meta.url), 'utf8');
  const { text: bulk, count } = bulkInventory(example, 2_000_000);
  const file = join(dir, 'bulk.yaml');
  await writeFile(file, bulk);
  const r = await loadInventory(file);
  assert.ok(r.ok, r.ok ? '' : r.errors.join('\n'));
  assert.equal(r.value.aliases[`bulk-${count - 1}`]?.kind, 'chat');
  assert.ok(bulk.length > 1_950_000, `${bulk.length} bytes`);

  const dupLine = bulk.split('\n').findIndex((l) => l.startsWith('  bulk-30000:')) + 1;
  await writeFile(file, bulk.replace('  bulk-30000: {', '  bulk-7: {'));
  const d = await loadInventory(file);
  assert.ok(!d.ok);
  const firstLine = bulk.split('\n').findIndex((l) => l.startsWith('  bulk-7:')) + 1;
  assert.deepEqual(d.errors, [`${file}, line ${dupLine}, column 3: aliases.bulk-7 appears twice (first at line ${firstLine}, column 3)`]);
});

test('an inventory over 2 MiB is read with the event loop turning (a worker), to the same value', async () => {
  const example = await readFile(new URL('../../examples/fleet.yaml', import.meta.url), 'utf8');
  const { text: bulk, count } = bulkInventory(example, WORKER_FROM_BYTES + 100_000);
  const file = join(dir, 'bulk-worker.yaml');
  await writeFile(file, bulk);
  let turns = 0;
  const tick = setInterval(() => turns++, 0);
  const r = await loadInventory(file);
  clearInterval(tick);
  assert.ok(r.ok, r.ok ? '' : r.errors.join('\n'));
  assert.equal(r.value.aliases['bulk-0']?.kind, 'chat');
  assert.equal(r.value.aliases[`bulk-${count - 1}`]?.kind, 'chat');
  assert.equal(r.value.aliases[`bulk-${count}`], undefined);
  assert.ok(turns >= 5, `the event loop turned ${turns} times while loading`);
});
