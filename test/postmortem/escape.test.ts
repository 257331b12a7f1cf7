// Free text from the journal is data: a title, a note, a reason, an evidence name or a person's
// name that looks like Markdown or HTML comes out as the same characters, never as a heading, a
// link, a strikethrough, a tag or a chart.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { Lexer, type Token } from 'marked';
import { md } from '../../src/postmortem/escape.ts';
import { renderPostmortem } from '../../src/postmortem/index.ts';
import { EXPORTED_AT, openJournal, type Journal } from './incident.ts';

const HOSTILE = [
  '# x',
  '<script>alert(1)</script>',
  '[a](javascript:x)',
  '~~gone~~',
  '**bold** _it_ `code`',
  '<img src=x onerror=alert(1)>',
  'https://evil.example/x www.evil.example mail@evil.example',
  '| a | b |',
  '&lt;b&gt; &amp;',
  '<!--seat-chart:0-->',
  '\\',
].join(' ');

const TITLE = '# x <script>alert(1)</script> [a](javascript:x) ~~gone~~ <!--seat-chart:0--> | a |';
let j: Journal;
let id: number;
let head: string;
let mdDoc: string;
let htmlDoc: string;
const eve = { kind: 'slack' as const, id: 'U0EVE', name: '<b>eve</b> [x](javascript:y)' };

before(async () => {
  j = await openJournal('seatbelt-export-escape-');
  const { service, store, clock } = j;
  clock.at('07:02:00');
  const opened = await service.open({ site: 'fv', title: TITLE, actor: eve, drill: false });
  if ('error' in opened) throw new Error(opened.error);
  id = opened.incident.id;
  clock.at('07:03:00');
  const pinned = await service.pin(id, 'site-dark', eve);
  if ('error' in pinned) throw new Error(pinned.error);
  clock.at('07:04:00');
  const note = await service.note(id, `${HOSTILE}\n# heading on a line of its own\n1. a list\n- another\n> quoted`, eve);
  if ('error' in note) throw new Error(note.error);
  clock.at('07:05:00');
  await store.append({ incident: id, kind: 'correction', actor: eve, happenedAt: clock.iso(), amends: note.event.seq, payload: { text: `~~${HOSTILE}~~` } });
  clock.at('07:06:00');
  await service.decide({ incident: id, step: 'recover-power-log', decision: 'done', actor: eve, evidence: { kind: 'file', of: 'power-log', name: `<svg onload=alert(1)>.log ${HOSTILE}`, size: 10, sha256: 'a'.repeat(64), measured: false } });
  clock.at('07:07:00');
  await service.decide({ incident: id, step: 'paid-coverage', decision: 'skip', actor: eve, reason: `[x]: javascript:alert(1) ${HOSTILE}` });
  const v = await store.verify(id);
  assert.ok(v.ok);
  head = v.heads.get(id)!;
  const view = (await service.view(id))!;
  mdDoc = renderPostmortem(view, { format: 'md', head, now: EXPORTED_AT, fleet: j.fleet });
  htmlDoc = renderPostmortem(view, { format: 'html', head, now: EXPORTED_AT, fleet: j.fleet });
});
after(async () => {
  await j?.close();
});

function walk(tokens: Token[], out: Token[] = []): Token[] {
  for (const t of tokens) {
    out.push(t);
    const inner = t as { tokens?: Token[]; items?: Token[]; header?: { tokens: Token[] }[]; rows?: { tokens: Token[] }[][] };
    if (inner.tokens) walk(inner.tokens, out);
    if (inner.items) walk(inner.items, out);
    for (const h of inner.header ?? []) walk(h.tokens, out);
    for (const r of inner.rows ?? []) for (const c of r) walk(c.tokens, out);
  }
  return out;
}

