// Runbooks are Markdown files in runbooks/: the `#` heading is the title, the paragraph under it the
// summary, each `##` heading a step whose ```seat block (YAML) is its machine part. Parsing never
// throws: every problem is one line `file:line: what was expected`. The line is counted from the
// lexer's tokens (their raw text, in order, is the file), and inside a seat block from the YAML node.
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { readFile, readdir, stat } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import jsYaml from 'js-yaml';
import { Lexer, getDefaults, type Token, type Tokens } from 'marked';
import { isMap, isScalar, isSeq, parseDocument, type Node } from 'yaml';
import { NAMED_RUNBOOKS, RUNBOOKS } from '../diagnose/runbooks.ts';
import type { Runbook, StepSpec } from '../incident/types.ts';
import { STRICT_WORD, WORD_RULE, validateSeatBlock, type SeatIssue } from './schema.ts';

export type ParseResult = { ok: true; runbook: Runbook } | { ok: false; errors: string[] };

export const MAX_RUNBOOK_BYTES = 256 * 1024;
/** Past this many problems in one seat block, or in one file, the rest are counted, not listed. */
const MAX_ISSUES_PER_BLOCK = 20;
const MAX_ERRORS_PER_FILE = 100;

/** C0/C1 controls but tab and line feed (a CR only before LF), and the bidi overrides that make text read other than it runs. */
const CONTROL = /[\x00-\x08\x0B\x0C\x0E-\x1F\x7F-\x9F\u202A-\u202E\u2066-\u2069]|\r(?!\n)/;

interface Problem {
  line?: number;
  message: string;
}

/** `file` is shown in every error and kept as the runbook's `file`; its name without `.md` is the id. */
export function parseRunbook(text: string, file: string): ParseResult {
  const bytes = Buffer.from(text, 'utf8');
  return parseChecked(text, bytes.length, sha256(bytes), file);
}

function sha256(bytes: Uint8Array): string {
  return createHash('sha256').update(bytes).digest('hex');
}

function parseChecked(text: string, size: number, sha: string, file: string): ParseResult {
  const problems: Problem[] = [];
  const id = path.posix.basename(file.replaceAll('\\', '/')).replace(/\.md$/, '');
  if (!STRICT_WORD.test(id)) problems.push({ message: `the file name ${JSON.stringify(id)} is not a runbook id: expected ${WORD_RULE}, then .md` });
  if (size > MAX_RUNBOOK_BYTES) {
    problems.push({ message: `${size} bytes: expected a runbook of at most ${MAX_RUNBOOK_BYTES / 1024} KiB` });
    return refuse(file, problems);
  }
  const control = CONTROL.exec(text);
  if (control) {
    const at = lineIndex(text);
    const code = control[0].charCodeAt(0).toString(16).toUpperCase().padStart(4, '0');
    problems.push({ line: at(control.index), message: `a control character (U+${code}): expected plain Markdown text` });
    return refuse(file, problems);
  }
  // Marked reads CRLF as LF; so do the line numbers. The hash is over the bytes as they are.
  const source = text.replace(/^\uFEFF/, '').replace(/\r\n/g, '\n');
  const parsed = parseMarkdown(source, file, id, sha, problems);
  return problems.length > 0 || !parsed ? refuse(file, problems) : { ok: true, runbook: parsed };
}

function refuse(file: string, problems: Problem[]): ParseResult {
  const sorted = [...problems].sort((a, b) => (a.line ?? 0) - (b.line ?? 0));
  const errors = sorted.slice(0, MAX_ERRORS_PER_FILE).map((p) => (p.line === undefined ? `${file}: ${p.message}` : `${file}:${p.line}: ${p.message}`));
  if (sorted.length > MAX_ERRORS_PER_FILE) errors.push(`${file}: and ${sorted.length - MAX_ERRORS_PER_FILE} more problems`);
  return { ok: false, errors };
}

/** offset → 1-based line, by binary search over the line starts. */
function lineIndex(text: string): (offset: number) => number {
  const starts = [0];
  for (let i = text.indexOf('\n'); i !== -1; i = text.indexOf('\n', i + 1)) starts.push(i + 1);
  return (offset) => {
    let lo = 0;
    let hi = starts.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (starts[mid]! <= offset) lo = mid;
      else hi = mid - 1;
    }
    return lo + 1;
  };
}

