// wire.ts or undici's Pool under the whole probe: runProbe() in-process (aliases, GPUs over the ssh
// stand-in, upsd, BMC, firewall; findings and diagnosis) on the loopback bench fleet of 30 and of 3,000
// aliases, every alias answering in 20 ms (none hanging: a timeout would put the same seconds on both
// clocks), concurrency 128. The same run, alternately: our HTTP/1.1 client (src/probes/edge/wire.ts,
// the probe's own pool), and undici 7's Pool (one per origin, connections = the concurrency) behind
// the same HttpTransport shape, so httpRequest's caps, timeouts and redaction are on both.
// On the clock: from runProbe's call to its report; modules warm, both pools made before the clock;
// the gateway stand-in runs in this process (its CPU is on both clocks alike). Not on it: start-up.
import { Pool } from 'undici';
import { Fleet } from '../src/inventory/fleet.ts';
import { parseInventory } from '../src/inventory/load.ts';
import { runProbe, type ProbeRequest } from '../src/commands/probe.ts';
import { createHttpPool } from '../src/probes/edge/transport.ts';
import type { HttpAnswer, HttpTransport } from '../src/probes/edge/http-types.ts';
import type { AliasBehaviour } from '../drills/litellm.ts';
import { DRILL_BIN } from '../drills/drill.ts';
import { median, spread, startBenchFleet } from './probe-fleet.ts';

const RUNS = 5;
const SIZES = [30, 3000];
const CONCURRENCY = 128;

/** undici's Pool as an HttpTransport: one Pool per origin. */
function undiciTransport(connections: number): { transport: HttpTransport; close(): Promise<void> } {
  const pools = new Map<string, Pool>();
  const transport: HttpTransport = async (url, call) => {
    const u = new URL(url);
    let pool = pools.get(u.origin);
    if (!pool) pools.set(u.origin, (pool = new Pool(u.origin, { connections })));
    const res = await pool.request({ path: `${u.pathname}${u.search}`, method: call.method, headers: call.headers, body: call.body, signal: call.signal });
    const it = res.body[Symbol.asyncIterator]() as AsyncIterator<Buffer>;
    const answer: HttpAnswer = {
      status: res.statusCode,
      header(name) {
        const v = res.headers[name];
        return v === undefined ? null : Array.isArray(v) ? v.join(', ') : v;
      },
      async read() {
        const r = await it.next();
        return r.done ? null : new Uint8Array(r.value);
      },
      cancel() {
        res.body.destroy();
      },
    };
    return answer;
  };
  return { transport, close: async () => { await Promise.all([...pools.values()].map((p) => p.close())); } };
}

export async function benchWireVsUndici(): Promise<{ lines: string[]; ratios: number[] }> {
  const lines = [
    `wire-vs-undici: runProbe() in-process, whole probe (aliases, 4 GPUs, upsd, BMC, firewall), every alias answering in 20 ms, concurrency ${CONCURRENCY}; wire.ts vs undici Pool behind the same transport shape, alternately in the same run; min / median / max over ${RUNS} runs`,
    'wire-vs-undici:   on the clock: runProbe() call to report (modules warm, pools made, the gateway stand-in in this process); not on it: start-up and module loading',
  ];
  const ratios: number[] = [];
  for (const n of SIZES) {
    const aliases: [string, AliasBehaviour][] = [];
    for (let i = 0; i < n; i++) aliases.push([`a${String(i).padStart(5, '0')}`, { mode: 'slow', delayMs: 20 }]);
    const bench = await startBenchFleet({ aliases, timeoutMs: 3000, concurrency: CONCURRENCY });
    try {
      const parsed = parseInventory(bench.yaml);
      if (!parsed.ok) throw new Error(parsed.errors.join('\n'));
      const fleet = new Fleet(parsed.value);
      const req: ProbeRequest = { site: 'fv', only: ['aliases', 'gpus', 'power'], timeoutMs: null, paid: false };
      const wire = createHttpPool({ maxSockets: CONCURRENCY });
      const undici = undiciTransport(CONCURRENCY);
      const deps = (http: HttpTransport) => ({ env: bench.env, pathPrefix: [DRILL_BIN], http });
      const wireMs: number[] = [];
      const undiciMs: number[] = [];
      let notUp = 0;
      const time = async (http: HttpTransport, into: number[]): Promise<void> => {
        const t0 = performance.now();
        const report = await runProbe(fleet, req, deps(http));
        into.push(performance.now() - t0);
        notUp += report.findings.filter((f) => f.probe === 'alias' && f.status !== 'up').length;
      };
      try {
        await time(wire.transport, []); // warm-up, not counted: modules, first connections
        await time(undici.transport, []);
        for (let r = 0; r < RUNS; r++) {
          await time(wire.transport, wireMs);
          await time(undici.transport, undiciMs);
        }
      } finally {
        wire.close();
        await undici.close();
      }
      const ratio = median(undiciMs) / median(wireMs);
      ratios.push(ratio);
      lines.push(
        `wire-vs-undici: ${String(n).padStart(5)} aliases  wire.ts ${spread(wireMs, 0, ' ms').padStart(22)}  undici Pool ${spread(undiciMs, 0, ' ms').padStart(22)}  → undici is ${ratio.toFixed(3)}x wire.ts (${ratio <= 1.03 ? 'within' : 'not within'} 3%); aliases not up over all runs: ${notUp}`,
      );
    } finally {
      await bench.stop();
    }
  }
  return { lines, ratios };
}
