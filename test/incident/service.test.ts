// The incident service as both front ends use it: pinning (an edit of the file changes nothing
// until a re-pin), deciding (evidence, skips with reasons, compare-and-set), overrides (a second
// person, the exact action, 15 minutes) and free text kept as typed. A real SQLite journal, the
// real runbooks and guardrails, an injected clock.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { copyFile, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { IncidentService } from '../../src/incident/service.ts';
import type { Actor } from '../../src/incident/types.ts';
import { Fleet } from '../../src/inventory/fleet.ts';
import { parseInventory } from '../../src/inventory/load.ts';
import { openSqliteJournal } from '../../src/journal/sqlite.ts';
import type { JournalStore } from '../../src/journal/store.ts';
import { loadRunbooks } from '../../src/runbooks/load.ts';

const ANA: Actor = { kind: 'local', name: 'ana' };
const BOB: Actor = { kind: 'local', name: 'bob' };
const T0 = Date.parse('2026-09-13T07:00:00Z');

let dir: string;
let fleet: Fleet;

before(async () => {
  dir = await mkdtemp(join(tmpdir(), 'seat-service-'));
  const r = parseInventory(await readFile(new URL('../../examples/fleet.yaml', import.meta.url), 'utf8'));
  assert.ok(r.ok);
  fleet = new Fleet(r.value);
});
after(async () => {
  await rm(dir, { recursive: true, force: true });
});

let n = 0;
async function setup(o: { runbooks?: string } = {}): Promise<{ service: IncidentService; store: JournalStore; clock: { t: number }; id: number }> {
  const clock = { t: T0 };
  const store = openSqliteJournal(join(dir, `j${++n}.sqlite`), { now: () => new Date(clock.t) });
  const { runbooks } = await loadRunbooks(o.runbooks);
  const service = new IncidentService({ store, fleet, runbooks, now: () => new Date(clock.t) });
  const site = fleet.siteNames[0]!;
  const opened = await service.open({ site, title: 'x', actor: ANA });
  assert.ok(!('error' in opened));
  return { service, store, clock, id: opened.incident.id };
}

test('an edit of the runbook file changes nothing for a running incident until it is re-pinned', async () => {
  const folder = join(dir, 'runbooks');
  await mkdir(folder, { recursive: true });
  const file = join(folder, 'gpu-oom-cotenant.md');
  await copyFile(new URL('../../runbooks/gpu-oom-cotenant.md', import.meta.url), file);
  const { service, store, id } = await setup({ runbooks: folder });
  try {
    const pinned = await service.pin(id, 'gpu-oom-cotenant', ANA);
    assert.ok(!('error' in pinned));
    const before = pinned.view.steps.map((s) => s.spec.title);
    const sha = pinned.view.pin!.sha256;

    const text = await readFile(file, 'utf8');
    await writeFile(file, text.replace('## Count the restarts', '## Count the restarts (edited)'));
    const { runbooks: today } = await loadRunbooks(folder);
    const later = new IncidentService({ ...service.deps, runbooks: today });
    const view = (await later.view(id))!;
    assert.deepEqual(view.steps.map((s) => s.spec.title), before, 'the incident follows its pinned copy');
    assert.equal(view.pin!.sha256, sha);
    assert.equal(later.pinDrift(view), today.get('gpu-oom-cotenant')!.sha256, 'the drift is said');

    const done = await later.decide({ incident: id, step: 'restart-count', decision: 'done', actor: ANA, evidence: { kind: 'value', of: 'restart-count', value: '7' } });
    assert.ok(done.ok);
    const re = await later.pin(id, 'gpu-oom-cotenant', BOB);
    assert.ok(!('error' in re));
    assert.equal(re.repinned, true);
    assert.equal(re.view.steps[0]!.spec.title, 'Count the restarts (edited)');
    assert.equal(re.view.steps[0]!.state.state, 'done', 'what was decided stays decided');
    assert.ok((await store.verify()).ok);
  } finally {
    await store.close();
  }
});

test('a step that needs evidence is not done without it; a value is checked against its pattern', async () => {
  const { service, store, id } = await setup();
  try {
    await service.pin(id, 'gpu-oom-cotenant', ANA);
    const none = await service.decide({ incident: id, step: 'restart-count', decision: 'done', actor: ANA });
    assert.ok(!none.ok && none.kind === 'invalid');
    assert.match(none.message, /needs evidence/);
    const wrongKind = await service.decide({ incident: id, step: 'restart-count', decision: 'done', actor: ANA, evidence: { kind: 'yesno', of: 'restart-count', answer: true } });
    assert.ok(!wrongKind.ok && wrongKind.kind === 'invalid');
    assert.equal((await store.events(id)).filter((e) => e.kind.startsWith('step.')).length, 0, 'nothing recorded');
  } finally {
    await store.close();
  }
});

test('a skip needs a reason; the reason is kept as typed', async () => {
  const { service, store, id } = await setup();
  try {
    await service.pin(id, 'gpu-oom-cotenant', ANA);
    const bare = await service.decide({ incident: id, step: 'misattribution', decision: 'skip', actor: ANA, reason: '   ' });
    assert.ok(!bare.ok && bare.kind === 'invalid');
    const reason = 'גטוויי לא קשור — "gateway" restart 50 min earlier; 🤷 *not* <b>this</b>';
    const r = await service.decide({ incident: id, step: 'misattribution', decision: 'skip', actor: ANA, reason });
    assert.ok(r.ok);
    assert.equal(r.event.payload.reason, reason);
    const long = await service.decide({ incident: id, step: 'oom-before', decision: 'skip', actor: ANA, reason: 'x'.repeat(2001) });
    assert.ok(!long.ok && long.kind === 'invalid');
    assert.match(long.message, /2001 characters; the most is 2000/);
  } finally {
    await store.close();
  }
});

