// Every message family from realistic excerpts (test/fixtures/logdiag/), in each wording met, with
// the seeds' own numbers read back as fields.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { diagnoseText } from '../../src/logdiag/diagnose.ts';
import { findingsOf, fixture, only } from './fixtures.ts';

const SEED_004 = { maxSeqLen: 131072, neededGiB: 3.36, availableGiB: 2.13, shortGiB: 1.23, estimatedMaxModelLen: 46528 };

test('seed 004 boot: the KV-cache ValueError with its numbers, the three options, and the engine that did not start', async () => {
  const all = await findingsOf('brutus-xpu-chat-boot.txt');
  const kv = only(all, 'kv_cache_insufficient');
  assert.equal(kv.length, 2, 'logged once by the engine, once by the raw traceback');
  for (const f of kv) {
    assert.deepEqual(f.fields, SEED_004);
    assert.equal(f.severity, 'problem');
    assert.equal(f.partial, false);
    assert.equal(f.minute, '09-13 06:56');
  }
  assert.equal(kv[0]!.line, 16);
  assert.match(kv[0]!.lesson ?? '', /booted together/);
  assert.match(kv[0]!.options[0]!, /^Serial start ordering/);
  assert.match(kv[0]!.options[1]!, /^Absolute KV budgets: --kv-cache-memory-bytes/);
  assert.match(kv[0]!.options[2]!, /^Chat first only/);
  assert.match(kv[0]!.options[3]!, /at most 46,528/);
  assert.deepEqual(only(all, 'kv_cache_memory').map((f) => f.fields.availableGiB), [2.13]);
  const failed = only(all, 'engine_init_failed');
  assert.equal(failed.length, 1);
  assert.equal(failed[0]!.line, 25);
  // Nothing from the traceback's other lines (the `raise ValueError(` line, file paths naming kv_cache_utils.py).
  assert.equal(all.length, 4);
});

test('KV-cache variants: "models\'s", a "(" or not, the estimate missing or empty, docker and compose prefixes, no memory at all', async () => {
  const all = await findingsOf('kv-cache-variants.txt');
  const kv = only(all, 'kv_cache_insufficient');
  assert.deepEqual(
    kv.map((f) => [f.line, f.fields.estimatedMaxModelLen, f.minute]),
    [
      [2, null, '09-13 06:58'],
      [4, 46528, '09-13 06:59'],
      [6, null, '09-13 07:01'],
    ],
  );
  for (const f of kv) {
    assert.equal(f.fields.maxSeqLen, 131072);
    assert.equal(f.fields.neededGiB, 3.36);
    assert.equal(f.fields.availableGiB, 2.13);
    assert.equal(f.partial, false);
  }
  assert.match(kv[0]!.options[3]!, /lower --max-model-len, or/, 'no estimate, no made-up figure');
  const none = only(all, 'kv_cache_none');
  assert.equal(none.length, 1);
  assert.equal(none[0]!.line, 8);
  assert.match(none[0]!.options[0]!, /^Serial start ordering/);
});

test('the seed\'s own paste, wrapped over three lines, reads as one message at its first line', async () => {
  const all = await findingsOf('kv-seed-paste.txt');
  assert.equal(all.length, 1);
  assert.equal(all[0]!.kind, 'kv_cache_insufficient');
  assert.deepEqual(all[0]!.fields, SEED_004);
  assert.equal(all[0]!.line, 3);
  // The same text as Slack hands it over.
  const d = diagnoseText(await readFile(fixture('kv-seed-paste.txt'), 'utf8'));
  assert.equal(d.problems, 1);
  assert.deepEqual(d.groups[0]!.first.fields, SEED_004);
});

test('start-up refusal: with and without the device name, wrapped; the INFO profile line is not one', async () => {
  const all = await findingsOf('startup-free-memory.txt');
  const refused = only(all, 'startup_free_memory');
  assert.deepEqual(
    refused.map((f) => f.fields),
    [
      { device: 'cuda:0', freeGiB: 7.34, totalGiB: 15.49, utilization: 0.8, requestedGiB: 12.39, fitsUtilization: 0.47 },
      { device: null, freeGiB: 41.13, totalGiB: 95.59, utilization: 0.43, requestedGiB: 41.1, fitsUtilization: 0.43 },
      { device: 'cuda:1', freeGiB: 0.21, totalGiB: 95.59, utilization: 0.035, requestedGiB: 3.35, fitsUtilization: 0 },
    ],
  );
  assert.deepEqual(refused.map((f) => f.line), [1, 2, 4]);
  assert.match(refused[0]!.options[1]!, /under 0\.47 \(free 7\.34 of 15\.49 GiB\)/);
  assert.match(refused[2]!.options[1]!, /No utilization fits/);
  const profile = only(all, 'profile_suggestion');
  assert.equal(profile.length, 1, 'the INFO line is read as the profile');
  assert.equal(profile[0]!.line, 7);
});

