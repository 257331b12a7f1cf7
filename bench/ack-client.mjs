// The load side of the ack benchmark, in its own process (as Slack is): signed POSTs, one at a
// time, each timed from send to the end of the HTTP answer. Prints the sorted latencies as JSON.
import { createHmac } from 'node:crypto';
import { readFileSync } from 'node:fs';

const { url, secret, body, bodiesFile, n, warmup, gapMs } = JSON.parse(process.env.SEAT_ACK_BENCH ?? '{}');
const bodies = bodiesFile ? JSON.parse(readFileSync(bodiesFile, 'utf8')) : null;
const out = [];
for (let i = 0; i < warmup + n; i++) {
  // A trigger_id of its own per request: the bot runs one trigger_id once (a replay is acked and ignored).
  // Or a body each (button clicks: one step of its own per click), trigger ids already unique.
  const b = bodies ? bodies[i] : body.replace(/trigger_id=[^&]*/, `trigger_id=bench.${process.pid}.${i}`);
  const ts = Math.floor(Date.now() / 1000);
  const sig = `v0=${createHmac('sha256', secret).update(`v0:${ts}:${b}`).digest('hex')}`;
  const t0 = performance.now();
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', 'x-slack-request-timestamp': String(ts), 'x-slack-signature': sig },
    body: b,
  });
  await res.text();
  const ms = performance.now() - t0;
  if (res.status !== 200) throw new Error(`HTTP ${res.status}`);
  if (i >= warmup) out.push(ms);
  if (gapMs) await new Promise((r) => setTimeout(r, gapMs));
}
process.stdout.write(JSON.stringify(out.sort((a, b) => a - b)));
