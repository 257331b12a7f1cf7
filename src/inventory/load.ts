// Reads and validates an inventory (YAML by the fast road when it is sure, else the precise one). Never throws: every problem becomes one line naming its YAML
// path (or its line and column), and no value that may be a secret is shown back.
import { setImmediate as pause } from 'node:timers/promises';
import { formatIssue } from './issues.ts';
import { readInventoryText, type ReadOptions } from './read.ts';
import { crossReferences, warnings } from './references.ts';
import { InventorySchema, type Inventory } from './schema.ts';
import { fastYaml, fastYamlAside } from './fast-yaml.ts';
import { readYaml, type YamlResult } from './yaml.ts';

export type LoadResult = { ok: true; value: Inventory; warnings: string[] } | { ok: false; errors: string[] };

/** `path` is shown as the person gave it. Parsing gives the event loop a turn every few thousand tokens. */
export async function loadInventory(path: string, options: ReadOptions = {}): Promise<LoadResult> {
  const read = await readInventoryText(path, options);
  if (!read.ok) return { ok: false, errors: [read.error] };
  const fast = await fastYamlAside(read.text);
  const steps = validate(read.text, path, fast);
  for (let step = steps.next(); ; step = steps.next()) {
    if (step.done) return step.value;
    await pause();
  }
}

/** The same checks on text in hand, all at once (tests, the drill). */
export function parseInventory(text: string, source = 'inventory'): LoadResult {
  const steps = validate(text, source, fastYaml(text));
  for (let step = steps.next(); ; step = steps.next()) if (step.done) return step.value;
}

/** Every stage of loading, pausing (yield) between the costly ones. `fast` is the fast road's value, if it was sure. */
function* validate(text: string, source: string, fast: Record<string, unknown> | null): Generator<void, LoadResult> {
  const yaml: YamlResult = fast ? { ok: true, value: fast } : yield* readYaml(text, source);
  if (!yaml.ok) return yaml;
  yield;
  const parsed = InventorySchema.safeParse(yaml.value);
  if (!parsed.success) return { ok: false, errors: parsed.error.issues.map((i) => formatIssue(i, yaml.value)) };
  yield;
  const refErrors = crossReferences(parsed.data);
  if (refErrors.length > 0) return { ok: false, errors: refErrors };
  return { ok: true, value: parsed.data, warnings: warnings(parsed.data) };
}
