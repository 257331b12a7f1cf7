// The chain's definition, and the stored-column form that verify uses: they must give the same
// bytes, or a PostgreSQL store hashing by the definition would disagree with this one.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import type { JournalEvent } from '../../src/incident/types.ts';
import { GENESIS, hashEvent, hashStored } from '../../src/journal/chain.ts';
import { canonicalJson } from '../../src/probes/canonical.ts';

const base: Omit<JournalEvent, 'hash'> = {
  incident: 7,
  seq: 3,
  kind: 'step.done',
  actor: { kind: 'slack', id: 'U0ANA', name: 'ana "the" 🦺' },
  happenedAt: '2025-03-01T14:02:00.000Z',
  recordedAt: '2025-03-01T14:02:00.310Z',
  step: 'power-log',
  payload: { evidence: { kind: 'file', of: 'power-log', name: 'ups.log', size: 1234, sha256: 'ab'.repeat(32), measured: true }, note: 'قطع\n' },
  amends: 2,
  dedupe: 'slack:T1:a1',
  prevHash: 'cd'.repeat(32),
};

/** The event without its optional fields. */
const bare: Omit<JournalEvent, 'hash'> = { ...base };
delete bare.step;
delete bare.amends;
delete bare.dedupe;

function stored(e: Omit<JournalEvent, 'hash'>) {
  return { ...e, actor: canonicalJson(e.actor), payload: canonicalJson(e.payload), step: e.step ?? null, amends: e.amends ?? null, dedupe: e.dedupe ?? null };
}

test('genesis is 64 zeros', () => {
  assert.equal(GENESIS, '0000000000000000000000000000000000000000000000000000000000000000');
});

test('the hash is sha256 over canonicalJson of every field but hash; absent fields are left out', () => {
  const expected = createHash('sha256').update(canonicalJson(bare)).digest('hex');
  assert.equal(hashEvent(bare), expected);
  assert.equal(hashEvent({ ...bare, step: undefined }), expected);
  assert.ok(!canonicalJson({ ...bare, step: undefined }).includes('"step":'));
  // A hash field handed in (a whole JournalEvent) does not count.
  assert.equal(hashEvent({ ...base, hash: 'x' } as JournalEvent), hashEvent(base));
});

test('every field counts', () => {
  const h = hashEvent(base);
  const changed: Partial<JournalEvent>[] = [{ incident: 8 }, { seq: 4 }, { kind: 'step.skipped' }, { actor: { kind: 'system' } }, { happenedAt: '2025-03-01T14:02:01.000Z' }, { recordedAt: '2025-03-01T14:02:00.311Z' }, { step: 'bmc' }, { payload: {} }, { amends: 1 }, { dedupe: 'b' }, { prevHash: GENESIS }];
  for (const c of changed) assert.notEqual(hashEvent({ ...base, ...c }), h, JSON.stringify(c));
});

test('the stored-column form gives the same hash, with or without the optional fields', () => {
  for (const e of [base, bare, { ...bare, step: 's' }, { ...bare, dedupe: 'd"\\' }, { ...bare, amends: 1 }, { ...bare, payload: { z: [1, { b: null, a: -0 }], é: 'x', A: 1 } }]) {
    assert.equal(hashStored(stored(e)), hashEvent(e));
  }
});

test('a column holding what no event can has no hash', () => {
  assert.equal(hashStored({ ...stored(base), payload: null }), null);
  assert.equal(hashStored({ ...stored(base), seq: '3' }), null);
  assert.equal(hashStored({ ...stored(base), kind: null }), null);
});