test('of two people deciding one step from the same version, one wins and the other is told who', async () => {
  const { service, store, id } = await setup();
  try {
    await service.pin(id, 'gpu-oom-cotenant', ANA);
    const version = (await service.view(id))!.steps.find((s) => s.spec.id === 'sudo-compose')!.version;
    const a = await service.decide({ incident: id, step: 'sudo-compose', decision: 'done', actor: ANA, version });
    const b = await service.decide({ incident: id, step: 'sudo-compose', decision: 'skip', actor: BOB, version, reason: 'not needed' });
    assert.ok(a.ok);
    assert.ok(!b.ok && b.kind === 'conflict');
    assert.deepEqual(b.by, ANA);
    const again = await service.decide({ incident: id, step: 'sudo-compose', decision: 'done', actor: ANA, version, dedupe: 'same-click' });
    assert.ok(!again.ok);
    assert.equal((await store.events(id)).filter((e) => e.step === 'sudo-compose').length, 1);
  } finally {
    await store.close();
  }
});

test('a repeated delivery (same dedupe key) records once', async () => {
  const { service, store, id } = await setup();
  try {
    await service.pin(id, 'gpu-oom-cotenant', ANA);
    const first = await service.decide({ incident: id, step: 'sudo-compose', decision: 'done', actor: ANA, dedupe: 'slack:action:1' });
    const second = await service.decide({ incident: id, step: 'sudo-compose', decision: 'done', actor: ANA, dedupe: 'slack:action:1' });
    assert.ok(first.ok && second.ok);
    assert.equal(second.duplicate, true);
    assert.equal(second.event.seq, first.event.seq);
  } finally {
    await store.close();
  }
});

test('an override: not approved by its requester, only for the exact action, by someone other than the doer, and not after 15 minutes', async () => {
  const { service, store, clock, id } = await setup();
  try {
    await service.pin(id, 'gpu-oom-cotenant', ANA);
    const input = { seat: 'gen', host: 'ana-ml2', gpu: 0, wantMiB: 40_134 };
    const refused = await service.decide({ incident: id, step: 'move-or-resize', decision: 'done', actor: ANA, input });
    assert.ok(!refused.ok && refused.kind === 'refused');
    assert.equal(refused.refusals[0]!.guardrail, 'measured-margin');

    const req = await service.requestOverride({ incident: id, step: 'move-or-resize', guardrail: 'measured-margin', reason: 'training box idle all night', actor: ANA });
    assert.ok(!('error' in req));
    assert.deepEqual((await service.view(id))!.overrides[0]!.input, { action: 'seat-move', ...input }, 'the request names the exact action refused');
    assert.match((await service.approveOverride({ incident: id, request: req.event.seq, actor: ANA }) as { error: string }).error, /a second on-call person must approve it/);
    const ok = await service.approveOverride({ incident: id, request: req.event.seq, actor: BOB });
    assert.ok(!('error' in ok));

    const other = await service.decide({ incident: id, step: 'move-or-resize', decision: 'done', actor: ANA, input: { ...input, wantMiB: 42_091 } });
    assert.ok(!other.ok && other.kind === 'refused', 'another action is not covered');
    const byApprover = await service.decide({ incident: id, step: 'move-or-resize', decision: 'done', actor: BOB, input });
    assert.ok(!byApprover.ok && byApprover.kind === 'refused', 'the approver does not do the gated step');
    clock.t += 16 * 60_000;
    const late = await service.decide({ incident: id, step: 'move-or-resize', decision: 'done', actor: ANA, input });
    assert.ok(!late.ok && late.kind === 'refused', 'expired');
    clock.t -= 2 * 60_000;
    const done = await service.decide({ incident: id, step: 'move-or-resize', decision: 'done', actor: ANA, input });
    assert.ok(done.ok, JSON.stringify(done));
    assert.equal(done.event.payload.override, ok.event.seq);
  } finally {
    await store.close();
  }
});

test('an expired request cannot be approved; a guardrail without an override cannot be asked past', async () => {
  const { service, store, clock, id } = await setup();
  try {
    await service.pin(id, 'site-dark', ANA);
    const paid = await service.requestOverride({ incident: id, step: 'paid-coverage', guardrail: 'no-silent-paid-repoint', reason: 'please', actor: ANA });
    assert.match((paid as { error: string }).error, /no-silent-paid-repoint has no override/);
    const req = await service.requestOverride({ incident: id, step: 'recreate-containers', guardrail: 'recreate-not-restart', input: { action: 'container-change', method: 'restart' }, reason: 'r', actor: ANA });
    assert.ok(!('error' in req));
    clock.t += 15 * 60_000 + 1;
    assert.match((await service.approveOverride({ incident: id, request: req.event.seq, actor: BOB }) as { error: string }).error, /expired at 2026-09-13T07:15:00.000Z/);
  } finally {
    await store.close();
  }
});
