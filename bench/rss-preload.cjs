// Loaded with --require into the CLI under benchmark: reports at exit the peak resident set, the CPU
// time (user + system, start-up included), and when the first and the last HTTP request left
// (milliseconds since the process started, node's own start-up included).
const { subscribe } = require('node:diagnostics_channel');
const { performance } = require('node:perf_hooks');
let first = null;
let last = null;
let requests = 0;
const started = () => {
  const t = performance.now();
  first ??= t;
  last = t;
  requests += 1;
};
// seatbelt's own client (src/probes/edge/wire.ts), and node:http where something still uses it.
subscribe('seatbelt.http.request.start', started);
subscribe('http.client.request.start', started);
process.on('exit', () => {
  const cpu = process.cpuUsage();
  const lines = [`SEAT_MAX_RSS_KB=${process.resourceUsage().maxRSS}`, `SEAT_CPU_US=${cpu.user + cpu.system}`, `SEAT_EXIT_MS=${performance.now().toFixed(1)}`];
  if (first !== null) lines.push(`SEAT_FIRST_REQUEST_MS=${first.toFixed(1)}`, `SEAT_LAST_REQUEST_MS=${last.toFixed(1)}`, `SEAT_REQUESTS=${requests}`);
  process.stderr.write(`${lines.join('\n')}\n`);
});
