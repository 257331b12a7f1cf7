import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseNvidiaApps, parseNvidiaGpus, parseXpuGpus, parseXpuProcesses, type GpuRow } from '../../src/probes/gpu/parse.ts';

const HEADER = 'index, uuid, name, memory.total [MiB], memory.used [MiB], memory.free [MiB]';
const GPU0 = '0, GPU-5f1c2a9e-3b7d-4e8a-9c61-0d2e4f6a8b10, NVIDIA RTX PRO 6000 Blackwell Server Edition, 97887, 89701, 7652';
const GPU1 = '1, GPU-a83e6d02-71c4-4b95-8f2a-6c9d1e3b5f27, NVIDIA RTX PRO 6000 Blackwell Server Edition, 97887, 97137, 216';

function ok<T>(r: { ok: true; value: T } | { ok: false; error: string }): T {
  if (!r.ok) assert.fail(`expected a parse, got the error: ${r.error}`);
  return r.value;
}

function err(r: { ok: true; value: unknown } | { ok: false; error: string }): string {
  if (r.ok) assert.fail(`expected a parse error, got ${JSON.stringify(r.value)}`);
  return r.error;
}

test('nvidia-smi --query-gpu: columns by header name, free read as printed (not total − used)', () => {
  const rows = ok(parseNvidiaGpus(`${HEADER}\n${GPU0}\n${GPU1}\n`));
  assert.deepEqual(rows[0], {
    index: 0,
    uuid: 'GPU-5f1c2a9e-3b7d-4e8a-9c61-0d2e4f6a8b10',
    name: 'NVIDIA RTX PRO 6000 Blackwell Server Edition',
    totalMiB: 97_887,
    usedMiB: 89_701,
    freeMiB: 7_652, // 97,887 − 89,701 would be 8,186: memory.reserved is the difference
  } satisfies GpuRow);
  assert.equal(rows[1]?.freeMiB, 216);
});

test('a drifted field order reads the same', () => {
  const swapped = [
    'memory.free [MiB], name, memory.used [MiB], uuid, index, memory.total [MiB]',
    '216, NVIDIA RTX PRO 6000 Blackwell Server Edition, 97137, GPU-a83e6d02-71c4-4b95-8f2a-6c9d1e3b5f27, 1, 97887',
    '7652, NVIDIA RTX PRO 6000 Blackwell Server Edition, 89701, GPU-5f1c2a9e-3b7d-4e8a-9c61-0d2e4f6a8b10, 0, 97887',
  ].join('\n');
  const byIndex = (rows: GpuRow[]) => [...rows].sort((a, b) => a.index - b.index);
  assert.deepEqual(byIndex(ok(parseNvidiaGpus(swapped))), ok(parseNvidiaGpus(`${HEADER}\n${GPU0}\n${GPU1}`)));
});

test('headers without units, values with units, and extra columns are all accepted', () => {
  const rows = ok(parseNvidiaGpus('index, memory.reserved, uuid, memory.total, memory.used, memory.free\n0, 534 MiB, GPU-x, 97887 MiB, 89701 MiB, 7652 MiB'));
  assert.deepEqual(rows, [{ index: 0, uuid: 'GPU-x', name: null, totalMiB: 97_887, usedMiB: 89_701, freeMiB: 7_652 }]);
});

test('[N/A], [Not Supported] and [Unknown Error] in any field become null', () => {
  const rows = ok(parseNvidiaGpus(`${HEADER}\n0, [Unknown Error], NVIDIA GB10, [N/A], [Not Supported], [N/A]`));
  assert.deepEqual(rows, [{ index: 0, uuid: null, name: 'NVIDIA GB10', totalMiB: null, usedMiB: null, freeMiB: null }]);
});

test('a warning line before the header is skipped; a header alone means no GPU', () => {
  assert.equal(ok(parseNvidiaGpus(`WARNING: infoROM is corrupted at gpu 0000:41:00.0\n${HEADER}\n${GPU1}`)).length, 1);
  assert.deepEqual(ok(parseNvidiaGpus(`${HEADER}\n`)), []);
});

