import { readFile } from 'node:fs/promises';
import { parseDocument } from 'yaml';
import type { z } from 'zod';
import { InventorySchema, type Inventory } from './schema.ts';

export type LoadResult = { ok: true; value: Inventory; warnings: string[] } | { ok: false; errors: string[] };

/** Reads and validates an inventory file. Never throws: every problem becomes one line naming its YAML path. */
export async function loadInventory(path: string, read = (p: string) => readFile(p, 'utf8')): Promise<LoadResult> {
  let text: string;
  try {
    text = await read(path);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    return { ok: false, errors: [`${path}: cannot read the inventory (${code ?? String(err)})`] };
  }
  return parseInventory(text, path);
}

export function parseInventory(text: string, source = 'inventory'): LoadResult {
  const doc = parseDocument(text, { prettyErrors: true, uniqueKeys: true });
  if (doc.errors.length > 0) {
    return {
      ok: false,
      errors: doc.errors.map((e) => `${source}: YAML error at line ${e.linePos?.[0]?.line ?? '?'}: ${e.message.split('\n')[0]?.replace(/ at line \d+, column \d+:?$/, '')}`),
    };
  }
  const raw: unknown = doc.toJS();
  const parsed = InventorySchema.safeParse(raw ?? {});
  if (!parsed.success) return { ok: false, errors: parsed.error.issues.map((i) => formatIssue(i, raw)) };
  const refErrors = crossReferences(parsed.data);
  if (refErrors.length > 0) return { ok: false, errors: refErrors };
  return { ok: true, value: parsed.data, warnings: warnings(parsed.data) };
}

function formatIssue(issue: z.core.$ZodIssue, raw: unknown): string {
  const path = issue.path.map(String).join('.') || '(top level)';
  if (issue.code === 'unrecognized_keys') {
    return `${path === '(top level)' ? '' : path + ': '}unknown key${issue.keys.length > 1 ? 's' : ''} ${issue.keys.map((k) => JSON.stringify(k)).join(', ')}`;
  }
  const value = valueAt(raw, issue.path);
  const got = value === undefined ? 'nothing' : JSON.stringify(value);
  // Our own messages already say "got ..." where it helps; otherwise append the offending value.
  return issue.message.includes('got ') ? `${path}: ${issue.message}` : `${path}: ${issue.message}, got ${truncate(got)}`;
}

function valueAt(raw: unknown, path: PropertyKey[]): unknown {
  let cur: unknown = raw;
  for (const key of path) {
    if (cur === null || typeof cur !== 'object') return undefined;
    cur = (cur as Record<PropertyKey, unknown>)[key];
  }
  return cur;
}

function truncate(s: string): string {
  return s.length > 80 ? `${s.slice(0, 77)}...` : s;
}

function crossReferences(inv: Inventory): string[] {
  const errors: string[] = [];
  const hosts = new Map<string, { site: string; gpus: Set<number> }>();
  for (const [siteName, site] of Object.entries(inv.sites)) {
    for (const [hostName, host] of Object.entries(site.hosts)) {
      if (hosts.has(hostName)) errors.push(`sites.${siteName}.hosts.${hostName}: host name already used at site ${hosts.get(hostName)?.site}`);
      hosts.set(hostName, { site: siteName, gpus: new Set(host.gpus.map((g) => g.index)) });
    }
  }
  for (const [seatName, seat] of Object.entries(inv.seats)) {
    const host = hosts.get(seat.host);
    if (!host) {
      errors.push(`seats.${seatName}.host: no host ${JSON.stringify(seat.host)} in any site (known: ${[...hosts.keys()].join(', ')})`);
      continue;
    }
    seat.gpus.forEach((g, i) => {
      if (!host.gpus.has(g)) errors.push(`seats.${seatName}.gpus.${i}: host ${seat.host} has no GPU ${g}`);
    });
    if (seat.gpuMemoryUtilization === undefined && seat.kvCacheMemoryBytes === undefined && seat.engine === 'vllm') {
      errors.push(`seats.${seatName}: declare gpuMemoryUtilization or kvCacheMemoryBytes (the budget the margin is judged against)`);
    }
  }
  for (const [aliasName, alias] of Object.entries(inv.aliases)) {
    alias.seats.forEach((s, i) => {
      if (!inv.seats[s]) errors.push(`aliases.${aliasName}.seats.${i}: no seat ${JSON.stringify(s)} (known: ${Object.keys(inv.seats).join(', ') || 'none'})`);
    });
  }
  return errors;
}

function warnings(inv: Inventory): string[] {
  const out: string[] = [];
  for (const [seatName, seat] of Object.entries(inv.seats)) {
    if (seat.gpuMemoryUtilization !== undefined && seat.kvCacheMemoryBytes !== undefined) {
      out.push(`seats.${seatName}: kvCacheMemoryBytes makes vLLM skip profiling and ignore gpuMemoryUtilization; the bytes are used as the budget`);
    }
  }
  return out;
}
