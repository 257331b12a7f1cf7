// What a log does to a reader: unrelated lines that look close, lines cut through a number, colour
// codes, progress bars redrawn with \r, escapes and bidi controls a peer put in, endless lines.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Readable } from 'node:stream';
import { diagnoseStream, diagnoseText } from '../../src/logdiag/diagnose.ts';
import { MAX_LINE_CHARS, readLines } from '../../src/logdiag/lines.ts';
import { findingsOf, only } from './fixtures.ts';

const UNSAFE = /[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]/;

test('unrelated noise yields nothing: access logs, KV usage %, OOMKilled:false, the kernel OOM killer, code lines', async () => {
  assert.deepEqual(await findingsOf('noise.txt'), []);
});

test('lines cut through a number read nothing from that number, and never a shorter one', async () => {
  const all = await findingsOf('truncated.txt');
  const kv = only(all, 'kv_cache_insufficient');
  assert.equal(kv.length, 1);
  assert.deepEqual(kv[0]!.fields, { maxSeqLen: 131072, neededGiB: 3.36, availableGiB: null, shortGiB: null, estimatedMaxModelLen: null });
  assert.equal(kv[0]!.partial, true);
  assert.deepEqual(only(all, 'kv_cache_size'), [], '"560,6" is not 5,606 tokens');
  assert.deepEqual(only(all, 'max_concurrency'), [], '"2.1" without its x is not 2.1x');
  assert.deepEqual(only(all, 'kv_cache_memory'), [], '"14.0" without GiB is not read');
  assert.deepEqual(only(all, 'flashinfer_oom_fallback'), []);
  const oom = only(all, 'allocator_oom');
  assert.deepEqual(oom.map((f) => [f.fields.wantBytes, f.fields.freeBytes, f.partial]), [
    [488636416, null, true],
    [null, null, true],
    [null, null, true],
  ]);
  const start = only(all, 'startup_free_memory')[0]!;
  assert.deepEqual([start.fields.freeGiB, start.fields.totalGiB, start.fields.utilization, start.fields.requestedGiB, start.partial], [7.34, 15.49, null, null, true]);
  const profile = only(all, 'profile_suggestion');
  assert.equal(profile.length, 1);
  assert.equal(profile[0]!.fields.fitBytes, 20064085607);
  assert.equal(profile[0]!.fields.fullBytes, null, '"--kv-cache-memory=2692757" cut short is not read');
});

test('colour codes, \\r progress bars and a peer\'s escapes are read through and never shown', async () => {
  const all = await findingsOf('ansi-progress.txt');
  assert.deepEqual(all.map((f) => f.kind), ['kv_cache_size', 'kv_cache_insufficient', 'flashinfer_oom_fallback']);
  const size = only(all, 'kv_cache_size')[0]!;
  assert.equal(size.fields.tokens, 560654);
  assert.equal(size.line, 2, 'the bar and the message after its \\r share a line number');
  assert.equal(size.text, '(EngineCore_DP0 pid=212) INFO 09-13 06:56:04 [kv_cache_utils.py:1087] GPU KV cache size: 560,654 tokens');
  const kv = only(all, 'kv_cache_insufficient')[0]!;
  assert.deepEqual(kv.fields, { maxSeqLen: 131072, neededGiB: 3.36, availableGiB: 2.13, shortGiB: 1.23, estimatedMaxModelLen: 46528 });
  for (const f of all) {
    assert.doesNotMatch(f.text, UNSAFE, `${f.kind} shows a control character`);
    assert.ok(!f.text.includes('\x1b'));
    assert.ok(f.text.length <= 200);
  }
  assert.equal(only(all, 'flashinfer_oom_fallback')[0]!.text, 'WARNING 09-13 06:57:01 [autotuner.py:469] [Autotuner]: OOM detected, falling back to default tactic');
});

test('a wrapped message is only joined with its own continuation, never with the noise after it', () => {
  const d = diagnoseText(
    [
      "ValueError: To serve at least one request with the model's max seq len (131072),",
      'GPU KV cache size: 560,654 tokens',
      '3.36 GiB KV cache is needed, which is larger than the available KV cache memory (2.13 GiB).',
    ].join('\n'),
  );
  const kv = d.groups.filter((g) => g.kind === 'kv_cache_insufficient');
  assert.equal(kv.length, 1);
  assert.equal(kv[0]!.count, 2, 'the opening line alone, and the orphaned second line alone');
  assert.deepEqual(kv[0]!.first.fields, { maxSeqLen: 131072, neededGiB: null, availableGiB: null, shortGiB: null, estimatedMaxModelLen: null });
  assert.equal((kv[0]!.last.fields as { neededGiB: number | null }).neededGiB, 3.36);
  assert.ok(d.groups.some((g) => g.kind === 'kv_cache_size' && g.first.line === 2), 'the line between is read on its own');
});