test('garbage is a parse error naming what was expected and what came, never an exception', () => {
  const e = err(parseNvidiaGpus('<?xml version="1.0" ?>\n<nvidia_smi_log></nvidia_smi_log>'));
  assert.match(e, /no nvidia-smi --query-gpu header \(expected columns index, memory\.total, memory\.used, memory\.free\)/);
  assert.match(e, /got "<\?xml version=\\"1\.0\\" \?>"/);
  assert.match(err(parseNvidiaGpus('')), /printed nothing/);
  // the noheader format has no header to map by: refused, not guessed
  assert.match(err(parseNvidiaGpus(GPU0)), /no nvidia-smi --query-gpu header/);
});

test('a row with the wrong number of fields, or a non-number where MiB belong, is refused', () => {
  assert.match(err(parseNvidiaGpus(`${HEADER}\n0, GPU-x, NVIDIA, 97887, 89701`)), /expected 6 fields as in the header, got 5/);
  assert.match(err(parseNvidiaGpus(`${HEADER}\n0, GPU-x, NVIDIA, 97887, lots, 7652`)), /memory figure is not a number/);
  assert.match(err(parseNvidiaGpus(`${HEADER}\nzero, GPU-x, NVIDIA, 97887, 1, 7652`)), /GPU index is not a number/);
});

test('--query-compute-apps: empty output and a header alone both mean no process', () => {
  assert.deepEqual(ok(parseNvidiaApps('')), []);
  assert.deepEqual(ok(parseNvidiaApps('gpu_uuid, pid, process_name, used_memory [MiB]\n')), []);
});

test('--query-compute-apps rows, in any column order, with [N/A] memory and a comma in a path', () => {
  const rows = ok(
    parseNvidiaApps(
      [
        'pid, used_memory [MiB], gpu_uuid, process_name',
        '48211, 55126, GPU-5f1c, /opt/venvs/mog-sec/bin/python3',
        '3121, [N/A], GPU-0b6e, /opt/odd,name/python3',
      ].join('\n'),
    ),
  );
  assert.deepEqual(rows, [
    { gpuUuid: 'GPU-5f1c', gpuIndex: null, pid: 48211, name: '/opt/venvs/mog-sec/bin/python3', usedMiB: 55_126 },
    { gpuUuid: 'GPU-0b6e', gpuIndex: null, pid: 3121, name: '/opt/odd,name/python3', usedMiB: null },
  ]);
  assert.match(err(parseNvidiaApps('gpu_uuid, pid, process_name, used_memory\nGPU-1, x, p, 1')), /pid is not a number/);
  assert.match(err(parseNvidiaApps('Failed to initialize NVML: Driver/library version mismatch')), /no nvidia-smi --query-compute-apps header/);
});

test('xpu-smi --query-gpu (XPU Manager 2.0 field names) and a few aliases', () => {
  const rows = ok(parseXpuGpus('index, uuid, name, memory.total [MiB], memory.used [MiB], memory.free [MiB]\n0, 00000000-0000-0003-0000-0000e2118086, Intel(R) Arc(TM) Pro B60 Graphics, 24480, 19872, 4608'));
  assert.deepEqual(rows, [{ index: 0, uuid: '00000000-0000-0003-0000-0000e2118086', name: 'Intel(R) Arc(TM) Pro B60 Graphics', totalMiB: 24_480, usedMiB: 19_872, freeMiB: 4_608 }]);
  const aliased = ok(parseXpuGpus('Device_ID, gpu_name, Memory_Free (MiB), Memory_Used (MiB), Memory_Total (MiB)\n1, Arc, 4608.00, 19872.00, 24480.00\n'));
  assert.deepEqual(aliased, [{ index: 1, uuid: null, name: 'Arc', totalMiB: 24_480, usedMiB: 19_872, freeMiB: 4_608 }]);
  assert.match(err(parseXpuGpus('Error: Level Zero initialization error.')), /no xpu-smi --query-gpu header/);
});

