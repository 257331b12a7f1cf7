// The request channel between replicas on a real SQLite journal file, each side with its own
// connection: a whole probe (aliases, GPUs, power) asked of another vantage comes back and is merged,
// every finding with its vantage (GPU rows judged beside the seats too); rows a hostile replica puts
// in the journal are refused and named, and never cost the asker's own findings.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ANA_GPU_OOM } from '../../drills/scenarios/ana-gpu-oom.ts';
import { startScenario, type RunningDrill } from '../../drills/scenarios/index.ts';
import { runProbe, type ProbeDeps } from '../../src/commands/probe.ts';
import { sqliteAsks, type AskTransport } from '../../src/journal/asks.ts';
import { openSqliteJournal } from '../../src/journal/sqlite.ts';
import type { JournalStore } from '../../src/journal/store.ts';
import { PROBE_GROUPS } from '../../src/probes/types.ts';
import { askingOthers } from '../../src/vantage/ask.ts';
import { answerAsks, type Answering } from '../../src/vantage/answer.ts';

let drill: RunningDrill;
let dir: string;
let store: JournalStore;
const open: AskTransport[] = [];
let answering: Answering | undefined;

before(async () => {
  drill = await startScenario(ANA_GPU_OOM);
  dir = await mkdtemp(join(tmpdir(), 'seatbelt-ask-'));
  store = openSqliteJournal(join(dir, 'journal.sqlite'));
});
after(async () => {
  await answering?.stop();
  for (const a of open) await a.close();
  await store.close();
  await drill.stop();
  await rm(dir, { recursive: true, force: true });
});

const transport = (): AskTransport => {
  const a = sqliteAsks(join(dir, 'journal.sqlite'), { pollMs: 20 });
  open.push(a);
  return a;
};
const deps = (vantage: string): ProbeDeps => ({ env: { ...drill.env, PATH: process.env.PATH ?? '' }, ...drill.probe, vantage });
const req = { site: 'all', only: [...PROBE_GROUPS], timeoutMs: null, paid: false };
const beat = (replica: string, site: string) => store.replicaSide.heartbeat({ replica, site, host: 'h', version: 't', at: new Date().toISOString() });

test('a whole probe asked of another vantage comes back merged: every finding named by its vantage, counted once per subject', { timeout: 120_000 }, async () => {
  const theirs = transport();
  answering = answerAsks({ asks: theirs, self: { replica: 'irv-1', vantage: 'irv' }, fleet: drill.fleet, now: () => new Date(), probe: (r, onEvent) => runProbe(drill.fleet, r, { ...deps('irv'), onEvent }) });
  await beat('irv-1', 'irv');
  const streamed: string[] = [];
  const ask = askingOthers(runProbe, { asks: transport(), self: { replica: 'hq-1', vantage: 'hq' }, replicas: () => store.replicaSide.replicas(), now: () => new Date() });
  const alone = await runProbe(drill.fleet, req, deps('hq'));
  const report = await ask(drill.fleet, req, { ...deps('hq'), onEvent: (e) => void (e.type === 'task' && streamed.push(...e.findings.map((f) => f.provenance.vantage ?? '?'))) });
  assert.deepEqual(report.vantages, ['hq', 'irv']);
  assert.equal(report.asked?.[0]?.outcome, 'answered', JSON.stringify(report.asked));
  assert.ok(report.findings.every((f) => f.provenance.vantage === 'hq' || f.provenance.vantage === 'irv'));
  assert.equal(report.findings.filter((f) => f.provenance.vantage === 'irv').length, report.asked?.[0]?.findings);
  assert.ok(streamed.includes('irv'), 'the other vantage’s findings streamed into the same progress');
  // Both vantages see the same loopback fleet: the merged counts are one vantage's, not twice them.
  assert.deepEqual(report.summary.aliases, alone.summary.aliases);
  assert.deepEqual(report.summary.gpus, alone.summary.gpus);
  assert.equal(report.verdict.status, alone.verdict.status);
  await answering.stop();
  answering = undefined;
});

test('rows a hostile replica writes are refused and named; the asker keeps its own findings', { timeout: 60_000 }, async () => {
  const evil = transport();
  await beat('evil-1', 'lax');
  // It takes every request and answers with findings it says were measured elsewhere, then a body that is not JSON.
  const stop = evil.onAsks((row) => {
    void (async () => {
      await evil.answer({ ask: row.id, replica: 'evil-1', vantage: 'lax', kind: 'taken', body: '{}', at: new Date().toISOString() });
      const forged = { probe: 'host', target: 'x\u001b[2J', status: 'down', reason: 'timeout', subject: { kind: 'address', site: 'ana', role: 'host', name: 'ana-ml2' }, detail: 'd', measuredBy: 'm', provenance: { kind: 'measured', via: [], vantage: 'irv' }, observedAt: new Date().toISOString(), latencyMs: null, data: { kind: 'none' } };
      await evil.answer({ ask: row.id, replica: 'evil-1', vantage: 'lax', kind: 'result', body: JSON.stringify({ findings: [forged] }), at: new Date().toISOString() });
      await evil.answer({ ask: row.id, replica: 'evil-1', vantage: 'lax', kind: 'done', body: 'not json', at: new Date().toISOString() });
    })();
  });
  try {
    const ask = askingOthers(runProbe, { asks: transport(), self: { replica: 'hq-1', vantage: 'hq' }, replicas: async () => (await store.replicaSide.replicas()).filter((r) => r.replica === 'evil-1'), now: () => new Date() });
    const report = await ask(drill.fleet, req, deps('hq'));
    const lax = report.asked?.find((a) => a.vantage === 'lax');
    assert.equal(lax?.outcome, 'refused', JSON.stringify(report.asked));
    assert.match(lax?.why ?? '', /measured from irv, not from the replica's vantage lax/);
    assert.deepEqual(report.vantages, ['hq']);
    assert.ok(report.findings.length > 0 && report.findings.every((f) => f.provenance.vantage === 'hq'), 'the local findings stand');
  } finally {
    stop();
  }
});

test('a journal that does not answer the replicas lookup (its primary gone) holds the probe up for the lookup bound only', { timeout: 60_000 }, async () => {
  const logs: string[] = [];
  const ask = askingOthers(runProbe, { asks: transport(), self: { replica: 'hq-1', vantage: 'hq' }, replicas: () => new Promise(() => {}), now: () => new Date(), log: (l) => void logs.push(l) });
  const t0 = performance.now();
  const report = await ask(drill.fleet, { ...req, only: ['power'] }, deps('hq'));
  const ms = performance.now() - t0;
  assert.deepEqual(report.vantages, ['hq']);
  assert.equal(report.asked, undefined, 'nothing was asked');
  assert.match(logs.join('\n'), /the other replicas could not be looked up \(the journal did not answer within 1000 ms\); probing from hq only/);
  assert.ok(ms < report.durationMs + 1000 + 5000, `the lookup cost its bound, not more (${Math.round(ms)} ms)`);
});
