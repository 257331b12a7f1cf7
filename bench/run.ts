// `npm run bench`: every figure is a ratio against a baseline measured in the same run.
//
// Each part runs in a fresh process of its own, one after the other: a part is measured as its
// command runs (`seat export` and `seat journal` start cold; the bot starts once), not in a heap
// the parts before it left behind (a 3,000-alias fleet, thousands of acks).
//   npm run bench               every part
//   npm run bench -- ack export  only those parts, in that order
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const PARTS: Record<string, () => Promise<{ lines: string[] }>> = {
  probe: async () => (await import('./probe.ts')).benchProbe(),
  'probe-cli': async () => (await import('./probe-cli.ts')).benchProbeCli(),
  'probe-scale': async () => (await import('./probe-scale.ts')).benchProbeScale(),
  'wire-vs-undici': async () => (await import('./wire-vs-undici.ts')).benchWireVsUndici(),
  inventory: async () => (await import('./inventory-load.ts')).benchInventoryLoad(),
  ack: async () => (await import('./ack.ts')).benchAck(),
  'ack-big': async () => (await import('./ack-big.ts')).benchAckBig(),
  'step-ack': async () => (await import('./step-ack.ts')).benchStepAck(),
  'step-burst': async () => (await import('./step-burst.ts')).benchStepBurst(),
  journal: async () => (await import('./journal.ts')).benchJournal(),
  'journal-pg': async () => (await import('./journal-pg.ts')).benchJournalPg(),
  'failover-pg': async () => (await import('./failover-pg.ts')).benchFailoverPg(),
  export: async () => (await import('./export.ts')).benchExport(),
  startup: async () => (await import('./startup.ts')).benchStartup(),
  alert: async () => (await import('./alert.ts')).benchAlert(),
  vantage: async () => (await import('./vantage.ts')).benchVantage(),
};

const part = process.env.SEAT_BENCH_PART;
if (part) {
  // The child: one part, its lines on stdout.
  const run = PARTS[part];
  if (!run) throw new Error(`no bench part ${part}`);
  for (const l of (await run()).lines) console.log(l);
} else {
  const asked = process.argv.slice(2);
  const unknown = asked.filter((p) => !(p in PARTS));
  if (unknown.length > 0) {
    console.error(`npm run bench: unknown part ${unknown.join(', ')} (parts: ${Object.keys(PARTS).join(', ')})`);
    process.exit(2);
  }
  let failed = 0;
  for (const name of asked.length > 0 ? asked : Object.keys(PARTS)) {
    // A part that hangs must not take the run with it: 20 minutes is many times the longest.
    const r = spawnSync(process.execPath, ['--import', 'tsx', fileURLToPath(import.meta.url)], {
      env: { ...process.env, SEAT_BENCH_PART: name },
      stdio: ['ignore', 'inherit', 'inherit'],
      timeout: 20 * 60_000,
    });
    if (r.status !== 0) {
      failed += 1;
      console.error(`bench ${name}: ${r.signal ? `stopped (${r.signal})` : `exited ${r.status}`}`);
    }
  }
  process.exit(failed > 0 ? 1 : 0);
}
