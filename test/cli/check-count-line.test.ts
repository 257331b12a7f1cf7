// The count line counts what was measured, not rows: a seat has its /health row and, on a card where
// no process holds memory, its engine's row too — "5 seats" for a fleet of 3 was the rows counted.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { countLine } from '../../src/render/report.ts';
import { exampleFleet, gpus, ok, seat } from '../helpers/findings.ts';
import { reportOf } from '../render/reports.ts';

test('the count line says 3 seats for 3 seats, though two of them also have an engine row on their card', async () => {
  const fleet = await exampleFleet();
  const cards = gpus(fleet, 'fv-ml1', [{ index: 0, free: 90_000, used: 7_887 }], []);
  const engines = cards.filter((f) => f.subject.kind === 'seat');
  assert.equal(engines.length, 2, 'gen and coder each have an engine_not_running row on GPU0');
  const findings = [seat(fleet, 'gen', ok()), seat(fleet, 'coder', ok()), seat(fleet, 'summarizer', ok()), ...cards];
  const line = countLine(reportOf(fleet, findings));
  assert.match(line, /: 3 seats, 1 GPU;/, line);
  assert.match(line, /^6 findings:/, 'the findings are still all counted as findings');
});