interface Located {
  token: Token;
  /** 1-based line of the token's first non-blank character. */
  line: number;
}

interface Draft {
  title: string;
  line: number;
  tokens: Located[];
}

function isSeat(token: Token): token is Tokens.Code {
  return token.type === 'code' && typeof token.lang === 'string' && token.lang.trim().split(/\s+/)[0] === 'seat';
}

function parseMarkdown(source: string, file: string, id: string, sha: string, problems: Problem[]): Runbook | null {
  // marked's own defaults, fresh: a marked.use() elsewhere (the postmortem's HTML) must not change
  // how runbooks read. Block tokens only: the inline pass is not needed here, and emphasis runs
  // make it quadratic (19 s for 240 KB of "*a").
  let tokens: Token[];
  try {
    tokens = new Lexer(getDefaults()).blockTokens(source, []);
  } catch (err) {
    // Quotes or lists nested thousands deep overflow the lexer's recursion.
    problems.push({ message: `the Markdown cannot be read (${err instanceof Error ? err.message : String(err)}): expected plain Markdown, not quotes or lists nested this deep` });
    return null;
  }
  const lineAt = lineIndex(source);
  const located: Located[] = [];
  let offset = 0;
  for (const token of tokens) {
    // The lexer cuts each token's raw off the front of the source, so the raws add up to it. When
    // it has glued a continuation line onto a paragraph, its raw may hold a "\n" the source lacks:
    // find it again a little back.
    const at = source.startsWith(token.raw, offset) ? offset : source.indexOf(token.raw, Math.max(0, offset - 8));
    const start = at === -1 ? offset : at;
    located.push({ token, line: lineAt(start + Math.max(token.raw.search(/\S/), 0)) });
    offset = start + (at === -1 ? token.raw.length - 1 : token.raw.length);
  }

  let title: { text: string; line: number } | undefined;
  let summary: string | undefined;
  let strayBeforeTitle: number | undefined;
  const drafts: Draft[] = [];
  for (const item of located) {
    const { token, line } = item;
    if (token.type === 'heading' && (token as Tokens.Heading).depth <= 2) {
      const heading = token as Tokens.Heading;
      const text = heading.text.trim();
      if (heading.depth === 1) {
        if (title) problems.push({ line, message: `a second # heading: expected one # title a runbook (its steps are ## headings; the first title is at line ${title.line})` });
        else if (drafts.length > 0) problems.push({ line, message: 'a # title after the steps: expected the # title first, then ## steps' });
        else if (text === '') problems.push({ line, message: 'an empty # title: expected the runbook\'s name after #' });
        else title = { text, line };
        continue;
      }
      if (text === '') problems.push({ line, message: 'an empty ## heading: expected the step\'s title after ##' });
      drafts.push({ title: text, line, tokens: [] });
      continue;
    }
    const current = drafts.at(-1);
    if (current) {
      current.tokens.push(item);
      continue;
    }
    if (!title) {
      if (strayBeforeTitle === undefined && !['space', 'html', 'def'].includes(token.type)) strayBeforeTitle = line;
      continue;
    }
    if (isSeat(token)) problems.push({ line, message: 'a seat block before the first step: expected it under a ## step heading' });
    else if (summary === undefined && token.type === 'paragraph') summary = (token as Tokens.Paragraph).text.replace(/\s*\n\s*/g, ' ').trim();
  }

  if (!title) {
    problems.push({ line: 1, message: 'no title: expected a # heading with the runbook\'s name first' });
    return null;
  }
  if (strayBeforeTitle !== undefined) problems.push({ line: strayBeforeTitle, message: 'text before the title: expected the runbook to begin with its # title' });
  if (summary === undefined) problems.push({ line: title.line, message: 'no summary: expected a paragraph under the # title saying when this runbook applies' });
  if (drafts.length === 0) {
    problems.push({ line: title.line, message: 'no steps: expected at least one ## step heading, each with a ```seat block' });
    return null;
  }

  const steps: StepSpec[] = [];
  const ids = new Map<string, number>();
  for (const draft of drafts) {
    const step = parseStep(draft, problems);
    if (step.id === undefined) continue;
    const first = ids.get(step.id);
    if (first !== undefined) {
      problems.push({ line: step.idLine(), message: `step "${step.id}": id: "${step.id}" is already the id of the step at line ${first}: expected each step id once in a runbook` });
      continue;
    }
    ids.set(step.id, draft.line);
    if (step.spec) steps.push(step.spec);
  }
  return { id, title: title.text, summary: summary ?? '', file, sha256: sha, steps };
}

