// `seat runbook list` and `seat runbook check` answer without an inventory, from the shipped runbooks.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { runCli, type CliIo } from '../../src/cli/run.ts';
import { NAMED_RUNBOOKS, RUNBOOKS } from '../../src/diagnose/runbooks.ts';

function io(): CliIo & { out(): string; err(): string } {
  let out = '';
  let err = '';
  return {
    stdout: { write: (s: string) => (out += s) },
    stderr: { write: (s: string) => (err += s) },
    env: {},
    out: () => out,
    err: () => err,
  };
}

test('runbook list: one line each, its steps, whether the probe proposes it, its first sentence; no inventory needed', async () => {
  const o = io();
  assert.equal(await runCli(['runbook', 'list'], o), 0, o.err());
  const lines = o.out().trimEnd().split('\n');
  for (const id of Object.keys(RUNBOOKS)) assert.ok(lines.some((l) => new RegExp(`^${id} +\\d+ steps · proposed by the probe · `).test(l)), id);
  for (const id of Object.keys(NAMED_RUNBOOKS)) assert.ok(lines.some((l) => new RegExp(`^${id} +\\d+ steps · started by name · `).test(l)), id);
  assert.ok(lines.every((l) => l.length <= 170), 'one short line each');
  assert.equal(lines.at(-1), 'start one: seat runbook start <runbook> [incident] [--site SITE]');
});

test('runbook check: every shipped runbook is ok, exit 0', async () => {
  const o = io();
  assert.equal(await runCli(['runbook', 'check'], o), 0, o.out());
  assert.equal(o.out().trimEnd().split('\n').filter((l) => l.startsWith('ok ')).length, Object.keys(RUNBOOKS).length + Object.keys(NAMED_RUNBOOKS).length);
});
