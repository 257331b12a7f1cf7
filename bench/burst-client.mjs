// The load side of the step-burst benchmark, in its own process (as Slack is): every body signed
// first (off the clock), then all sent at once, each on a connection of its own, each timed from
// send to the end of its HTTP answer. SEAT_BURST='{"url","secret","bodiesFile"}'; prints the
// sorted latencies as JSON.
import { createHmac } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { Agent, request } from 'node:http';

const o = JSON.parse(process.env.SEAT_BURST ?? '{}');
const bodies = JSON.parse(readFileSync(o.bodiesFile, 'utf8'));
const agent = new Agent({ keepAlive: false, maxSockets: bodies.length });
const ts = Math.floor(Date.now() / 1000);
const signed = bodies.map((b) => ({ b, sig: `v0=${createHmac('sha256', o.secret).update(`v0:${ts}:${b}`).digest('hex')}` }));

function post({ b, sig }) {
  return new Promise((resolve, reject) => {
    const t0 = performance.now();
    const headers = { 'content-type': 'application/x-www-form-urlencoded', 'x-slack-request-timestamp': String(ts), 'x-slack-signature': sig, 'content-length': Buffer.byteLength(b) };
    const req = request(o.url, { method: 'POST', agent, headers }, (res) => {
      res.resume();
      res.on('end', () => (res.statusCode === 200 ? resolve(performance.now() - t0) : reject(new Error(`HTTP ${res.statusCode} from ${o.url}`))));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(b);
  });
}

const ms = await Promise.all(signed.map(post));
process.stdout.write(JSON.stringify(ms.sort((a, b) => a - b)));