test('a line far over the cap is read up to it, counted, and the next line is read whole', async () => {
  const huge = `${'x'.repeat(MAX_LINE_CHARS * 3)} GPU KV cache size: 999 tokens`;
  const d = await diagnoseStream(Readable.from([huge.slice(0, 70_000), huge.slice(70_000), '\nGPU KV cache size: 560,654 tokens\n']));
  assert.equal(d.lines, 2);
  assert.equal(d.truncatedLines, 1);
  assert.deepEqual(d.groups.map((g) => [g.kind, g.first.line]), [['kv_cache_size', 2]]);
});

test('bytes: UTF-8 split across chunks, invalid bytes, NULs, CRLF and a last line without a newline', async () => {
  const text = Buffer.from('état\r\nGPU KV cache size: 560,654 tokens\r\n\x00\xff\n(EngineCore_DP0 pid=1) INFO 09-13 06:56:04 [k.py:1] Maximum concurrency for 262,144 tokens per request: 2.14x', 'latin1');
  const utf8 = Buffer.concat([Buffer.from('état\r\n'), text.subarray(6)]);
  const chunks = [...utf8].map((b) => Uint8Array.of(b));
  const lines: string[] = [];
  for await (const l of readLines(Readable.from(chunks))) lines.push(l);
  assert.equal(lines[0], 'état\r');
  const d = await diagnoseStream(Readable.from(chunks));
  assert.deepEqual(d.groups.map((g) => g.kind), ['kv_cache_size', 'max_concurrency']);
  assert.equal(d.lines, 4);
});

test('an empty log and a log of blank lines: nothing, no crash', async () => {
  assert.deepEqual(diagnoseText(''), { lines: 0, truncatedLines: 0, problems: 0, groups: [] });
  assert.equal((await diagnoseStream(Readable.from(['\n\n\r\n']))).groups.length, 0);
});

test('a snippet whose line breaks were lost is cut back into records; one with its line breaks is read as it is', () => {
  const lines = [
    '(EngineCore_DP0 pid=88) INFO 09-04 16:44:58 [kv_cache_utils.py:1087] GPU KV cache size: 268,205 tokens',
    '(EngineCore_DP0 pid=88) INFO 09-04 16:44:58 [kv_cache_utils.py:1091] Maximum concurrency for 262,144 tokens per request: 1.02x',
    '2026-09-04T23:45:03.112412Z (EngineCore_DP0 pid=88) 2026-09-04 16:45:03,112 - WARNING - flashinfer.jit: [Autotuner]: OOM detected, falling back to default tactic',
    '(EngineCore_DP0 pid=88) WARNING 09-04 16:45:07 [autotuner.py:469] [Autotuner]: OOM detected, falling back to default tactic',
    '[Autotuner]: OOM detected, falling back to default tactic',
    "ValueError: To serve at least one request with the model's max seq len (131072),",
    '3.36 GiB KV cache is needed, which is larger than the available KV cache memory (2.13 GiB).',
  ];
  for (const text of [lines.join('\n'), lines.join(' ')]) {
    const d = diagnoseText(text);
    const kinds = Object.fromEntries(d.groups.map((g) => [g.kind, g]));
    assert.equal(kinds.kv_cache_size?.first.fields && (kinds.kv_cache_size.first.fields as { tokens: number }).tokens, 268205);
    assert.equal((kinds.max_concurrency?.first.fields as { concurrency: number }).concurrency, 1.02);
    assert.equal((kinds.flashinfer_oom_fallback?.first.fields as { total: number }).total, 3, text.includes('\n') ? 'lines' : 'flattened');
    assert.deepEqual(kinds.kv_cache_insufficient?.first.fields, { maxSeqLen: 131072, neededGiB: 3.36, availableGiB: 2.13, shortGiB: 1.23, estimatedMaxModelLen: null });
  }
  assert.equal(diagnoseText(lines.join(' ')).lines, 6, 'the wrapped KV error is one record');
});
