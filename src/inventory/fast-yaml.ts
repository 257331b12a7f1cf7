// The fast road for an inventory that is well formed: js-yaml reads a 2 MB file in about a third
// of a second, where `yaml` (whose documents keep every node and position) takes seconds. The fast
// road only ever says yes: anything it is not sure of — an error, an anchor shared between two
// places, a `__proto__` key, a binary number (`0b11`: a number to js-yaml, text to yaml 1.2), more than one
// document, a top that is not a mapping — goes down the precise road (`./yaml.ts`), which names
// the line and the column. So a good file is quick, and a bad one is told exactly what is wrong.
//
// A file of WORKER_FROM_BYTES or more is read in a worker thread, so the event loop (Ctrl-C,
// SIGTERM) keeps turning while it parses. Below that the main thread is faster (a fresh worker's
// js-yaml runs cold and its answer must be copied back): 2 MB loads in ~0.8 s cold either way,
// and in-thread the longest pause of the event loop is ~0.45 s.
import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';
import jsYaml from 'js-yaml';
import { CONTROL } from './yaml.ts';

export const WORKER_FROM_BYTES = 2 * 1024 * 1024;

/** What js-yaml's core schema and yaml's 1.2 core read differently, or may: take the precise road. */
const UNSURE = /(?:^|[\s:[{,-])0b[01_]+(?:$|[\s,\]}])/m;

function unsure(text: string): boolean {
  return UNSURE.test(text) || CONTROL.test(text);
}

/** The value when the fast road is sure of it; null sends the caller down the precise road. */
export function fastYaml(text: string): Record<string, unknown> | null {
  if (unsure(text)) return null;
  let value: unknown;
  try {
    value = jsYaml.load(text, { schema: jsYaml.CORE_SCHEMA });
  } catch {
    return null;
  }
  return accept(value);
}

/** The same, read in a worker thread for a big file. Never rejects: any trouble is null. */
export async function fastYamlAside(text: string): Promise<Record<string, unknown> | null> {
  if (text.length < WORKER_FROM_BYTES) return fastYaml(text);
  if (unsure(text)) return null;
  const jsYamlPath = createRequire(import.meta.url).resolve('js-yaml');
  return new Promise((resolve) => {
    let worker: Worker;
    try {
      worker = new Worker(workerSource(), { eval: true, workerData: { text, jsYamlPath }, env: {}, stdout: true, stderr: true });
    } catch {
      resolve(null);
      return;
    }
    // JSON, not the structured clone of ~50,000 objects: a third of the time. accept() ran in the worker.
    worker.once('message', (json: string | null) => {
      try {
        resolve(json === null ? null : (JSON.parse(json) as Record<string, unknown>));
      } catch {
        resolve(null);
      }
      void worker.terminate();
    });
    worker.once('error', () => resolve(null));
    worker.once('exit', () => resolve(null));
  });
}

/**
 * The worker's script: CommonJS (an eval worker runs a script), js-yaml required by its resolved
 * path, and accept() itself as its source text, so one function judges in both threads. (A
 * worker from a .ts file would not get the tests' tsx loader on Node 20.)
 */
function workerSource(): string {
  return `
const { parentPort, workerData } = require('node:worker_threads');
const jsYaml = require(workerData.jsYamlPath);
${accept.toString()}
let value = null;
try {
  value = accept(jsYaml.load(workerData.text, { schema: jsYaml.CORE_SCHEMA }));
} catch {
  value = null;
}
parentPort.postMessage(value === null ? null : JSON.stringify(value));
`;
}

/**
 * A plain mapping at the top, no object reached twice (an alias, which the precise road counts
 * against an alias bomb) and no `__proto__` key anywhere. One pass, linear.
 */
function accept(value: unknown): Record<string, unknown> | null {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return null;
  const seen = new Set<object>();
  const stack: object[] = [value];
  while (stack.length > 0) {
    const node = stack.pop()!;
    if (seen.has(node)) return null;
    seen.add(node);
    if (Array.isArray(node)) {
      for (const item of node) if (item !== null && typeof item === 'object') stack.push(item as object);
      continue;
    }
    if (Object.getPrototypeOf(node) !== Object.prototype) return null;
    for (const key of Object.keys(node)) {
      if (key === '__proto__') return null;
      const item = (node as Record<string, unknown>)[key];
      if (item !== null && typeof item === 'object') stack.push(item);
    }
  }
  return value as Record<string, unknown>;
}
