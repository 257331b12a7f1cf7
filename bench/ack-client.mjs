// The load side of the ack benchmarks, in its own process (as Slack is): signed POSTs, one at a
// time on one kept-alive connection, each timed from send to the end of the HTTP answer (signing
// is off the clock).
// Two ways to run it:
//   SEAT_ACK_BENCH='{"url",…}' node ack-client.mjs   one series, sorted latencies printed as JSON (step-ack.ts)
//   fork('ack-client.mjs')                            a client kept for many series: each message
//     { url, secret, bodies, warmup } is answered with { ms, said } (ack.ts: the same clients for Bolt and bare)
import { createHmac } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { Agent, request } from 'node:http';

// One kept-alive connection, as Slack's own client keeps one: no connect on the clock, and a
// client light enough that four of them leave the CPU to the server being measured.
const agent = new Agent({ keepAlive: true, maxSockets: 1 });

/** One POST; resolves with its status and the answer's length once the whole answer is read. */
function post(url, headers, body) {
  return new Promise((resolve, reject) => {
    const req = request(url, { method: 'POST', agent, headers: { ...headers, 'content-length': Buffer.byteLength(body) } }, (res) => {
      let bytes = 0;
      res.on('data', (chunk) => (bytes += chunk.length));
      res.on('end', () => resolve({ status: res.statusCode, bytes }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(body);
  });
}

/**
 * Sends `warmup + n` requests back to back (or `gapMs` apart): the sorted latencies after the
 * warm-up, and how many answers (warm-up included) said something.
 */
async function series({ url, secret, body, bodies, n, warmup = 0, gapMs = 0 }) {
  const out = [];
  let said = 0;
  const count = bodies ? bodies.length : warmup + n;
  for (let i = 0; i < count; i++) {
    // A trigger_id of its own per request: the bot runs one trigger_id once (a replay is acked and ignored).
    // Or a body each (button clicks: one step of its own per click; probes of their own), trigger ids already unique.
    const b = bodies ? bodies[i] : body.replace(/trigger_id=[^&]*/, `trigger_id=bench.${process.pid}.${i}`);
    const ts = Math.floor(Date.now() / 1000);
    const sig = `v0=${createHmac('sha256', secret).update(`v0:${ts}:${b}`).digest('hex')}`;
    const t0 = performance.now();
    const { status, bytes } = await post(url, { 'content-type': 'application/x-www-form-urlencoded', 'x-slack-request-timestamp': String(ts), 'x-slack-signature': sig }, b);
    const ms = performance.now() - t0;
    if (status !== 200) throw new Error(`HTTP ${status} from ${url}`);
    if (bytes > 0) said += 1;
    if (i >= warmup) out.push(ms);
    if (gapMs) await new Promise((r) => setTimeout(r, gapMs));
  }
  return { ms: out.sort((a, b) => a - b), said };
}

if (process.env.SEAT_ACK_BENCH) {
  const o = JSON.parse(process.env.SEAT_ACK_BENCH);
  const bodies = o.bodiesFile ? JSON.parse(readFileSync(o.bodiesFile, 'utf8')) : undefined;
  process.stdout.write(JSON.stringify((await series({ ...o, bodies })).ms));
} else if (process.send) {
  process.on('message', (job) => {
    series(job).then(
      (r) => process.send(r),
      (err) => process.send({ error: err instanceof Error ? err.message : String(err) }),
    );
  });
  // The parent gone, or done with this client: nothing keeps it.
  process.on('disconnect', () => process.exit(0));
} else {
  process.stderr.write('ack-client.mjs: set SEAT_ACK_BENCH, or fork it with an IPC channel\n');
  process.exit(2);
}
