// no-poll-dark-site holds for a terminal `seat probe` too: a site an open incident found dark at every
// address is not re-probed inside the window (who declared it and when are said, with the override
// path); `seat probe all` skips it and says so. A real SQLite journal, the drill inventory.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runCli, type CliIo } from '../../src/cli/run.ts';
import { openSqliteJournal } from '../../src/journal/sqlite.ts';
import { stampVantage } from '../../src/probes/vantage.ts';
import { DARK_AT, fvAddresses, plus } from './helpers.ts';

/** A journal whose open incident holds a report that found fv dark (measured from `from`, when given). */
async function journalWithDarkFv(path: string, from?: string): Promise<void> {
  const start = io(path, -1);
  start.env.USER = 'ana';
  assert.equal(await runCli(['runbook', 'start', 'site-dark', '--site', 'fv', '--inventory', 'drills/fleet.yaml'], start), 0, start.err());
  const store = openSqliteJournal(path, { now: () => new Date(DARK_AT) });
  const incident = (await store.incidents({ status: 'open' }))[0]!;
  const report = await store.append({ incident: incident.id, kind: 'probe.report', actor: { kind: 'probe' }, happenedAt: DARK_AT, step: 'blast-radius', payload: { report: { findings: fvAddresses(DARK_AT, false).map((f) => (from ? stampVantage(f, from) : f)) } } });
  assert.ok(report.ok);
  await store.append({ incident: incident.id, kind: 'step.done', actor: { kind: 'local', name: 'ana' }, happenedAt: DARK_AT, step: 'blast-radius', payload: { report: report.event.seq } });
  await store.close();
}

function io(journal: string, minutes: number, env: NodeJS.ProcessEnv = {}): CliIo & { out(): string; err(): string } {
  let out = '';
  let err = '';
  const all = { SEAT_JOURNAL: journal, SEAT_PROBE_MEMORY: 'off', ...env };
  return {
    stdout: { write: (s: string | Uint8Array) => (out += String(s)) },
    stderr: { write: (s: string) => (err += s) },
    env: all,
    // The probes read their environment (SEAT_VANTAGE among it) from their deps, as the CLI's main gives them process.env.
    ...(Object.keys(env).length > 0 ? { probeDeps: { env: { PATH: process.env.PATH, ...all } } } : {}),
    now: () => new Date(plus(DARK_AT, minutes)),
    out: () => out,
    err: () => err,
  };
}

test('seat probe fv 6 minutes after an open incident found it dark: refused, with when, by whom and the override; nothing probed', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'seat-dark-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const journal = join(dir, 'journal.sqlite');
  await journalWithDarkFv(journal);
  const o = io(journal, 6);
  assert.equal(await runCli(['probe', 'fv', '--inventory', 'drills/fleet.yaml'], o), 1);
  assert.match(o.err(), /refused by no-poll-dark-site: site fv was found dark at every address at 2026-09-13T06:58:40Z \(incident #1, by ana\)/);
  assert.match(o.err(), /not re-probed before 2026-09-13T07:13:40Z/);
  assert.match(o.err(), /seat override request no-polling no-poll-dark-site <reason> --incident 1/);
  assert.equal(o.out(), '', 'no report: the site was not probed');
});

test('seat probe fv after the window runs again; seat probe all inside it skips fv and says so', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'seat-dark-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const journal = join(dir, 'journal.sqlite');
  await journalWithDarkFv(journal);
  const all = io(journal, 6);
  await runCli(['probe', 'all', '--inventory', 'drills/fleet.yaml', '--only', 'power', '--json'], all);
  assert.match(all.err(), /skipped \(no-poll-dark-site\): fv, dark since 2026-09-13T06:58:40Z \(incident #1, by ana; until 2026-09-13T07:13:40Z\)/);
  const report = JSON.parse(all.out()) as { findings: { subject: { site?: string; role?: string } }[] };
  assert.ok(report.findings.length > 0, 'the other sites were probed');
  assert.ok(!report.findings.some((f) => f.subject.site === 'fv' && f.subject.role !== 'control'), 'nothing at fv was probed');
  const later = io(journal, 16);
  await runCli(['probe', 'fv', '--inventory', 'drills/fleet.yaml', '--only', 'power', '--json'], later);
  assert.doesNotMatch(later.err(), /no-poll-dark-site/);
  assert.ok(later.out().length > 0, 'the probe ran');
});

test('per vantage: fv found dark from hq holds a replica at irv too; the refusal and the skip name hq', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'seat-dark-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const journal = join(dir, 'journal.sqlite');
  await journalWithDarkFv(journal, 'hq');
  const irv = io(journal, 6, { SEAT_VANTAGE: 'irv' });
  assert.equal(await runCli(['probe', 'fv', '--inventory', 'drills/fleet.yaml'], irv), 1);
  assert.match(irv.err(), /refused by no-poll-dark-site: site fv was found dark at every address from hq at 2026-09-13T06:58:40Z \(incident #1, by ana\); it is not re-probed from any vantage before 2026-09-13T07:13:40Z/);
  assert.equal(irv.out(), '', 'irv did not probe fv');
  const all = io(journal, 6, { SEAT_VANTAGE: 'irv' });
  await runCli(['probe', 'all', '--inventory', 'drills/fleet.yaml', '--only', 'power', '--json'], all);
  assert.match(all.err(), /skipped \(no-poll-dark-site\): fv, dark from hq since 2026-09-13T06:58:40Z/);
  const report = JSON.parse(all.out()) as { findings: { subject: { site?: string; role?: string }; provenance: { vantage?: string } }[] };
  assert.deepEqual([...new Set(report.findings.map((f) => f.provenance.vantage))], ['irv'], 'measured from irv');
  assert.ok(!report.findings.some((f) => f.subject.site === 'fv' && f.subject.role !== 'control'), 'nothing at fv was probed from irv');
});