test('md() leaves nothing for a Markdown reader to interpret', () => {
  const tokens = walk(Lexer.lex(`- ${md(HOSTILE)}\n\n| a |\n| --- |\n| ${md(HOSTILE)} |\n`, { gfm: true }));
  const kinds = new Set(tokens.map((t) => t.type));
  for (const k of ['heading', 'link', 'image', 'html', 'del', 'strong', 'em', 'codespan', 'blockquote']) assert.ok(!kinds.has(k), `no ${k} token from free text`);
  const text = tokens.filter((t) => t.type === 'text' || t.type === 'escape').map((t) => (t as { text: string }).text).join('');
  assert.ok(text.includes('<script>alert(1)</script>'), 'the characters themselves survive');
  assert.equal(md('1. first'), '1\\. first');
  assert.equal(md('- item'), '\\- item');
  assert.equal(md('line one\n# two'), 'line one \\# two', 'a line break cannot start a heading');
});

test('the Markdown export has only its own headings, links, strikethroughs and HTML', () => {
  const tokens = walk(Lexer.lex(mdDoc, { gfm: true }));
  const headings = tokens.filter((t) => t.type === 'heading').map((t) => (t as { text: string; depth: number }).depth);
  assert.equal(headings.filter((d) => d === 1).length, 1, 'one title');
  for (const t of tokens) {
    if (t.type === 'heading') assert.match((t as { text: string }).text, /^(Postmortem: |[A-Z][a-z]+( [a-z]+)*$|Report #)/, `a heading of the document's own: ${(t as { text: string }).text}`);
  }
  for (const k of ['link', 'image', 'html']) assert.equal(tokens.filter((t) => t.type === k).length, 0, `no ${k} in the document`);
  // Exactly the two strikethroughs of the correction (in the timeline and in Corrections), each of the note.
  const dels = tokens.filter((t) => t.type === 'del') as { text: string }[];
  assert.equal(dels.length, 2, JSON.stringify(dels.map((d) => d.text)));
  for (const d of dels) assert.match(d.text, /^Note: /, d.text);
  for (const line of mdDoc.split('\n')) assert.ok(!/^#+ x/.test(line) && !/^#+ heading/.test(line), `no injected heading: ${line}`);
  assert.ok(!/(?<!\\)\]\(javascript:/.test(mdDoc), 'every ] of a typed link is escaped');
  assert.ok(!mdDoc.includes('<script>'));
});

test('the HTML export carries no markup from the journal: no script, no tag, no link, no extra chart', () => {
  assert.ok(!/<script/i.test(htmlDoc), 'no script element');
  assert.ok(!/<img/i.test(htmlDoc), 'no img element');
  assert.ok(!/<a\s/i.test(htmlDoc), 'no link at all');
  assert.ok(!/<svg onload/i.test(htmlDoc));
  assert.ok(!/<b>eve/i.test(htmlDoc));
  assert.ok(!/<h1>[^<]*<\/h1>[\s\S]*<h1>/.test(htmlDoc), 'one h1');
  assert.ok(!/<del>(?!Note: )/.test(htmlDoc), 'typed ~~ is not a strikethrough: the only ones are the correction\'s');
  assert.equal((htmlDoc.match(/<svg/g) ?? []).length, 0, 'no probe report, so no chart: the typed marker did not make one');
  assert.ok(htmlDoc.includes('&lt;script&gt;alert(1)&lt;/script&gt;'), 'the text is shown, escaped');
  assert.ok(htmlDoc.includes('&lt;!--seat-chart:0--&gt;'), 'the typed chart marker is shown as text');
  assert.ok(htmlDoc.includes('&amp;lt;b&amp;gt; &amp;amp;'), 'typed entities are shown as typed');
  assert.match(htmlDoc, /<title>Postmortem #1: # x &lt;script&gt;alert\(1\)&lt;\/script&gt; \[a\]\(javascript:x\) ~~gone~~ &lt;!--seat-chart:0--&gt; \| a \|<\/title>/);
  // Every attribute in the document is one of its own.
  const attrs = new Set([...htmlDoc.matchAll(/<[a-z][\w-]*\s+([^>]*)>/gi)].flatMap((m) => [...` ${m[1] ?? ''}`.matchAll(/\s([\w-]+)="/g)].map((a) => a[1])));
  for (const a of attrs) assert.ok(['charset', 'http-equiv', 'content', 'name', 'lang', 'align', 'class', 'data-chart'].includes(a!), `unexpected attribute ${a}`);
});
