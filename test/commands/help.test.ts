// Usage and per-command help are written from the command table, so they cannot drift from it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { helpFor, usage, USAGE } from '../../src/commands/parse.ts';
import { COMMANDS } from '../../src/commands/table.ts';

test('the usage starts with probe, names every command, and says how to give the inventory', () => {
  const lines = USAGE.split('\n');
  assert.equal(lines[0], 'usage: seat probe <site|all> [--only aliases,gpus,power] [--json] [--timeout MS] [--paid] [--all]');
  for (const spec of COMMANDS) assert.ok(lines.some((l) => l.includes(`seat ${spec.words[0]}`)), spec.words[0]);
  assert.match(USAGE, /--inventory FILE \(or SEAT_INVENTORY\)/);
  for (const verb of ['check', 'version', 'bot']) {
    assert.match(lines.find((l) => l.includes(`seat ${verb}`)) ?? '', /terminal only/, `${verb} is marked terminal only`);
  }
});

test('the Slack usage offers only what Slack can run', () => {
  const slack = usage('slack');
  assert.match(slack, /^usage: \/seat probe <site\|all> \[--only aliases,gpus,power\] \[--timeout MS\] \[--paid\] \[--all\]$/m);
  assert.match(slack, /\/seat help \[command\]/);
  for (const word of ['check', 'bot', 'version', '--json', '--inventory']) assert.ok(!slack.includes(word), word);
});

test('seat help probe: every flag of the row with its help, the --all text included', () => {
  const text = helpFor('probe');
  assert.ok(text);
  assert.match(text, /^usage: seat probe <site\|all>/);
  for (const flag of Object.keys(COMMANDS[0].flags)) assert.match(text, new RegExp(`^  --${flag}\\b`, 'm'));
  assert.match(text, /--all +show every finding, not only the problems; up rows are folded into counts otherwise/);
  assert.match(text, /--timeout MS +per-probe timeout .* \(milliseconds 50-120000\)/);
  assert.match(text, /--inventory FILE +the fleet inventory \(YAML\); or set SEAT_INVENTORY/);
  assert.match(text, /-h, --help +this help/);
});

test('help for a terminal-only command says so; for no command there is none', () => {
  assert.match(helpFor('check') ?? '', /terminal only/);
  assert.match(helpFor('--version') ?? '', /^usage: seat version/);
  assert.equal(helpFor('check', 'slack'), undefined);
  assert.equal(helpFor('nope'), undefined);
});

test('every row has a summary, and every argument and flag a help text', () => {
  for (const spec of COMMANDS) {
    assert.ok(spec.summary.length > 10, spec.words[0]);
    for (const a of spec.args) assert.ok(a.help.length > 3, `${spec.words[0]} ${a.name}`);
    for (const [name, f] of Object.entries(spec.flags)) assert.ok((f as { help: string }).help.length > 3, `${spec.words[0]} --${name}`);
  }
});
