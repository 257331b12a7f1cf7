// Another replica's rows are hostile input. On a real SQLite journal file (each side with its own
// connection, and a raw one for the rows our code would never write), one probe asks a crowd of
// replicas that each try something different — oversized parts, floods of rows, rows for another
// vantage, `taken` and then silence, an end without findings, escape sequences, `__proto__`, deep
// nesting, times that are not ISO, a finding the diagnosis cannot read — beside one honest replica.
// Each hostile one must be named with its own reason; the honest one's answer and the asker's own
// findings must stand, and the report must end by the run's deadline. Then the answering side is
// sent requests a hostile asker might write, and must refuse each with a reason and keep answering.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { ANA_GPU_OOM } from '../../drills/scenarios/ana-gpu-oom.ts';
import { startScenario, type RunningDrill } from '../../drills/scenarios/index.ts';
import { runProbe, type ProbeDeps, type ProbeReport, type ProbeRequest } from '../../src/commands/probe.ts';
import { Fleet } from '../../src/inventory/fleet.ts';
import { sqliteAsks, type AnswerRow, type AskTransport } from '../../src/journal/asks.ts';
import { openSqliteJournal } from '../../src/journal/sqlite.ts';
import type { JournalStore } from '../../src/journal/store.ts';
import { reportText } from '../../src/render/report.ts';
import { renderReport } from '../../src/slack/blocks.ts';
import { askingOthers } from '../../src/vantage/ask.ts';
import { answerAsks, type Answering } from '../../src/vantage/answer.ts';
import type { AskedVantage } from '../../src/vantage/types.ts';

let drill: RunningDrill;
let dir: string;
let file: string;
let store: JournalStore;
/** The rows our code never writes (a number where text goes, thousands in one transaction). */
let raw: Database.Database;
/** The drill's fleet with a short run deadline, so that waiting it out costs seconds. */
let fleet: Fleet;
const open: AskTransport[] = [];
const stops: (() => Promise<void> | void)[] = [];

before(async () => {
  drill = await startScenario(ANA_GPU_OOM);
  dir = await mkdtemp(join(tmpdir(), 'seatbelt-hostile-'));
  file = join(dir, 'journal.sqlite');
  store = openSqliteJournal(file);
  raw = new Database(file, { timeout: 5000 });
  const inv = drill.fleet.inventory;
  fleet = new Fleet({ ...inv, settings: { ...inv.settings, deadlineMs: 2500 } });
});
after(async () => {
  for (const s of stops.reverse()) await s();
  for (const a of open) await a.close();
  raw.close();
  await store.close();
  await drill.stop();
  await rm(dir, { recursive: true, force: true });
});

const transport = (): AskTransport => {
  const a = sqliteAsks(file, { pollMs: 20 });
  open.push(a);
  return a;
};
const deps = (vantage: string): ProbeDeps => ({ env: { ...drill.env, PATH: process.env.PATH ?? '' }, ...drill.probe, vantage });
const beat = (replica: string, site: string): Promise<void> => store.replicaSide.heartbeat({ replica, site, host: 'h', version: 't', at: new Date().toISOString() });
const at = (): string => new Date().toISOString();
// Long enough for the asker to read every hostile row on a busy 2-core machine before it judges who
// said `taken` (it judges what it has read: see the report on flooding).
const TIMEOUT_MS = 3000;
const req: ProbeRequest = { site: 'all', only: ['aliases', 'gpus', 'power'], timeoutMs: TIMEOUT_MS, paid: false };

type Json = Record<string, unknown>;
/** One of a real run's findings as another vantage would send it (a fresh copy to spoil). */
const as = (f: unknown, vantage: string): Json => {
  const c = JSON.parse(JSON.stringify(f)) as Json & { provenance: Json };
  c.provenance.vantage = vantage;
  return c;
};
const body = (findings: unknown[], more: Json = {}): string => JSON.stringify({ findings, ...more });
const ESCAPE_OR_CONTROL = /[\p{Cc}\u202a-\u202e\u2066-\u2069]/u;
function depth(v: unknown): number {
  if (v === null || typeof v !== 'object') return 0;
  return 1 + Math.max(0, ...Object.values(v).map(depth));
}

