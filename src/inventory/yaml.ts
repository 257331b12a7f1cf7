// The inventory's YAML → plain data, or errors with line and column. Linear in the file's size:
// yaml's own uniqueKeys check compares every key with every other (minutes for a 2 MB file), so
// duplicates are found here with a Set per map. Written as a generator that pauses every few
// thousand tokens, so an async caller keeps the event loop (and Ctrl-C) alive while it parses.
//
// This is the precise road, taken when the fast one (`./fast-yaml.ts`) is not sure; `yaml` is
// loaded only then, so a good inventory never pays for it.
import { createRequire } from 'node:module';
import type { Document, LineCounter, Node } from 'yaml';

type YamlLib = typeof import('yaml');
let lib: YamlLib | undefined;
const yamlLib = (): YamlLib => (lib ??= createRequire(import.meta.url)('yaml') as YamlLib);

export type YamlResult = { ok: true; value: unknown } | { ok: false; errors: string[] };

/** Expanded aliases allowed in toJS; more is an alias bomb ("billion laughs"), not a fleet. */
export const MAX_ALIAS_COUNT = 100;
const LEXEMES_PER_PAUSE = 20_000;
const MAX_MESSAGE = 120;

/** Control characters other than tab and line breaks: a binary file, not a YAML text. */
export const CONTROL = /[\x00-\x08\x0B\x0C\x0E-\x1F\x7F]/;

export function* readYaml(text: string, source: string): Generator<void, YamlResult> {
  const lc = new (yamlLib().LineCounter)();
  const at = (offset: number): string => {
    const { line, col } = lc.linePos(offset);
    return `${source}, line ${line}, column ${col}`;
  };
  const control = CONTROL.exec(text);
  if (control) {
    lineStarts(lc, text.slice(0, control.index));
    return { ok: false, errors: [`${at(control.index)}: a control character (U+${control[0].charCodeAt(0).toString(16).toUpperCase().padStart(4, '0')}): this is not a YAML text file`] };
  }
  const docs = yield* compose(text, lc);
  if (docs.length > 1) return { ok: false, errors: [`${at(docs[1]!.range[0])}: a second YAML document (---): an inventory is one document`] };
  const doc = docs[0];
  if (!doc || doc.contents === null) return { ok: false, errors: [`${source}: the inventory is empty`] };
  if (doc.errors.length > 0) {
    return { ok: false, errors: doc.errors.map((e) => `${at(e.pos[0])}: YAML syntax error: ${brief(e.message)}`) };
  }
  yield;
  const structural = checkNodes(doc, at);
  if (structural.length > 0) return { ok: false, errors: structural };
  yield;
  let value: unknown;
  try {
    value = doc.toJS({ maxAliasCount: MAX_ALIAS_COUNT });
  } catch (err) {
    const message = err instanceof Error ? err.message : String(err);
    if (/excessive alias count/i.test(message)) {
      return { ok: false, errors: [`${source}: YAML aliases expand too far (over ${MAX_ALIAS_COUNT} alias expansions: an alias bomb?): write the values out, or use fewer aliases`] };
    }
    return { ok: false, errors: [`${source}: YAML cannot be read as data: ${brief(message)}`] };
  }
  const shape = describeTop(value);
  if (shape) return { ok: false, errors: [`${source}: the inventory must be a YAML mapping (fleet:, gateway:, sites:, ...); this file holds ${shape}`] };
  return { ok: true, value };
}

function* compose(text: string, lc: LineCounter): Generator<void, Document.Parsed[]> {
  const { Composer, Lexer, Parser } = yamlLib();
  lc.addNewLine(0);
  const parser = new Parser(lc.addNewLine);
  const composer = new Composer({ uniqueKeys: false });
  const docs: Document.Parsed[] = [];
  let n = 0;
  for (const lexeme of new Lexer().lex(text)) {
    for (const token of parser.next(lexeme)) for (const doc of composer.next(token)) docs.push(doc);
    if (++n % LEXEMES_PER_PAUSE === 0) yield;
  }
  for (const token of parser.end()) for (const doc of composer.next(token)) docs.push(doc);
  for (const doc of composer.end(true, text.length)) docs.push(doc);
  return docs;
}

function lineStarts(lc: LineCounter, before: string): void {
  lc.addNewLine(0);
  for (let i = before.indexOf('\n'); i !== -1; i = before.indexOf('\n', i + 1)) lc.addNewLine(i + 1);
}

/** Duplicate keys, `__proto__` keys and aliases without an anchor, each with its line. One pass. */
function checkNodes(doc: Document.Parsed, at: (offset: number) => string): string[] {
  const { isAlias, isMap, isNode, isScalar, visit } = yamlLib();
  const errors: string[] = [];
  const anchors = new Set<string>();
  visit(doc, (_key, node, path) => {
    if (isNode(node) && node.anchor) anchors.add(node.anchor);
    if (isAlias(node) && !anchors.has(node.source)) {
      errors.push(`${at(node.range?.[0] ?? 0)}: alias *${node.source.slice(0, 40)} has no anchor &${node.source.slice(0, 40)} before it`);
    }
    if (!isMap(node)) return;
    const seen = new Map<string, number>();
    for (const pair of node.items) {
      if (!isScalar(pair.key)) continue;
      const key = String(pair.key.value);
      const offset = pair.key.range?.[0] ?? 0;
      const where = [...yamlPath(path, node), key].join('.');
      if (key === '__proto__') errors.push(`${at(offset)}: ${where}: the key "__proto__" is not allowed`);
      const first = seen.get(key);
      if (first !== undefined) errors.push(`${at(offset)}: ${where} appears twice (first at ${at(first).replace(/^.*?, line/, 'line')})`);
      else seen.set(key, offset);
    }
  });
  return errors;
}

/** The dotted path of a node from visit's ancestors; only computed when there is an error to name. */
function yamlPath(ancestors: readonly unknown[], node: Node): string[] {
  const { isPair, isScalar, isSeq } = yamlLib();
  const out: string[] = [];
  const chain = [...ancestors, node];
  for (let i = 0; i < chain.length; i++) {
    const a = chain[i];
    if (isPair(a) && isScalar(a.key)) out.push(String(a.key.value));
    else if (isSeq(a) && i + 1 < chain.length) out.push(String(a.items.indexOf(chain[i + 1] as never)));
  }
  return out;
}

function describeTop(value: unknown): string | null {
  if (value !== null && typeof value === 'object' && !Array.isArray(value)) return null;
  if (Array.isArray(value)) return 'a list';
  if (value === null || value === undefined) return 'nothing';
  if (typeof value === 'string') return 'a plain string';
  return `a ${typeof value}`;
}

function brief(message: string): string {
  const line = (message.split('\n')[0] ?? '').replace(/ at line \d+, column \d+:?$/, '');
  return line.length > MAX_MESSAGE ? `${line.slice(0, MAX_MESSAGE - 3)}...` : line;
}
