// The floor for seatbelt's own HTTP client: src/probes/edge/wire.ts alone, one pool of the same size,
// the same POSTs as bench/http-floor.mjs (the listing first, then one chat request per alias), each
// answer read whole and parsed, and nothing else: no probe, no runner, no findings. Run as its own
// process by probe-scale.ts (its module loading not counted); prints `WIRE wallMs cpuMs requests ok lastSentMs`
// (ok: answered 2xx; lastSentMs: when the last request was handed to the client).
// Each request has a signal of its own, as each of seat's tasks does.
import { readFileSync } from 'node:fs';
import { WirePool, type WireTarget } from '../src/probes/edge/wire.ts';

const [gateway, aliasFile, parallel] = process.argv.slice(2) as [string, string, string];
const aliases = JSON.parse(readFileSync(aliasFile, 'utf8')) as string[];
const key = process.env.SEAT_BENCH_KEY ?? '';
const url = new URL(gateway);
const pool = new WirePool(Number(parallel));
const target = (path: string): WireTarget => ({ https: false, origin: url.origin, hostname: url.hostname, port: Number(url.port), host: url.host, path });
const models = target('/v1/models');
const chat = target('/v1/chat/completions');

let ok = 0;
let lastSent = 0;

async function ask(t: WireTarget, body?: string): Promise<void> {
  try {
    const headers: Record<string, string> = { authorization: `Bearer ${key}` };
    if (body !== undefined) headers['content-type'] = 'application/json';
    const answer = await pool.request(t, { method: body === undefined ? 'GET' : 'POST', headers, ...(body === undefined ? {} : { body }), signal: new AbortController().signal });
    const read = await answer.readAll(1 << 20);
    if (answer.status >= 200 && answer.status < 300 && !read.broke && !read.over) ok += 1;
    try {
      JSON.parse(Buffer.from(read.bytes).toString('utf8'));
    } catch {
      // an error body: counted all the same
    }
  } catch {
    // a failed request: counted all the same
  }
}

const t0 = performance.now();
const c0 = process.cpuUsage();
await ask(models);
let next = 0;
await Promise.all(
  Array.from({ length: Number(parallel) }, async () => {
    while (next < aliases.length) {
      const model = aliases[next++];
      lastSent = performance.now() - t0;
      await ask(chat, JSON.stringify({ model, messages: [{ role: 'user', content: 'ping' }], max_tokens: 1 }));
    }
  }),
);
const cpu = process.cpuUsage(c0);
process.stdout.write(`WIRE ${(performance.now() - t0).toFixed(1)} ${((cpu.user + cpu.system) / 1000).toFixed(1)} ${aliases.length + 1} ${ok} ${lastSent.toFixed(1)}\n`);
pool.close();
