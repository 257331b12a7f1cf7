// The crash test's writer: appends decisions to incident 1 of the journal named in argv, one per
// transaction, and prints each seq only after append() has returned (committed), until killed.
import { writeSync } from 'node:fs';
import { openSqliteCore } from '../../src/journal/sqlite.ts';

const path = process.argv[2];
if (!path) throw new Error('usage: writer-child.ts <journal>');
const j = openSqliteCore(path);
writeSync(1, 'ready\n');
// Bounded, in case the parent dies before it kills us.
const until = Date.now() + 10_000;
for (let n = 0; Date.now() < until; n++) {
  const step = `s${process.pid}-${n}`;
  const r = j.append({ incident: 1, kind: 'step.done', actor: { kind: 'local', name: 'crash' }, happenedAt: new Date().toISOString(), step, payload: { n } }, { step, version: 0 });
  if (!r.ok) throw new Error(`conflict on ${step}`);
  // A pipe write this small is atomic: the parent sees whole lines or nothing.
  writeSync(1, `${r.event.seq}\n`);
}
j.close();
