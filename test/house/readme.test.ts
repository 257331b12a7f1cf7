// The README is the front door: its command table is a claim about the grammar, checked here.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { COMMANDS, CLI_GLOBAL_FLAGS } from '../../src/commands/table.ts';

const README = readFileSync(fileURLToPath(new URL('../../README.md', import.meta.url)), 'utf8');

interface Row {
  words: string;
  flags: string[];
  line: string;
}

/** The first cell of every `| \`seat …\` | … |` row: the command's words, and every `--flag` it names. */
function commandRows(text: string): Row[] {
  const rows: Row[] = [];
  for (const line of text.split('\n')) {
    const m = /^\| `seat ([^`]+)`/.exec(line);
    if (m === null) continue;
    const cell = line.slice(1, line.indexOf(' |', 2));
    const words: string[] = [];
    for (const w of (m[1] ?? '').split(' ')) {
      if (!/^[a-z]+$/.test(w)) break;
      words.push(w);
    }
    const flags = [...cell.matchAll(/(?<![\w-])--([a-z][a-z-]*)/g)].map((f) => f[1] ?? '');
    rows.push({ words: words.join(' '), flags, line });
  }
  return rows;
}

/** The command a row's words name: the longest command whose words begin them. */
function commandOf(words: string) {
  return COMMANDS.filter((c) => words === c.words[0] || words.startsWith(`${c.words[0]} `)).sort(
    (a, b) => b.words[0].length - a.words[0].length,
  )[0];
}

test('every command in the README table exists in the grammar, with the flags it shows', () => {
  const rows = commandRows(README);
  assert.ok(rows.length >= 20, `the README's command table has ${rows.length} rows`);
  for (const row of rows) {
    const spec = commandOf(row.words);
    assert.ok(spec !== undefined, `README row names no command of the grammar: ${row.line}`);
    assert.equal(spec.words[0], row.words, `README row "${row.words}" is not a command name (nearest: ${spec.words[0]})`);
    const known = new Set([...Object.keys(spec.flags), ...Object.keys(CLI_GLOBAL_FLAGS), 'help']);
    for (const flag of row.flags) {
      assert.ok(known.has(flag), `README shows --${flag} for "seat ${row.words}", which has no such flag`);
    }
  }
});

test('every command of the grammar is in the README table', () => {
  const documented = new Set(commandRows(README).map((r) => r.words));
  for (const spec of COMMANDS) {
    assert.ok(documented.has(spec.words[0]), `"seat ${spec.words[0]}" is missing from the README's command table`);
  }
});

test('the README stays short enough to read: at most 220 lines', () => {
  const lines = README.split('\n').length - (README.endsWith('\n') ? 1 : 0);
  assert.ok(lines <= 220, `README.md is ${lines} lines`);
});

test('the checker reads a row, so a wrong one would fail', () => {
  const rows = commandRows('| `seat prbe <site> --jsn` | x |\n| `seat probe all --json` | y |\n');
  assert.deepEqual(
    rows.map((r) => [r.words, r.flags]),
    [
      ['prbe', ['jsn']],
      ['probe all', ['json']],
    ],
  );
  assert.equal(commandOf('prbe'), undefined);
  assert.equal(commandOf('probe all')?.words[0], 'probe');
});
