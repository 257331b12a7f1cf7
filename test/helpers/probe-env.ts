// A ProbeEnv for probe tests: every side effect a real default, the clock fixed.
import assert from 'node:assert/strict';
import { createReaper } from '../../src/probes/edge/exec.ts';
import { createHttpPool } from '../../src/probes/edge/transport.ts';
import type { Finding, FindingData, ProbeEnv, ProbeTask } from '../../src/probes/types.ts';

export function testProbeEnv(o: Partial<ProbeEnv> & Pick<ProbeEnv, 'env'>): ProbeEnv {
  return {
    http: createHttpPool().transport,
    now: () => performance.now(),
    clock: () => new Date('2026-12-03T03:00:00.000Z'),
    paid: false,
    timeoutMs: 2000,
    marginFloorMiB: 4096,
    reaper: createReaper(),
    maxBodyBytes: 4 * 1024 * 1024,
    maxOutputBytes: 4 * 1024 * 1024,
    ...o,
  };
}

/** Runs planned tasks straight, without the runner: each answers what it measured. */
export async function runAll(tasks: ProbeTask[]): Promise<Finding[]> {
  return (await Promise.all(tasks.map((t) => t.run(new AbortController().signal)))).flat();
}

/** The one finding of a probe for a display target (a test's way to pick a row, never a decision). */
export function one(findings: Finding[], probe: Finding['probe'], target: string): Finding {
  const f = findings.filter((x) => x.probe === probe && x.target === target);
  assert.equal(f.length, 1, `one ${probe} finding for ${target}, got ${f.length}`);
  return f[0]!;
}

export function aliasData(f: Finding): Extract<FindingData, { kind: 'alias' }> {
  assert.equal(f.data.kind, 'alias', `${f.target} carries alias data`);
  if (f.data.kind !== 'alias') throw new Error('unreachable');
  return f.data;
}
