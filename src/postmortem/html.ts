// The postmortem as one self-contained HTML file: the Markdown through marked, a small stylesheet
// that also prints, the charts as inline SVG. Nothing from the journal reaches the page as markup:
// md() escaped it before marked saw it, and the renderer here escapes any raw HTML marked still
// finds, except the chart markers this module placed itself. A Content-Security-Policy forbids
// scripts and every external resource, so the file shows the same offline, in a mail or a browser.
import { Marked, type Token, type Tokens } from 'marked';
import type { Chart } from './charts.ts';
import { html } from './escape.ts';

export const CHART_MARKER = (i: number): string => `<!--seat-chart:${i}-->`;
const MARKER = /^\s*<!--seat-chart:(\d+)-->\s*$/;

const STYLE = `
:root{color-scheme:light}
body{font:14px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:#1d1d1f;max-width:1180px;margin:2rem auto;padding:0 1rem}
h1{font-size:1.6rem;border-bottom:2px solid #333;padding-bottom:.3rem}
h2{font-size:1.25rem;margin-top:2.2rem;border-bottom:1px solid #ccc;padding-bottom:.2rem}
h3{font-size:1.05rem;margin-top:1.4rem}
table{border-collapse:collapse;margin:.6rem 0;font-size:.88em}
th,td{border:1px solid #ccc;padding:.25rem .45rem;vertical-align:top;text-align:left}
th{background:#f1f1f1}
tbody tr:nth-child(even) td{background:#fafafa}
blockquote{margin:.6rem 0;padding:.4rem .8rem;border-left:4px solid #d9822b;background:#fff7ec}
code,pre{font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;font-size:.9em;overflow-wrap:anywhere}
pre{background:#f5f5f5;padding:.5rem;overflow-x:auto}
del{color:#8a8a8a}
.drill{background:#c0392b;color:#fff;font-weight:700;letter-spacing:.2em;text-align:center;padding:.4rem;margin-bottom:1rem}
figure.chart{margin:.8rem 0}
svg.chart{max-width:100%;height:auto;display:block}
svg text{font:12px system-ui,sans-serif;fill:#222}
svg text.t{font-weight:600;font-size:13px}
svg text.in{fill:#fff;font-size:11px}
svg text.warn{fill:#c0392b}
svg text.ax,svg text.gap{fill:#555;font-size:11px}
@media print{
  @page{margin:1.5cm}
  body{margin:0;max-width:none;font-size:9.5pt}
  h1,h2,h3{break-after:avoid}
  tr,figure.chart,svg.chart,blockquote{break-inside:avoid}
  th,.drill,svg{-webkit-print-color-adjust:exact;print-color-adjust:exact}
  tbody tr:nth-child(even) td{background:none}
}
`.trim();

// Plain text up to the next character that could start other inline syntax. md() leaves no `&`
// (so no character reference to decode) and no bare URL (so nothing for GFM's autolinks).
const TEXT = /^[^\\<!\[\]`*_~&\n]+/;
/** A whole cell TEXT matches at once: it lexes to one text token. */
const PLAIN_CELL = /^[^\\<!\[\]`*_~&\n]+$/;
const RULE_CELL = /^ *(:?)-+(:?) *$/;

function marked(charts: Chart[], ownTables: boolean): Marked {
  const m = new Marked({ gfm: true, async: false });
  m.use({
    tokenizer: {
      table: ownTables ? ownTable : () => false,
      // No bare-URL links: the document links nowhere.
      url: () => undefined,
      // marked's own text rule also looks ahead for URLs and e-mail addresses at every character;
      // without them a run of text is one simple match (a long timeline is mostly text).
      inlineText(src: string) {
        const hit = TEXT.exec(src);
        return hit ? { type: 'text', raw: hit[0], text: hit[0], escaped: false } : false;
      },
    },
    renderer: {
      html(token: Tokens.HTML | Tokens.Tag): string {
        const hit = MARKER.exec(token.text);
        const chart = hit ? charts[Number(hit[1])] : undefined;
        if (chart) return `<figure class="chart" data-chart="${chart.kind}">\n${chart.svg}\n</figure>\n`;
        return html(token.text);
      },
      // The document has no links or images of its own: any that slipped in is shown as its text.
      link(token: Tokens.Link): string {
        return html(token.text);
      },
      image(token: Tokens.Image): string {
        return html(token.text);
      },
    },
  });
  return m;
}

