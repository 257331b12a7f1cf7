// The small pure parts of the export: T+ offsets and durations, the blameless check's word
// boundaries, what md() keeps and what it takes out, a head that does not match the view.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { blamelessFlags } from '../../src/postmortem/blameless.ts';
import { md } from '../../src/postmortem/escape.ts';
import { renderPostmortem } from '../../src/postmortem/index.ts';
import { project } from '../../src/incident/engine.ts';
import type { Incident, JournalEvent } from '../../src/incident/types.ts';
import { duration, offset, utc } from '../../src/render/time.ts';

const T0 = '2026-12-03T07:02:00.000Z';

test('T+ offsets from the start, negative before it, days past a day; durations in words; UTC whatever the zone', () => {
  assert.equal(offset(T0, T0), 'T+0:00:00');
  assert.equal(offset(T0, '2026-12-03T08:05:09.900Z'), 'T+1:03:09');
  assert.equal(offset(T0, '2026-12-03T07:01:20.000Z'), 'T−0:00:40');
  assert.equal(offset(T0, '2026-12-05T09:02:00.000Z'), 'T+2d 02:00:00');
  assert.equal(duration(40), '40 s');
  assert.equal(duration(200), '3 min 20 s');
  assert.equal(duration(4080), '1 h 8 min');
  assert.equal(duration(-60), '−1 min');
  assert.equal(utc('2026-12-03T07:02:00.123Z'), '2026-12-03 07:02:00');
  assert.equal(utc('2026-12-03T09:02:00+02:00'), '2026-12-03 07:02:00');
});

const incident: Incident = { id: 3, site: 'fv', title: 'Human Error on the UPS', status: 'open', openedBy: { kind: 'local', name: 'ana' }, openedAt: T0, drill: false };
const event = (seq: number, kind: JournalEvent['kind'], payload: Record<string, unknown>, actor: JournalEvent['actor'] = { kind: 'local', name: 'ana' }): JournalEvent => ({
  incident: 3,
  seq,
  kind,
  actor,
  happenedAt: T0,
  recordedAt: T0,
  payload,
  prevHash: '0'.repeat(64),
  hash: String(seq).repeat(64).slice(0, 64),
  ...(kind === 'correction' ? { amends: 1 } : {}),
});

test('the blameless check: what people wrote, case-insensitive, whole words only', () => {
  const view = project(incident, [
    event(1, 'incident.opened', { site: 'fv', title: 'Human Error on the UPS', drill: false }),
    event(2, 'note', { text: 'we SHOULD  HAVE known; it failed to start; he failed tonight' }),
    event(3, 'note', { text: 'shoulder haversack, unfailed too, inhuman errors' }),
    event(4, 'step.skipped', { reason: 'should have asked' }),
    event(5, 'probe.report', { report: { findings: [], verdict: { status: 'ok', headline: 'human error should have failed to' } } }, { kind: 'probe' }),
    event(6, 'step.blocked', { guardrail: 'no-surge-outlets', refused: 'x', why: 'the bank failed to hold', instead: 'y' }, { kind: 'local', name: 'bob' }),
  ]);
  const flags = blamelessFlags(view).map((f) => `${f.seq} ${f.field} ${f.phrase}`);
  assert.deepEqual(flags, ['1 title human error', '2 note should have', '2 note failed to', '4 reason should have']);
});

test('md() keeps any language and emoji, drops control and bidi characters, escapes the rest', () => {
  assert.equal(md('FV dark: UPS tripped — "two cards" ⚡ 日本語'), 'FV dark: UPS tripped — "two cards" ⚡ 日本語');
  assert.equal(md('evil\u202e txt\u0007'), 'evil txt');
  assert.equal(md('a\tb  c\r\nd'), 'a b c d');
  assert.equal(md('see https://x.example and www.y.example'), 'see https\\://x.example and www\\.y.example');
  assert.equal(md('ana@example.org'), 'ana\\@example.org');
  assert.equal(md('+1 and = 2'), '\\+1 and = 2');
});

test('a head that is not the last event\'s hash is said to be so, in the document', () => {
  const view = project(incident, [event(1, 'incident.opened', { site: 'fv', title: 't', drill: false })]);
  const ok = renderPostmortem(view, { format: 'md', head: view.events[0]!.hash, now: new Date(T0) });
  assert.ok(!ok.includes('**Note:** this head is not'));
  const moved = renderPostmortem(view, { format: 'md', head: 'f'.repeat(64), now: new Date(T0) });
  assert.match(moved, /\*\*Note:\*\* this head is not the hash of event #1, the last one shown here/);
});
