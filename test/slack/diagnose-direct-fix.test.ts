// `/seat diagnose` inside an incident: the answer goes in the incident's thread for everyone (not a
// private reply), and when the pasted log itself rules the boot race out (the KV budget was pinned,
// or the card was free at start-up) the direct fix is the first option, the boot-race ones after
// it as what does not apply. Seed 004's paste alone keeps the boot-race options first.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { ANA, BEN, startIncidentHarness, type Harness } from '../helpers/slack-incident.ts';

let h: Harness;
before(async () => {
  h = await startIncidentHarness();
});
after(async () => {
  await h.stop();
});

const KV_ERROR = [
  "ValueError: To serve at least one request with the model's max seq len (131072),",
  '3.36 GiB KV cache is needed, which is larger than the available KV cache memory (2.13 GiB).',
  'Based on the available memory, the estimated maximum model length is 46528.',
];

/** The options of the diagnosis, in order, as the thread shows them. */
const optionsOf = (text: string): string[] => [...text.matchAll(/^\s+(\d+)\. (.+)$/gm)].map((m) => m[2]!);

async function diagnoseInThread(lines: string[]): Promise<{ text: string; privately: string[] }> {
  const incident = (await h.seat.incidents!.deps.store.newestOpen())!;
  const thread = incident.slack!.thread;
  const before = h.thread(thread).length;
  const mark = h.mark();
  const r = await h.command(`diagnose ${lines.join('\n')}`, BEN);
  assert.equal(r.status, 200);
  await h.seat.idle();
  const posted = h.thread(thread).slice(before);
  assert.equal(posted.length, 1, 'one message in the incident thread');
  return { text: posted[0]!.text.replace(/&gt;/g, '>').replace(/&lt;/g, '<').replace(/&amp;/g, '&'), privately: h.said(mark) };
}

test('a pinned KV budget: not a boot race, the direct fix first, in the incident thread for everyone', async () => {
  await h.command('incident open fv brutus chat will not boot', ANA);
  const { text, privately } = await diagnoseInThread([
    'INFO 09-13 06:56:01 [gpu_worker.py:276] Reserved 2.13 GiB for KV cache as specified by kv_cache_memory_bytes config and skipped memory profiling. This does not respect the gpu_memory_utilization config.',
    ...KV_ERROR,
  ]);
  assert.ok(!privately.some((t) => /problem/.test(t)), 'not a private reply');
  const options = optionsOf(text);
  assert.match(options[0] ?? '', /^Direct fix: lower --max-model-len to at most 46,528 \(vLLM's estimate\), or give the engine a larger KV budget \(1\.23 GiB short\)/, text);
  assert.match(options[1] ?? '', /^Not the boot race: the KV budget was pinned \(2\.13 GiB reserved by --kv-cache-memory/);
  assert.doesNotMatch(text.split('note     profiling_skipped')[0]!, /lesson: On brutus/, 'the seed’s boot-race story is not told before the fix');
});

test('the card free at start-up (it booted alone): the direct fix first', async () => {
  const { text } = await diagnoseInThread([
    'INFO 09-13 06:56:01 [gpu_worker.py:290] Free memory on device (23.50/23.99 GiB) on startup. Desired GPU memory utilization is (0.75, 17.99 GiB). Actual usage is 12.10 GiB for weight, 1.20 GiB for peak activation. Replace gpu_memory_utilization config with `--kv-cache-memory=2287014297` (2.13 GiB) to fit into requested memory, or `--kv-cache-memory=10000000000` (9.31 GiB) to fully utilize gpu memory.',
    ...KV_ERROR,
  ]);
  const options = optionsOf(text);
  assert.match(options[0] ?? '', /^Direct fix: lower --max-model-len to at most 46,528/, text);
  assert.match(options[1] ?? '', /^Not the boot race: the card was free at start-up \(23\.50 of 23\.99 GiB\)/);
});

test('seed 004 as pasted (nothing rules the race out): the boot-race options first, the direct fix last', async () => {
  const { text } = await diagnoseInThread(KV_ERROR);
  const options = optionsOf(text);
  assert.match(options[0] ?? '', /^Serial start ordering/, text);
  assert.match(options.at(-1) ?? '', /^If it fails alone too, it is not a race: lower --max-model-len to at most 46,528/);
});