/**
 * The tables this document writes (postmortem/table.ts: a header, a rule of `---`/`---:`, rows, each
 * line `| … |`, then a blank line), tokenized as marked's own table tokenizer would, in one pass:
 * marked finds a table with a regex over all of it and lexes every cell, and a timeline of 10,000
 * events is 60,000 cells, mostly plain text. Here a cell with nothing but plain text is its one text
 * token, exactly what the inline lexer would make of it; any other cell goes through the lexer as
 * before. Anything not of that shape is left to marked's tokenizer (`false`), so the HTML is the same.
 */
function ownTable(this: { lexer: { inline(src: string): Token[] } }, src: string): Tokens.Table | false {
  if (!src.startsWith('| ')) return false;
  const lines: string[] = [];
  let at = 0;
  while (at < src.length) {
    const nl = src.indexOf('\n', at);
    const line = nl === -1 ? src.slice(at) : src.slice(at, nl);
    if (!line.startsWith('|')) {
      // Where marked might read the table on (or read it otherwise), it decides.
      if (line.trim() !== '') return false;
      break;
    }
    lines.push(line);
    at = nl === -1 ? src.length : nl + 1;
  }
  if (lines.length < 2) return false;
  const rule = splitCells(lines[1]!);
  const align: Tokens.Table['align'] = [];
  for (const c of rule) {
    const hit = RULE_CELL.exec(c);
    if (!hit) return false;
    align.push(hit[1] && hit[2] ? 'center' : hit[2] ? 'right' : hit[1] ? 'left' : null);
  }
  const head = splitCells(lines[0]!);
  if (head.length !== align.length) return false;
  const cell = (text: string, i: number, header: boolean): Tokens.TableCell => ({
    text,
    tokens: PLAIN_CELL.test(text) ? [{ type: 'text', raw: text, text, escaped: false } as Tokens.Text] : this.lexer.inline(text),
    header,
    align: align[i] ?? null,
  });
  return {
    type: 'table',
    raw: lines.join('\n'),
    header: head.map((t, i) => cell(t, i, true)),
    align,
    rows: lines.slice(2).map((l) => splitCells(l, head.length).map((t, i) => cell(t, i, false))),
  };
}

/** marked's own cell split (GFM): on every pipe not escaped by an odd run of backslashes; `\|` is a pipe in the cell. */
function splitCells(row: string, count?: number): string[] {
  const cells: string[] = [];
  let start = 0;
  for (let i = 0; i < row.length; i++) {
    if (row.charCodeAt(i) !== 124) continue; // |
    let slashes = 0;
    for (let j = i - 1; j >= 0 && row.charCodeAt(j) === 92; j--) slashes++;
    if (slashes % 2 === 1) continue;
    cells.push(row.slice(start, i));
    start = i + 1;
  }
  cells.push(row.slice(start));
  if (cells.length > 0 && !cells[0]!.trim()) cells.shift();
  if (cells.length > 0 && !cells[cells.length - 1]!.trim()) cells.pop();
  if (count !== undefined) {
    if (cells.length > count) cells.length = count;
    while (cells.length < count) cells.push('');
  }
  return cells.map((c) => c.trim().replace(/\\\|/g, '|'));
}

/** `markedTables`: every table through marked's own tokenizer (tests hold the two to the same HTML). */
export function toHtml(markdown: string, o: { title: string; drill: boolean; charts: Chart[]; markedTables?: boolean }): string {
  const body = marked(o.charts, !o.markedTables).parse(markdown, { async: false });
  return `${[
    '<!doctype html>',
    '<html lang="en">',
    '<head>',
    '<meta charset="utf-8">',
    `<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; img-src data:">`,
    '<meta name="viewport" content="width=device-width, initial-scale=1">',
    '<meta name="generator" content="seatbelt">',
    `<title>${html(o.title)}</title>`,
    `<style>\n${STYLE}\n</style>`,
    '</head>',
    '<body>',
    o.drill ? '<div class="drill">DRILL</div>' : '',
    '<main>',
    body.trimEnd(),
    '</main>',
    '</body>',
    '</html>',
  ]
    .filter((l) => l !== '')
    .join('\n')}\n`;
}