test('seed 002 at 16.00 GiB pinned: profiling skipped, then the allocator OOM, 488636416 bytes wanted and 422117376 free', async () => {
  const all = await findingsOf('flash-next-16g.txt');
  assert.deepEqual(only(all, 'profiling_skipped').map((f) => f.fields.reservedGiB), [16]);
  const oom = only(all, 'allocator_oom');
  assert.equal(oom.length, 2, 'bare, as the allocator writes it to stderr, and through the logger');
  for (const f of oom) assert.deepEqual(f.fields, { source: 'vllm', device: '0', wantBytes: 488636416, freeBytes: 422117376, totalBytes: null });
  assert.equal(oom[0]!.minute, '09-13 05:18', 'a bare line takes the minute logged before it');
  assert.equal(oom[1]!.minute, '09-13 05:41');
  assert.match(oom[0]!.lesson ?? '', /still completed/);
  assert.deepEqual(only(all, 'kv_cache_size').map((f) => f.fields.tokens), [640747]);
});

test('seed 002 at 14.00 GiB: 560,654 tokens and 2.14x at 262,144, on two lines and joined on one', async () => {
  const all = await findingsOf('flash-next-14g.txt');
  assert.deepEqual(only(all, 'kv_cache_memory').map((f) => f.fields.availableGiB), [14]);
  assert.deepEqual(only(all, 'kv_cache_size').map((f) => [f.line, f.fields.tokens]), [[4, 560654], [7, 560654]]);
  assert.deepEqual(only(all, 'max_concurrency').map((f) => [f.line, f.fields]), [
    [5, { tokensPerRequest: 262144, concurrency: 2.14 }],
    [7, { tokensPerRequest: 262144, concurrency: 2.14 }],
  ]);
  for (const f of only(all, 'max_concurrency')) assert.equal(f.severity, 'info');
});

test('seed 000 figures: 268,205 tokens at 1.02x is a note (one full-context request), not a figure only', async () => {
  const all = await findingsOf('gen-flashinfer-util041.txt');
  const c = only(all, 'max_concurrency')[0]!;
  assert.deepEqual(c.fields, { tokensPerRequest: 262144, concurrency: 1.02 });
  assert.equal(c.severity, 'note');
  assert.match(c.lesson ?? '', /exactly one full-context request/);
});

test('the profile advice: "17.46 GiB to fully utilize gpu memory" read with its bytes, newer and older wordings', async () => {
  const all = await findingsOf('profile-suggestion.txt');
  const p = only(all, 'profile_suggestion');
  assert.deepEqual(p[0]!.fields, { fitBytes: 12372712243, fitGiB: 11.52, fullBytes: 18747532247, fullGiB: 17.46, currentGiB: 11.45, freeGiB: 95.06, totalGiB: 95.59, utilization: 0.92 });
  assert.equal(p[0]!.severity, 'note');
  assert.match(p[0]!.lesson ?? '', /"17\.46 GiB to fully utilize gpu memory".*3\.5 GiB above/);
  assert.equal(p[1]!.line, 3, 'wrapped over two lines, read at the first');
  assert.equal(p[1]!.fields.fullBytes, 18747532247);
  assert.equal(p[1]!.fields.fullGiB, 17.46);
  assert.equal(p[1]!.fields.fitGiB, null);
});

test('PyTorch OOMs, current and older wordings, in bytes: 466.00 MiB wanted is 488636416', async () => {
  const all = await findingsOf('torch-oom.txt');
  assert.deepEqual(
    only(all, 'allocator_oom').map((f) => f.fields),
    [
      { source: 'torch', device: '0', wantBytes: 488636416, freeBytes: 403 * 1024 ** 2, totalBytes: Math.round(95.59 * 1024 ** 3) },
      { source: 'torch', device: '1', wantBytes: 2 * 1024 ** 3, freeBytes: Math.round(1.2 * 1024 ** 3), totalBytes: Math.round(23.69 * 1024 ** 3) },
    ],
  );
});

test('journalctl of the unit (seed 004 is systemd units on brutus): the prefix peeled, its clock read', async () => {
  const all = await findingsOf('brutus-journal.txt');
  const kv = only(all, 'kv_cache_insufficient');
  assert.equal(kv.length, 1);
  assert.deepEqual(kv[0]!.fields, SEED_004);
  assert.equal(kv[0]!.line, 3);
  assert.deepEqual(only(all, 'engine_init_failed').map((f) => f.line), [4]);
  const fb = only(all, 'flashinfer_oom_fallback')[0]!;
  assert.deepEqual(fb.fields.perMinute, [{ minute: '09-09 06:57', count: 1 }], 'a one-digit day, read from the syslog clock');
});
