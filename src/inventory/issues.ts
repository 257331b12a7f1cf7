// zod's findings about an inventory, in the words of the person who wrote the file: the YAML
// path, what was wrong, and the value — except where the value may be a secret.
import type { z } from 'zod';
import { NAME_RULE } from './schema.ts';

/** Where a value is never shown back: a pasted key, a URL that may carry a password. */
function secretPath(path: readonly PropertyKey[]): boolean {
  return path[0] === 'gateway' && (path[1] === 'keys' || path[1] === 'baseUrl');
}

/** The kind of thing a map holds, for "site name "Fv" breaks the rule ...". */
const NAMED: Record<string, string> = { sites: 'site', hosts: 'host', seats: 'seat', aliases: 'alias', bmc: 'BMC', keys: 'key' };

export function formatIssue(issue: z.core.$ZodIssue, raw: unknown): string {
  const path = issue.path.map(String).join('.') || '(top level)';
  const where = path === '(top level)' ? '' : `${path}: `;
  if (issue.code === 'unrecognized_keys') {
    return `${where}unknown key${issue.keys.length > 1 ? 's' : ''} ${issue.keys.map((k) => JSON.stringify(k)).join(', ')}`;
  }
  if (issue.code === 'invalid_key') {
    const key = String(issue.path.at(-1));
    const parent = issue.path.at(-2);
    const what = NAMED[String(parent)] ?? 'name';
    return `${path}: ${what} name ${truncate(JSON.stringify(key))} breaks the rule: ${NAME_RULE}`;
  }
  const here = locate(raw, issue.path);
  if (issue.code === 'invalid_type' && !here.present) return `${path}: missing`;
  if (secretPath(issue.path)) return `${path}: ${secretSafe(issue)}`;
  const got = here.value === null ? 'nothing (empty)' : truncate(JSON.stringify(here.value) ?? String(here.value));
  // zod's own wording ("Invalid input: expected string, received number") is replaced; ours is kept.
  const zodWords = issue.message.startsWith('Invalid ');
  if (zodWords && issue.code === 'invalid_type') return `${path}: expected ${article(issue.expected)}, got ${got}`;
  if (zodWords && issue.code === 'invalid_value') return `${path}: expected one of ${issue.values.map(String).join(', ')}, got ${got}`;
  // Our own messages already say "got ..." where it helps; otherwise append the offending value.
  return issue.message.includes('got ') ? `${path}: ${issue.message}` : `${path}: ${issue.message}, got ${got}`;
}

/** The message alone: no value is echoed under gateway.keys or gateway.baseUrl. */
function secretSafe(issue: z.core.$ZodIssue): string {
  if (issue.code === 'invalid_type' && issue.message.startsWith('Invalid ')) return `expected ${article(issue.expected)}`;
  return issue.message;
}

/** The value at a path, by own properties only (a key named "constructor" is not Object's). */
function locate(raw: unknown, path: readonly PropertyKey[]): { present: boolean; value: unknown } {
  let cur: unknown = raw;
  for (const key of path) {
    if (cur === null || typeof cur !== 'object' || !Object.hasOwn(cur, key)) return { present: false, value: undefined };
    cur = (cur as Record<PropertyKey, unknown>)[key];
  }
  return { present: true, value: cur };
}

function article(type: string): string {
  if (type === 'object') return 'a mapping (key: value)';
  if (type === 'array') return 'a list';
  return /^[aeiou]/.test(type) ? `an ${type}` : `a ${type}`;
}

function truncate(s: string): string {
  return s.length > 80 ? `${s.slice(0, 77)}...` : s;
}