test('xpu-smi ps -j: processes by device index, memory from KiB to MiB', () => {
  const rows = ok(
    parseXpuProcesses(
      '{"device_util_by_proc_list":[{"process_id":2417,"process_name":"python3","device_id":0,"shared_mem_size":0,"mem_size":19404800},{"process_id":2455,"process_name":"python3","device_id":0,"mem_size":462848}]}',
    ),
  );
  assert.deepEqual(rows, [
    { gpuUuid: null, gpuIndex: 0, pid: 2417, name: 'python3', usedMiB: 18_950 },
    { gpuUuid: null, gpuIndex: 0, pid: 2455, name: 'python3', usedMiB: 452 },
  ]);
  assert.deepEqual(ok(parseXpuProcesses('')), []);
  assert.deepEqual(ok(parseXpuProcesses('{"device_util_by_proc_list":[]}')), []);
  assert.match(err(parseXpuProcesses('PID       Command')), /expected the JSON of xpu-smi ps -j/);
  assert.match(err(parseXpuProcesses('{"device_util_by_proc_list":[{"process_name":"python3"}]}')), /without a numeric process_id/);
});

// ---- hostile output: what a broken or hostile host prints is refused, never believed, never a hang --

test('a line of 200,000 brackets is read in linear time: a parse error, not a process frozen for minutes', () => {
  // Synchronous: no test timeout can interrupt it, so the deadline is asserted (generously: a
  // backtracking header match took 165 s here, the linear one milliseconds).
  const t0 = performance.now();
  for (const junk of ['['.repeat(200_000), '('.repeat(200_000)]) {
    assert.equal(parseNvidiaGpus(junk).ok, false);
    assert.equal(parseNvidiaApps(junk).ok, false);
  }
  assert.ok(performance.now() - t0 < 10_000, `${Math.round(performance.now() - t0)} ms for four parses`);
});

test('more GPUs or processes than one host has is not its answer; figures over 9 digits or over the total are not readings', () => {
  const many = [HEADER, ...Array.from({ length: 65 }, (_, i) => `${i}, GPU-${i}, H100, 81559, 1, 81558`)].join('\n');
  const r = parseNvidiaGpus(many);
  assert.ok(!r.ok && /over 64 rows/.test(r.error), JSON.stringify(r).slice(0, 200));
  for (const row of [`0, GPU-0, H100, 81559, 1, ${'9'.repeat(400)}`, '0, GPU-0, H100, 81559, 1, 9999999', '0, GPU-0, H100, 81559, 90000, 100']) {
    const one = parseNvidiaGpus(`${HEADER}\n${row}`);
    assert.equal(one.ok, false, row.slice(0, 60));
  }
  const apps = parseNvidiaApps(`gpu_uuid, pid, process_name, used_memory [MiB]\nGPU-0, 11, big, ${'9'.repeat(400)}`);
  assert.equal(apps.ok, false, 'a process using more MiB than a number holds');
});

test('xpu-smi JSON nested too deep to show is a parse error, not a throw that loses the card', () => {
  const deep = `{"device_util_by_proc_list":[${'{"a":'.repeat(5000)}1${'}'.repeat(5000)}]}`;
  const r = parseXpuProcesses(deep);
  assert.equal(r.ok, false);
  const negative = parseXpuProcesses('{"device_util_by_proc_list":[{"process_id":7,"device_id":0,"mem_size":-1024}]}');
  assert.ok(negative.ok && negative.value[0]!.usedMiB === null, 'a negative size is no size');
});

test('a GPU name or process name comes cleaned and cut: no escape sequence, no 3 MB name', () => {
  const r = parseNvidiaGpus(`${HEADER}\n0, GPU-0, \u001b[31mH100\u202e${'x'.repeat(3000)}, 81559, 1, 81558`);
  assert.ok(r.ok);
  if (r.ok) {
    assert.doesNotMatch(r.value[0]!.name ?? '', /[\u001b\u202e]/);
    assert.ok((r.value[0]!.name ?? '').length <= 120);
  }
});
