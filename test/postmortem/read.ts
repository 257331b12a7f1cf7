// Reading an exported postmortem back in tests: a Markdown section, an HTML table's cells.
import assert from 'node:assert/strict';

/** The text of one `## name` section of the Markdown. */
export function section(doc: string, name: string): string {
  const start = doc.indexOf(`\n## ${name}\n`);
  assert.ok(start >= 0, `no section ${name}`);
  const end = doc.indexOf('\n## ', start + 1);
  return doc.slice(start, end < 0 ? undefined : end);
}

/** The rows of the first table after `<h2>name</h2>`, as cell texts with the tags taken out. */
export function tableAfter(html: string, name: string): string[][] {
  const at = html.indexOf(`<h2>${name}</h2>`);
  assert.ok(at >= 0, `no <h2>${name}</h2>`);
  const start = html.indexOf('<table>', at);
  const end = html.indexOf('</table>', start);
  const body = html.slice(html.indexOf('<tbody>', start), end);
  return [...body.matchAll(/<tr>([\s\S]*?)<\/tr>/g)].map((r) => [...(r[1] ?? '').matchAll(/<td[^>]*>([\s\S]*?)<\/td>/g)].map((c) => (c[1] ?? '').replace(/<[^>]+>/g, '')));
}