/** The step, when its seat block is good; its id and the id's line whenever the block names a well-formed one. */
interface Parsed {
  spec: StepSpec | null;
  id?: string;
  /** Found only when needed (a duplicate): it reparses the block for positions. */
  idLine: () => number;
}

function parseStep(draft: Draft, problems: Problem[]): Parsed {
  const none: Parsed = { spec: null, idLine: () => draft.line };
  const seats = draft.tokens.filter((t) => isSeat(t.token));
  for (const nested of nestedSeats(draft.tokens)) {
    problems.push({ line: nested, message: `step "${short(draft.title)}": a seat block inside a list or quote: expected it at the top level of the step, not indented` });
  }
  if (seats.length === 0) {
    problems.push({ line: draft.line, message: `step "${short(draft.title)}": no seat block: expected one \`\`\`seat block with the step's id, kind and why` });
    return none;
  }
  const [seat, ...extra] = seats;
  for (const more of extra) {
    problems.push({ line: more.line, message: `step "${short(draft.title)}": a second seat block: expected exactly one per step (the first is at line ${seat!.line})` });
  }
  if (extra.length > 0) return none;
  const code = seat!.token as Tokens.Code;
  const fenceLine = seat!.line;
  const label = (id: unknown) => `step "${typeof id === 'string' && STRICT_WORD.test(id) ? id : short(draft.title)}"`;

  if (!closed(code.raw)) {
    problems.push({ line: fenceLine, message: `${label(undefined)}: the seat block is not closed: expected a closing fence (${code.raw.trimStart().slice(0, 3)}) after its YAML` });
    return none;
  }
  // A fence left open runs into the next step; say so rather than report the YAML it swallowed.
  const runOn = code.text.split('\n').findIndex((l) => /^(?:#{2,6}\s|`{3,}|~{3,})/.test(l));
  if (runOn !== -1) {
    problems.push({ line: fenceLine, message: `${label(undefined)}: the seat block runs on into line ${fenceLine + 1 + runOn} (a heading or a fence): expected its closing fence before it` });
    return none;
  }
  let raw: unknown;
  try {
    raw = jsYaml.load(code.text, { schema: jsYaml.CORE_SCHEMA });
  } catch (err) {
    const e = err as Partial<jsYaml.YAMLException>;
    const line = fenceLine + 1 + (e.mark?.line ?? 0);
    const guessedId = /^id:\s*([a-z][a-z0-9-]*)\s*$/m.exec(code.text)?.[1];
    problems.push({ line, message: `${label(guessedId)}: the seat block is not valid YAML: ${e.reason ?? String(err)}` });
    return none;
  }
  const id = raw !== null && typeof raw === 'object' ? (raw as Record<string, unknown>).id : undefined;
  const where = yamlLines(code.text, fenceLine);
  const named: Parsed = typeof id === 'string' && STRICT_WORD.test(id) ? { spec: null, id, idLine: () => where({ path: ['id'], message: '' }) } : none;
  const result = validateSeatBlock(raw);
  if (!result.ok) {
    const listed = result.issues.slice(0, MAX_ISSUES_PER_BLOCK);
    for (const issue of listed) problems.push({ line: where(issue), message: `${label(id)}: ${issue.message}` });
    const more = result.issues.length - listed.length;
    if (more > 0) problems.push({ line: fenceLine, message: `${label(id)}: and ${more} more problems in this seat block` });
    return named;
  }
  const body = joinBody(draft.tokens.filter((t) => t !== seat).map((t) => t.token.raw), draft.tokens.indexOf(seat!));
  const spec: StepSpec = { ...result.value, title: draft.title, body, line: draft.line };
  return { ...named, spec };
}

/** A heading as quoted in a message. */
function short(title: string): string {
  return title.length > 60 ? `${title.slice(0, 57)}...` : title;
}

/** The body is the step's Markdown as written, less its seat block, with the gap it leaves closed. */
function joinBody(raws: string[], seatIndex: number): string {
  const before = raws.slice(0, seatIndex).join('').trimEnd();
  const after = raws.slice(seatIndex).join('').replace(/^(?:[ \t]*\n)+/, '').trimEnd();
  return [before.replace(/^(?:[ \t]*\n)+/, ''), after].filter((s) => s !== '').join('\n\n');
}

/** A fence whose closing line is missing swallows the rest of the file. */
function closed(raw: string): boolean {
  const lines = raw.trimEnd().split('\n');
  const open = /^\s*(`{3,}|~{3,})/.exec(lines[0] ?? '')?.[1];
  const last = lines.at(-1)?.trim() ?? '';
  return open !== undefined && lines.length > 1 && last.startsWith(open) && /^(`+|~+)$/.test(last);
}

/** Seat blocks lexed inside a list, quote or the like: the line of each. */
function nestedSeats(tokens: Located[]): number[] {
  const lines: number[] = [];
  for (const { token, line } of tokens) {
    if (isSeat(token)) continue;
    for (const inner of descendants(token)) {
      if (!isSeat(inner)) continue;
      const fence = inner.raw.trimStart().split('\n')[0] ?? '';
      const lead = Math.max(token.raw.search(/\S/), 0);
      const at = token.raw.indexOf(fence, lead);
      lines.push(line + (at === -1 ? 0 : newlines(token.raw.slice(lead, at))));
    }
  }
  return lines;
}

function newlines(s: string): number {
  return s.match(/\n/g)?.length ?? 0;
}

/** Every token nested in `token` (list items, their contents, quoted blocks), without recursion. */
function descendants(token: Token): Token[] {
  const found: Token[] = [];
  const children = (t: Token): Token[] => [...((t as { tokens?: Token[] }).tokens ?? []), ...((t as { items?: Token[] }).items ?? [])];
  const stack = children(token).reverse();
  for (let next = stack.pop(); next; next = stack.pop()) {
    found.push(next);
    stack.push(...children(next).reverse());
  }
  return found;
}

/** Where in the file a problem's YAML path is: the key's line, or the nearest enclosing one; the fence if none. */
function yamlLines(text: string, fenceLine: number): (issue: SeatIssue) => number {
  let doc: ReturnType<typeof parseDocument> | undefined;
  let lineAt: ((offset: number) => number) | undefined;
  return (issue) => {
    doc ??= parseDocument(text, { uniqueKeys: false });
    lineAt ??= lineIndex(text);
    let best = fenceLine;
    let node: unknown = doc.contents;
    for (const key of issue.path) {
      let next: unknown;
      let at: number | undefined;
      if (isMap(node)) {
        const pair = node.items.find((p) => isScalar(p.key) && String(p.key.value) === String(key));
        if (!pair) break;
        at = (pair.key as Node).range?.[0];
        next = pair.value;
      } else if (isSeq(node) && typeof key === 'number') {
        const item = node.items[key];
        if (!item) break;
        at = (item as Node).range?.[0];
        next = item;
      } else break;
      if (at !== undefined) best = fenceLine + lineAt(at);
      node = next;
    }
    return best;
  };
}

// ---------------------------------------------------------------------------------------------
// The runbook folder

/** The folder holding package.json above `from` (this module in src/ or dist/src/), or null. */
export function packageRoot(from: string | URL = import.meta.url): string | null {
  let dir = path.dirname(fileURLToPath(from));
  for (;;) {
    if (existsSync(path.join(dir, 'package.json'))) return dir;
    const parent = path.dirname(dir);
    if (parent === dir) return null;
    dir = parent;
  }
}

/** `<package root>/runbooks`, found at call time. */
export function defaultRunbookDir(from: string | URL = import.meta.url): string {
  return path.join(packageRoot(from) ?? process.cwd(), 'runbooks');
}

export interface LoadedRunbooks {
  runbooks: Map<string, Runbook>;
  errors: string[];
}

interface FileResult {
  id: string;
  file: string;
  result: ParseResult;
}

/** Every `*.md` of `dir` but README.md, sorted by name; a bad file is reported and left out, never thrown. */
export async function loadRunbooks(dir: string = defaultRunbookDir()): Promise<LoadedRunbooks> {
  const read = await readFolder(dir);
  const runbooks = new Map<string, Runbook>();
  for (const f of read.files) if (f.result.ok) runbooks.set(f.result.runbook.id, f.result.runbook);
  return { runbooks, errors: [...read.errors, ...read.files.flatMap((f) => (f.result.ok ? [] : f.result.errors))] };
}

async function readFolder(dir: string): Promise<{ files: FileResult[]; errors: string[] }> {
  let names: string[];
  try {
    names = await readdir(dir);
  } catch (err) {
    return { files: [], errors: [`${shown(dir)}: cannot read the runbook folder (${(err as NodeJS.ErrnoException).code ?? String(err)})`] };
  }
  const md = names.filter((n) => n.endsWith('.md') && n.toLowerCase() !== 'readme.md').sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  const files: FileResult[] = [];
  for (const name of md) {
    const file = shown(path.join(dir, name));
    files.push({ id: name.slice(0, -'.md'.length), file, result: await readRunbook(path.join(dir, name), file) });
  }
  return { files, errors: [] };
}

async function readRunbook(full: string, file: string): Promise<ParseResult> {
  try {
    // stat first: a FIFO or a huge file named *.md is refused without being read.
    const info = await stat(full);
    if (!info.isFile()) return { ok: false, errors: [`${file}: not a regular file: expected a Markdown runbook`] };
    if (info.size > MAX_RUNBOOK_BYTES) return { ok: false, errors: [`${file}: ${info.size} bytes: expected a runbook of at most ${MAX_RUNBOOK_BYTES / 1024} KiB`] };
    const bytes = await readFile(full);
    let text: string;
    try {
      text = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(bytes);
    } catch {
      return { ok: false, errors: [`${file}: not UTF-8 text: expected a Markdown runbook in UTF-8`] };
    }
    return parseChecked(text, bytes.length, sha256(bytes), file);
  } catch (err) {
    return { ok: false, errors: [`${file}: cannot read it (${(err as NodeJS.ErrnoException).code ?? String(err)})`] };
  }
}

/** A path as shown and pinned: relative to the repository when inside it (`runbooks/site-dark.md`). */
function shown(full: string): string {
  const root = packageRoot();
  const abs = path.resolve(full);
  if (root) {
    const rel = path.relative(root, abs);
    if (rel !== '' && !rel.startsWith('..') && !path.isAbsolute(rel)) return rel.split(path.sep).join('/');
  }
  return abs;
}

export interface RunbookCheck {
  ok: boolean;
  lines: string[];
}

/**
 * `seat runbook check`: one line per runbook (its steps and the sha256 an incident pins), or its
 * errors; then every runbook the diagnosis proposes or a person starts by name must have a file.
 */
export async function checkRunbooks(dir: string = defaultRunbookDir()): Promise<RunbookCheck> {
  const read = await readFolder(dir);
  const lines = [...read.errors];
  let ok = read.errors.length === 0;
  for (const f of read.files) {
    if (f.result.ok) {
      const rb = f.result.runbook;
      lines.push(`ok ${rb.id}: ${rb.steps.length} step${rb.steps.length === 1 ? '' : 's'}, sha256 ${rb.sha256.slice(0, 12)} (${rb.file})`);
    } else {
      ok = false;
      lines.push(...f.result.errors);
    }
  }
  const present = new Set(read.files.map((f) => f.id));
  const wanted: [string, string][] = [
    ...Object.keys(RUNBOOKS).map((id): [string, string] => [id, 'the diagnosis proposes']),
    ...Object.keys(NAMED_RUNBOOKS).map((id): [string, string] => [id, 'a person starts by name']),
  ];
  for (const [id, who] of wanted) {
    if (present.has(id)) continue;
    ok = false;
    lines.push(`${shown(path.join(dir, `${id}.md`))}: missing: ${who} "${id}" (src/diagnose/runbooks.ts): expected a runbook file for it`);
  }
  return { ok, lines };
}
