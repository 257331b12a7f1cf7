// The floor for a node client making the probe's requests: bare node:http with one keep-alive pool
// of the same size, the same POSTs (the listing first, then one chat request per alias), the
// answer read whole and parsed, nothing else. Run as its own process by probe-scale.ts; prints one
// line: `FLOOR wallMs cpuMs requests ok lastSentMs` (ok: answered 2xx; lastSentMs: when the last request left).
import { readFileSync } from 'node:fs';
import http from 'node:http';

const [gateway, aliasFile, parallel] = process.argv.slice(2);
const aliases = JSON.parse(readFileSync(aliasFile, 'utf8'));
const key = process.env.SEAT_BENCH_KEY;
const url = new URL(gateway);
const agent = new http.Agent({ keepAlive: true, maxSockets: Number(parallel) });

let ok = 0;
let lastSent = 0;

function ask(method, path, body) {
  return new Promise((resolve) => {
    const headers = { authorization: `Bearer ${key}`, ...(body ? { 'content-type': 'application/json' } : {}) };
    const req = http.request({ hostname: url.hostname, port: url.port, path, method, agent, headers }, (res) => {
      const chunks = [];
      res.on('data', (c) => chunks.push(c));
      res.on('end', () => {
        if (res.statusCode >= 200 && res.statusCode < 300) ok += 1;
        try {
          JSON.parse(Buffer.concat(chunks).toString('utf8'));
        } catch {
          // an error body: counted all the same
        }
        resolve();
      });
      res.on('error', () => resolve());
    });
    req.on('error', () => resolve());
    req.end(body);
  });
}

const t0 = performance.now();
const c0 = process.cpuUsage();
await ask('GET', '/v1/models');
let next = 0;
await Promise.all(
  Array.from({ length: Number(parallel) }, async () => {
    while (next < aliases.length) {
      const model = aliases[next++];
      lastSent = performance.now() - t0;
      await ask('POST', '/v1/chat/completions', JSON.stringify({ model, messages: [{ role: 'user', content: 'ping' }], max_tokens: 1 }));
    }
  }),
);
const cpu = process.cpuUsage(c0);
process.stdout.write(`FLOOR ${(performance.now() - t0).toFixed(1)} ${((cpu.user + cpu.system) / 1000).toFixed(1)} ${aliases.length + 1} ${ok} ${lastSent.toFixed(1)}\n`);
agent.destroy();
