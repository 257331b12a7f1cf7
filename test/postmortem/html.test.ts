// The HTML postmortem of the scripted incident, read back: one self-contained file, the timeline
// table with a row per event and phase marker, the charts as inline SVG (one per GPU of the latest
// report with GPU figures, one per UPS over the incident), a stylesheet that prints.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { renderPostmortem } from '../../src/postmortem/index.ts';
import type { IncidentView } from '../../src/incident/engine.ts';
import { EXPORTED_AT, scriptSiteDark, type Scripted } from './incident.ts';
import { tableAfter } from './read.ts';

let s: Scripted;
let view: IncidentView;
let head: string;
let doc: string;

before(async () => {
  s = await scriptSiteDark();
  view = (await s.service.view(s.id))!;
  const v = await s.store.verify(s.id);
  assert.ok(v.ok);
  head = v.heads.get(s.id)!;
  doc = renderPostmortem(view, { format: 'html', head, now: EXPORTED_AT, fleet: s.fleet });
});
after(async () => {
  await s?.close();
});

test('one self-contained file: no script, no external resource, a CSP that forbids both, a print stylesheet', () => {
  assert.match(doc, /^<!doctype html>\n<html lang="en">/);
  assert.ok(doc.endsWith('</html>\n'));
  assert.ok(!/<script/i.test(doc));
  assert.ok(!/<link\b/i.test(doc), 'no stylesheet link');
  assert.ok(!/\b(src|href)=/i.test(doc), 'nothing loaded from anywhere');
  assert.ok(!/url\(/i.test(doc), 'no CSS url()');
  assert.ok(!/https?:\/\/(?!www\.w3\.org\/2000\/svg")/.test(doc), 'the only URL is the SVG namespace');
  assert.match(doc, /<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; img-src data:">/);
  assert.match(doc, /<style>[\s\S]*@media print\{[\s\S]*\}\n<\/style>/);
});

test('the timeline: a row per event and per phase marker, in order, with UTC, T+, who and how known', () => {
  const rows = tableAfter(doc, 'Timeline');
  assert.equal(rows.length, view.events.length + 4, 'every event and the four phase markers');
  const seqs = rows.map((r) => r[0]).filter((c) => c !== '');
  assert.deepEqual([...seqs].sort((a, b) => Number(a!.slice(1)) - Number(b!.slice(1))), view.events.map((e) => `#${e.seq}`));
  const times = rows.map((r) => r[1]!);
  assert.deepEqual(times, [...times].sort(), 'in time order');
  const impact = rows.find((r) => r[4]?.startsWith('IMPACT BEGINS'))!;
  assert.deepEqual(impact.slice(1, 4), ['2026-12-03 07:01:20', 'T−0:00:40', 'seatbelt']);
  const noteSeq = view.events.find((e) => e.kind === 'note' && String(e.payload.text).includes('failed to'))!.seq;
  const fixSeq = view.events.find((e) => e.kind === 'correction')!.seq;
  const note = rows.find((r) => r[0] === `#${noteSeq}`)!;
  assert.equal(note[4], `Note: Bob failed to notice the UPS alarm yesterday → corrected at #${fixSeq} by bob: The UPS alarm went to a mailbox nobody reads`);
  assert.ok(doc.includes(`<td><del>Note: Bob failed to notice the UPS alarm yesterday</del> → corrected at #${fixSeq}`));
  for (const r of rows) assert.ok(['measured', 'declared', 'inferred'].includes(r[5]!), `how known: ${r[5]}`);
});

test('charts: one per GPU of the latest report with GPU figures, one for the UPS, inline SVG', () => {
  const svgs = [...doc.matchAll(/<svg xmlns="http:\/\/www\.w3\.org\/2000\/svg" class="chart" data-chart="(gpu|ups)"[\s\S]*?<\/svg>/g)];
  assert.equal(svgs.length, (doc.match(/<svg/g) ?? []).length, 'every svg is a chart');
  assert.deepEqual(svgs.map((m) => m[1]), ['gpu', 'gpu', 'gpu', 'gpu', 'ups']);
  const gpu2 = svgs.find((m) => m[0].includes('<title id=') && m[0].includes('GPU memory of fv-ml1 GPU2'))![0];
  assert.match(gpu2, /<line class="floor" /, 'the floor is drawn');
  assert.match(gpu2, />floor: 4,096 MiB free</, 'the floor is settings.marginFloorMiB');
  assert.match(gpu2, />flash-next: measured 90,000 MiB, declared 14,336 MiB KV cache \+ weights</);
  const ups = svgs.find((m) => m[1] === 'ups')![0];
  assert.equal((ups.match(/<circle class="point"/g) ?? []).length, 2, 'two readings: 612 W and 540 W');
  assert.match(ups, />612 W OL CHRG</);
  assert.match(ups, />540 W OL CHRG</);
  assert.match(ups, />no answer</, 'the dark report is a gap, not a zero');
  assert.match(ups, /<line class="rating" /);
  assert.match(ups, />rating 900 W</);
  assert.match(ups, />T\+0:19:00</);
});

test('the head hash and the sections that Markdown has are in the HTML too', () => {
  assert.ok(doc.includes(`<code>${head}</code>`));
  assert.ok(doc.includes(`<pre><code>${head}\n</code></pre>`));
  for (const h of ['Summary', 'Impact', 'Verdict', 'Phases and times', 'Timeline', 'Decisions', 'Guardrail refusals', 'Overrides', 'Probe snapshots', 'Evidence', 'Runbook', 'Corrections', 'Action items', 'Participants', 'Blameless language check', 'Journal']) {
    assert.ok(doc.includes(`<h2>${h}</h2>`), h);
  }
  assert.match(doc, /<blockquote>\n<p><strong>TO WRITE<\/strong> — /);
});

test('the tables read in one pass give the same HTML as marked’s own table tokenizer: the scripted postmortem, and hostile cells', async () => {
  const { renderMarkdown } = await import('../../src/postmortem/markdown.ts');
  const { toHtml } = await import('../../src/postmortem/html.ts');
  const { table } = await import('../../src/postmortem/table.ts');
  const { md, code } = await import('../../src/postmortem/escape.ts');
  const markdown = renderMarkdown(view, { head, now: EXPORTED_AT, fleet: s.fleet });
  const page = { title: 'x', drill: false, charts: [] };
  assert.equal(toHtml(markdown, page), toHtml(markdown, { ...page, markedTables: true }));
  // Cells as the document makes them (md(), code spans) and raw: pipes escaped and not, runs of
  // backslashes, emphasis, code, tags, entities, links, URLs, a rule-like cell; a table cut short,
  // one followed by text or by another table. A fixed sequence, not a random one: the same every run.
  const pieces = ['a', ' ', '|', '\\', '\\\\|', '`', '`x`', '**b**', '~~d~~', '<i>', '&amp;', '"q"', "'", '#', '!', '[l](u)', 'www.x.y', 'http://x', '*', '_', '\\|', '  ', 'é', '1.', '-', ':---', '\n'];
  // The cases GFM's pipe rule decides: an escaped pipe in a code span is a pipe, one after an
  // escaped backslash ends the cell.
  const edge = table(['a', 'b'], [['`x\\|y`', 'p \\| q'], ['r\\\\', 's'], ['`\\\\|`', '&amp; <b> "q"']]);
  assert.equal(toHtml(edge, page), toHtml(edge, { ...page, markedTables: true }));
  assert.match(toHtml(edge, page), /<code>x\|y<\/code>/);
  let seed = 7;
  const next = (n: number): number => ((seed = (seed * 1103515245 + 12345) % 2 ** 31), seed % n);
  const text = (): string => Array.from({ length: 1 + next(5) }, () => pieces[next(pieces.length)]).join('');
  for (let n = 0; n < 400; n++) {
    const cols = 1 + next(4);
    const cell = (): string => [md(text()), code(text()), text().replace(/\n/g, ' '), ''][next(4)]!;
    const rows = Array.from({ length: next(4) }, () => Array.from({ length: cols + (next(5) === 0 ? 1 : 0) }, cell));
    const doc = ['## T', '', table(Array.from({ length: cols }, cell), rows, Array.from({ length: cols }, () => (next(2) ? 'r' : 'l'))), ['', 'after', '| x |'][next(3)], 'more'].join('\n');
    assert.equal(toHtml(doc, page), toHtml(doc, { ...page, markedTables: true }), JSON.stringify(doc));
  }
});
