// The diagnosis a person reads: one group per kind, the gravest first, the numbers in words.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { diagnoseText, exitCodeOf } from '../../src/logdiag/diagnose.ts';
import { renderDiagnosis } from '../../src/logdiag/render.ts';
import { stripPrefixes } from '../../src/logdiag/prepare.ts';

test('a restart logs its figures again: the newest is shown, the first beside it; a later 1.02x makes the group a note', () => {
  const d = diagnoseText(
    [
      'INFO 09-04 16:10:00 [kv_cache_utils.py:1087] GPU KV cache size: 348,515 tokens',
      'INFO 09-04 16:10:00 [kv_cache_utils.py:1091] Maximum concurrency for 262,144 tokens per request: 1.33x',
      'INFO 09-04 16:51:30 [kv_cache_utils.py:1087] GPU KV cache size: 268,205 tokens',
      'INFO 09-04 16:51:30 [kv_cache_utils.py:1091] Maximum concurrency for 262,144 tokens per request: 1.02x',
    ].join('\n'),
  );
  assert.equal(exitCodeOf(d), 0);
  assert.deepEqual(d.groups.map((g) => [g.kind, g.severity, g.count, g.first.line, g.last.line]), [
    ['max_concurrency', 'note', 2, 4, 4],
    ['kv_cache_size', 'info', 2, 1, 3],
  ]);
  const text = renderDiagnosis(d, { source: 'the pasted text' });
  assert.match(text, /^seat diagnose: no problem, 1 note in 4 lines of the pasted text/);
  assert.match(text, /info {5}kv_cache_size {2}268,205 tokens, line 3, logged 2 times \(was 348,515 tokens at line 1\)/);
  assert.match(text, /note {5}max_concurrency {2}line 4 \(09-04 16:51\), 2 times\n {2}1\.02x at 262,144 tokens per request/);
});

test('nothing recognised says what it looks for; exit 0', () => {
  const d = diagnoseText('hello\nworld');
  assert.equal(exitCodeOf(d), 0);
  assert.match(renderDiagnosis(d, { source: 'x' }), /^seat diagnose: nothing recognised in 2 lines of x \(it knows vLLM's KV-cache/);
});

test('the prefixes peeled off a line, older and newer', () => {
  for (const line of [
    '2026-09-13T06:56:04.118302119Z (EngineCore_DP0 pid=212) ERROR 09-13 06:56:04 [core.py:708] ValueError: x',
    'vllm-xpu-chat  | (EngineCore pid=3301) ERROR 09-13 07:01:40 [core.py:387] ValueError: x',
    '[vllm]                 | ERROR 06-02 05:17:18 [core.py:387] ValueError: x',
    'INFO 07-15 10:22:33 llm_engine.py:174] ValueError: x',
    '(VllmWorker rank=0 pid=812) WARNING 09-13 06:56:04 [multiproc_executor.py:9] ValueError: x',
  ]) {
    assert.equal(stripPrefixes(line), 'ValueError: x', line);
  }
});