describe('an asker among hostile replicas', () => {
  let sample: ProbeReport;
  let report: ProbeReport;
  let wallMs: number;
  let streamedFrom: Set<string>;
  let bigRefused = '';
  const outcome = (v: string): AskedVantage => {
    const a = report.asked?.find((x) => x.vantage === v);
    assert.ok(a, `${v} was asked: ${JSON.stringify(report.asked?.map((x) => x.vantage))}`);
    return a;
  };
  const theirs = (v: string) => report.findings.filter((f) => f.provenance.vantage === v);

  before(async () => {
    sample = await runProbe(fleet, req, deps('sample'));
    const good = sample.findings;
    const done = (): string => JSON.stringify({ schemaVersion: sample.schemaVersion, site: sample.site, fleet: sample.fleet, drill: sample.drill, sites: sample.sites, startedAt: at(), finishedAt: at(), durationMs: 5 });
    const insert = raw.prepare('INSERT INTO probe_answers (ask, replica, vantage, kind, body, at) VALUES (?, ?, ?, ?, ?, ?)');
    const many = raw.transaction((rows: [number, string, string, string, unknown][]) => {
      for (const r of rows) insert.run(...r, at());
    });

    // Each hostile vantage: what its replica (`<vantage>-1`) writes to a request.
    const scripts: Record<string, (ask: number, put: (kind: string, b: string) => void) => void> = {
      // One part over the row cap: the journal itself refuses to keep it (a CHECK on the column).
      big: (_ask, put) => {
        put('taken', '{}');
        put('result', body([], { pad: 'x'.repeat(600 * 1024) }));
      },
      // Parts each under the row cap, more than the answer's cap in all.
      huge: (ask, put) => {
        put('taken', '{}');
        // One finding a part, its bulk in data (kept as sent): the caps count characters, so this is cheap to check.
        const part = body([{ ...as(good[0], 'huge'), data: { kind: 'none', pad: 'y'.repeat(450 * 1024) } }]);
        many(Array.from({ length: Math.ceil((32 * 1024 * 1024) / part.length) + 1 }, () => [ask, 'huge-1', 'huge', 'findings', part]));
        put('done', done());
      },
      // Thousands of small rows, then a whole answer: every row read, the answer counted.
      flood: (ask, put) => {
        put('taken', '{}');
        many(Array.from({ length: 3000 }, (_, i) => [ask, 'flood-1', 'flood', 'findings', body([as(good[i % good.length], 'flood')], { done: i, total: 3000 })]));
        put('result', body(good.map((f) => as(f, 'flood'))));
        put('done', done());
      },
      // Takes it, then says nothing more.
      mute: (_ask, put) => put('taken', '{}'),
      // Ends without a single part of findings.
      noresult: (_ask, put) => {
        put('taken', '{}');
        put('done', done());
      },
      // Escape sequences, bidi overrides and line breaks in what a terminal and Slack show.
      ansi: (_ask, put) => {
        put('taken', '{}');
        const spoilt = good.map((f) => ({ ...as(f, 'ansi'), target: `${(f as { target: string }).target}\u001b[2J\u001b]0;owned\u0007\u202e`, detail: 'ok\r\nDOWN fv-bmc (forged line)\u001b[31m\u009b1m' }));
        put('result', body(spoilt));
        put('done', done());
      },
      // `__proto__` beside the findings: a part of a shape of its own.
      proto: (_ask, put) => {
        put('taken', '{}');
        put('result', `{"__proto__":{"polluted":"body"},"findings":[]}`);
        put('done', done());
      },
      // `__proto__` in a finding and in its data (a key spelt with a control character in it too).
      proto2: (_ask, put) => {
        put('taken', '{}');
        const f = good.map((g) => JSON.stringify(as(g, 'proto2')).replace(/^\{/, '{"__proto__":{"polluted":"finding"},').replace('"data":{', '"data":{"__proto__":{"polluted":"data"},"__pro\\u0000to__":{"polluted":"spelt"},'));
        put('result', `{"findings":[${f.join(',')}]}`);
        put('done', done());
      },
      // Data nested far deeper than any finding's.
      deep: (_ask, put) => {
        put('taken', '{}');
        const f = JSON.stringify({ ...as(good[0], 'deep'), data: { kind: 'none' } }).replace('"data":{"kind":"none"}', `"data":{"kind":"none","x":${'['.repeat(50_000)}${']'.repeat(50_000)}}`);
        put('result', `{"findings":[${f}]}`);
        put('done', done());
      },
      // A time Date.parse reads but that is no ISO time ("1" is 2001 to V8).
      clock: (_ask, put) => {
        put('taken', '{}');
        put('result', body([{ ...as(good[0], 'clock'), observedAt: '1' }]));
        put('done', done());
      },
      // Its end says its run started in 2001.
      clock2: (_ask, put) => {
        put('taken', '{}');
        put('result', body(good.map((f) => as(f, 'clock2'))));
        put('done', JSON.stringify({ ...(JSON.parse(done()) as Json), startedAt: '1' }));
      },
      // A kind of row this seatbelt does not know.
      kind: (_ask, put) => {
        put('taken', '{}');
        put('exec', '{"cmd":"rm -rf /"}');
      },
      // A part that is not text: SQLite keeps a BLOB in a TEXT column.
      text: (ask) => many([[ask, 'text-1', 'text', 'taken', Buffer.from('{}')]]),
      // Says it could not probe, in colour, without saying `taken` first.
      refuser: (_ask, put) => put('failed', JSON.stringify({ why: '\u001b[31mno such site\u001b[0m\nDOWN everything' })),
      // Speaks for irv (and for a vantage nobody asked), never for itself.
      spoof: (_ask, put) => {
        for (const v of ['irv', 'nowhere']) {
          put(`taken@${v}`, '{}');
          put(`result@${v}`, body([{ ...as(good[0], v), status: 'down', reason: 'timeout' }]));
          put(`done@${v}`, done());
        }
      },
      // Schema-valid, yet its figures are missing: the diagnosis and the renderers must not fall over it.
      crash: (_ask, put) => {
        put('taken', '{}');
        const container = good.find((f) => f.subject.kind === 'container');
        const gpu = good.find((f) => f.subject.kind === 'gpu');
        put('result', body([{ ...as(container, 'crash'), data: { kind: 'container' } }, { ...as(gpu, 'crash'), data: { kind: 'gpu', gpu: { host: 'ana-ml2', index: 0, freeMiB: 1 } } }]));
        put('done', done());
      },
    };

    const evil = transport();
    for (const v of Object.keys(scripts)) await beat(`${v}-1`, v);
    // A heartbeat whose site is no vantage name: never asked, its rows never read.
    await beat('badname-1', 'bad name\u001b[2J');
    const unwatch = evil.onAsks((row) => {
      if (row.replica !== 'hq-1') return;
      for (const [v, script] of Object.entries(scripts)) {
        script(row.id, (kind, b) => {
          const [k, forVantage] = kind.split('@') as [string, string | undefined];
          // A row the journal refuses to keep is said here (the big part's CHECK), not lost as an unhandled rejection.
          evil.answer({ ask: row.id, replica: `${v}-1`, vantage: forVantage ?? v, kind: k, body: b, at: at() }).catch((err: unknown) => {
            if (v === 'big') bigRefused = err instanceof Error ? err.message : String(err);
          });
        });
      }
      many([[row.id, 'badname-1', 'bad name\u001b[2J', 'done', done()]]);
    });
    stops.push(unwatch);

    // The honest replica at irv answers for real.
    await beat('irv-1', 'irv');
    const honest: Answering = answerAsks({ asks: transport(), self: { replica: 'irv-1', vantage: 'irv' }, fleet, now: () => new Date(), probe: (r, onEvent) => runProbe(fleet, r, { ...deps('irv'), onEvent }) });
    stops.push(() => honest.stop());

    streamedFrom = new Set();
    const ask = askingOthers(runProbe, { asks: transport(), self: { replica: 'hq-1', vantage: 'hq' }, replicas: () => store.replicaSide.replicas(), now: () => new Date() });
    const t0 = performance.now();
    report = await ask(fleet, req, { ...deps('hq'), onEvent: (e) => void (e.type === 'task' && e.findings.forEach((f) => streamedFrom.add(f.provenance.vantage ?? '?'))) });
    wallMs = performance.now() - t0;
  });

  test('the asker keeps every one of its own findings, and the report is whole JSON', () => {
    assert.equal(theirs('hq').length, sample.findings.length);
    const back = JSON.parse(JSON.stringify(report)) as ProbeReport;
    assert.equal(back.findings.length, report.findings.length);
  });

  test('the honest replica answered in full, whatever the others sent (rows speaking for it included)', () => {
    const irv = outcome('irv');
    assert.equal(irv.outcome, 'answered', JSON.stringify(irv));
    assert.equal(irv.answeredBy, 'irv-1');
    assert.equal(theirs('irv').length, sample.findings.length);
    assert.ok(!theirs('irv').some((f) => f.reason === 'timeout' && f.target === sample.findings[0]?.target && f.status === 'down'), 'the forged finding for irv is not in the report');
    assert.deepEqual(outcome('spoof').outcome, 'no_answer');
    assert.ok(!report.asked?.some((a) => a.vantage === 'nowhere'));
  });

  test('a replica that takes the request and then says nothing costs the run’s deadline, named unfinished', () => {
    const mute = outcome('mute');
    assert.equal(mute.outcome, 'unfinished', JSON.stringify(mute));
    const deadline = Math.max(report.deadlineMs, TIMEOUT_MS) + 1000;
    assert.ok(wallMs >= deadline - 50, `it was waited for (${Math.round(wallMs)} ms, deadline ${deadline} ms)`);
    assert.ok(wallMs < deadline + 5000, `and no longer than the deadline (${Math.round(wallMs)} ms, deadline ${deadline} ms)`);
  });

  test('an oversized part is refused by the journal itself, and an answer over its total cap is refused with the cap named', () => {
    assert.match(bigRefused, /CHECK constraint failed: length\(body\) <= 524288/);
    // What stands of it is a `taken` and nothing after: given the run's deadline, then named.
    assert.deepEqual([outcome('big').outcome, outcome('huge').outcome], ['unfinished', 'refused']);
    assert.match(outcome('huge').why ?? '', /over 32 MiB/);
    assert.equal(theirs('huge').length + theirs('big').length, 0);
  });

  test('thousands of rows are all read: the answer behind them counts', () => {
    const flood = outcome('flood');
    assert.equal(flood.outcome, 'answered', JSON.stringify(flood));
    assert.equal(theirs('flood').length, sample.findings.length, 'the result counts, not the 3,000 streamed parts');
    assert.ok(streamedFrom.has('flood'));
  });

  test('an end with no findings before it is refused, not an answer that found nothing', () => {
    const n = outcome('noresult');
    assert.equal(n.outcome, 'refused', JSON.stringify(n));
    assert.match(n.why ?? '', /without its findings/);
  });

  test('escape sequences, bidi overrides and line breaks come out stripped, in the report and what renders it', () => {
    const ansi = outcome('ansi');
    assert.equal(ansi.outcome, 'answered', JSON.stringify(ansi));
    const mine = theirs('ansi');
    assert.equal(mine.length, sample.findings.length);
    for (const f of mine) {
      assert.doesNotMatch(f.target, ESCAPE_OR_CONTROL, JSON.stringify(f.target));
      assert.doesNotMatch(f.target, /\[2J|\]0;owned/, 'the whole escape sequence is gone, not only its ESC');
      assert.doesNotMatch(f.detail, ESCAPE_OR_CONTROL, JSON.stringify(f.detail));
      assert.doesNotMatch(f.detail, /\[31m|\[1m/);
    }
    const text = reportText(report, { all: true });
    assert.doesNotMatch(text, /\u001b|\u009b|\u202e/u);
    assert.ok(!text.split('\n').some((l) => l.startsWith('DOWN fv-bmc (forged line)')), 'no line forged by a peer’s line break');
    const slack = JSON.stringify(renderReport(report, req).blocks);
    assert.doesNotMatch(slack, /\\u001b|\\u009b|\u202e/u);
    const refuser = outcome('refuser');
    assert.equal(refuser.outcome, 'failed', 'a replica that says it could not probe did answer');
    assert.match(refuser.why ?? '', /no such site/);
    assert.doesNotMatch(refuser.why ?? '', /[\p{Cc}]|\[31m/u);
  });

  test('`__proto__` in a peer’s JSON never becomes a prototype', () => {
    assert.equal(({} as Json).polluted, undefined);
    assert.equal(outcome('proto').outcome, 'refused', JSON.stringify(outcome('proto')));
    assert.match(outcome('proto').why ?? '', /not a list of findings/);
    assert.equal(outcome('proto2').outcome, 'answered', JSON.stringify(outcome('proto2')));
    assert.equal(theirs('proto2').length, sample.findings.length);
    for (const f of theirs('proto2')) {
      assert.equal(Object.getPrototypeOf(f), Object.prototype);
      assert.equal(Object.getPrototypeOf(f.data), Object.prototype);
      assert.equal((f as unknown as Json).polluted, undefined);
      assert.equal((f.data as unknown as Json).polluted, undefined);
      assert.ok(!Object.hasOwn(f, '__proto__') && !Object.hasOwn(f.data, '__proto__'));
    }
  });

  test('deeply nested data neither crashes the asker nor reaches the report deep', () => {
    const deep = outcome('deep');
    assert.ok(deep.outcome === 'answered' || deep.outcome === 'refused', JSON.stringify(deep));
    for (const f of theirs('deep')) assert.ok(depth(f) <= 16, `depth ${depth(f)}`);
  });

  test('times that are not ISO are refused, and the report’s own times stay ISO', () => {
    assert.equal(outcome('clock').outcome, 'refused', JSON.stringify(outcome('clock')));
    assert.match(outcome('clock').why ?? '', /observedAt/);
    assert.equal(outcome('clock2').outcome, 'refused', JSON.stringify(outcome('clock2')));
    assert.match(outcome('clock2').why ?? '', /startedAt/);
    const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/;
    assert.match(report.startedAt, ISO);
    assert.match(report.finishedAt, ISO);
  });

  test('a row of an unknown kind, and a part that is not text, are refused', () => {
    assert.equal(outcome('kind').outcome, 'refused');
    assert.match(outcome('kind').why ?? '', /kind this seatbelt does not know/);
    assert.equal(outcome('text').outcome, 'refused', JSON.stringify(outcome('text')));
    assert.match(outcome('text').why ?? '', /not text/);
  });

  test('a finding the diagnosis cannot read costs its own replica’s answer only', () => {
    assert.equal(outcome('crash').outcome, 'refused', JSON.stringify(outcome('crash')));
    assert.equal(theirs('crash').length, 0);
  });

  test('a heartbeat that names no vantage is never asked, and its rows are never read', () => {
    assert.ok(!report.asked?.some((a) => a.vantage.startsWith('bad')), JSON.stringify(report.asked?.map((a) => a.vantage)));
    assert.ok(report.findings.every((f) => /^[A-Za-z0-9][A-Za-z0-9._-]*$/.test(f.provenance.vantage ?? '')));
  });

  test('the merged verdict rests on the answers that stood: hq, irv, flood, ansi, proto2 (and deep when it stood)', () => {
    const stood = (report.asked ?? []).filter((a) => a.outcome === 'answered').map((a) => a.vantage).sort();
    assert.deepEqual(stood.filter((v) => v !== 'deep'), ['ansi', 'flood', 'irv', 'proto2'], JSON.stringify(report.asked));
    assert.deepEqual([...(report.vantages ?? [])].sort(), ['hq', ...stood].sort());
  });
});

describe('an answering replica sent a hostile asker’s requests', () => {
  test('each is refused with its reason; none stops it answering the next', { timeout: 60_000 }, async () => {
    const asker = transport();
    const ended = new Map<number, 'done' | 'failed'>();
    let wake: () => void = () => undefined;
    const logs: string[] = [];
    const answering = answerAsks({
      asks: transport(),
      self: { replica: 'sea-1', vantage: 'sea' },
      fleet,
      now: () => new Date(),
      log: (l) => void logs.push(l),
      probe: (r, onEvent) => runProbe(fleet, r, { ...deps('sea'), onEvent }),
      answered: (id, o) => {
        ended.set(id, o);
        wake();
      },
    });
    stops.push(() => answering.stop());
    const ok = { site: 'fv', only: ['power'], timeoutMs: 1000, paid: false };
    const put = (request: string, vantage = 'lax'): Promise<number> => asker.ask({ replica: 'lax-evil', vantage, request, askedAt: at(), waitMs: 2000 });
    const cases: [string, number, RegExp][] = [
      ['bad site', await put(JSON.stringify({ ...ok, site: 'nowhere' })), /inventory has no site nowhere/],
      ['a site that is no name', await put(JSON.stringify({ ...ok, site: '../../etc\u001b[2J' })), /does not fit \(site\)/],
      ['a huge timeout', await put(JSON.stringify({ ...ok, timeoutMs: 86_400_000 })), /does not fit \(timeoutMs\)/],
      ['an unknown group', await put(JSON.stringify({ ...ok, only: ['shell'] })), /does not fit \(only\.0\)/],
      ['a key of its own', await put(JSON.stringify({ ...ok, exec: 'rm -rf /' })), /does not fit/],
      ['not JSON', await put('{"site":'), /not JSON/],
      ['a vantage that is no name', await put(JSON.stringify(ok), 'lax\u001b[2J'), /names no vantage/],
    ];
    // Columns our code always writes as text, written as BLOBs (SQLite keeps them so).
    const blobs = raw.prepare('INSERT INTO probe_asks (replica, vantage, request, asked_at, wait_ms) VALUES (?, ?, ?, ?, ?)');
    cases.push(['a replica that is not text', Number(blobs.run(Buffer.from('lax-evil'), 'lax', JSON.stringify(ok), at(), 2000).lastInsertRowid), /not named in text/]);
    cases.push(['a vantage that is not text', Number(blobs.run('lax-evil', Buffer.from('lax'), JSON.stringify(ok), at(), 2000).lastInsertRowid), /names no vantage/]);
    cases.push(['a request that is not text', Number(blobs.run('lax-evil', 'lax', Buffer.from(JSON.stringify(ok)), at(), 2000).lastInsertRowid), /not JSON/]);
    const good = await put(JSON.stringify(ok));

    const rows = new Map<number, AnswerRow[]>();
    for (const id of [...cases.map((c) => c[1]), good]) stops.push(asker.onAnswers(id, ['sea-1'], (r) => rows.set(id, [...(rows.get(id) ?? []), ...r])));
    const end = Date.now() + 30_000;
    while (ended.size < cases.length + 1 && Date.now() < end) await new Promise<void>((r) => ((wake = r), setTimeout(r, 100)));
    // The rows of the last one answered come a look later.
    while ([...ended.keys()].some((id) => !rows.get(id)?.some((r) => r.kind === 'done' || r.kind === 'failed')) && Date.now() < end) await new Promise((r) => setTimeout(r, 20));

    for (const [what, id, why] of cases) {
      assert.equal(ended.get(id), 'failed', `${what}: ${JSON.stringify(rows.get(id))}`);
      const failed = rows.get(id)?.find((r) => r.kind === 'failed');
      assert.ok(failed, `${what}: the asker is told`);
      assert.match((JSON.parse(failed.body) as { why: string }).why, why, what);
      assert.ok(!rows.get(id)?.some((r) => r.kind === 'taken'), `${what}: never taken`);
    }
    assert.equal(ended.get(good), 'done', JSON.stringify(rows.get(good)));
    const kinds = (rows.get(good) ?? []).map((r) => r.kind);
    assert.equal(kinds[0], 'taken');
    assert.equal(kinds.at(-1), 'done');
    assert.ok(kinds.includes('result'));
  });
});
