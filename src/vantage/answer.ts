// The answering side of "ask the other replicas": every request another replica puts in the journal
// (journal/asks.ts) is probed from here, through this replica's own probe queue, and its findings go
// back as they come — `taken` at once (the asker stops waiting for a replica that never says it), the
// findings in parts every STREAM_MS (the asker's progress), then the report's own findings (`result`,
// what the asker merges) and `done` with what the run was. A request from this replica's
// own vantage is left to the asker: it measures from there itself.
import type { ProbeReport, ProbeRequest } from '../commands/probe.ts';
import type { Fleet } from '../inventory/fleet.ts';
import type { AnswerKind, AskRow, AskTransport } from '../journal/asks.ts';
import type { RunEvent } from '../probes/runner.ts';
import type { Finding } from '../probes/types.ts';
import { findingBodies, parseAsk, type AnswerDone } from './wire.ts';

/** Other replicas' requests answered at once; past it, one is told this replica is busy. */
export const MAX_ANSWERING = 2;

/** How often findings found meanwhile go back to the asker. */
export const STREAM_MS = 200;

export interface AnswerDeps {
  asks: AskTransport;
  self: { replica: string; vantage: string };
  fleet: Fleet;
  /** Runs one probe from here (the bot: through its queue, its probe process). */
  probe: (req: ProbeRequest, onEvent: (e: RunEvent) => void) => Promise<ProbeReport>;
  now: () => Date;
  log?: (line: string) => void;
  /** Told of each request answered (tests, the log). */
  answered?: (ask: number, outcome: 'done' | 'failed') => void;
}

export interface Answering {
  /** Stops taking requests and waits for the answers under way. */
  stop(): Promise<void>;
}

export function answerAsks(d: AnswerDeps): Answering {
  const running = new Set<Promise<void>>();
  let stopped = false;
  // Other replicas' requests never crowd out this replica's own people: past MAX_ANSWERING probes at
  // once, the asker is told at once (and names this vantage as failed, with the reason).
  let probing = 0;
  const slots = { take: (): boolean => (probing < MAX_ANSWERING ? (probing += 1) > 0 : false), give: (): void => void (probing -= 1), busy: (): number => probing };
  const unwatch = d.asks.onAsks((row) => {
    if (stopped || row.replica === d.self.replica || row.vantage === d.self.vantage) return;
    // Whatever a request's row makes throw is that request's: never an unhandled rejection (the
    // process's end, in `seat vantage`), never a stop() that rejects.
    const p = answerOne(d, row, slots)
      .catch((err: unknown) => {
        d.log?.(`probe request ${String(row.id)}: could not be answered (${err instanceof Error ? (err.message.split('\n')[0] ?? '') : String(err)})`);
        d.answered?.(row.id, 'failed');
      })
      .finally(() => running.delete(p));
    running.add(p);
  });
  return {
    stop: async () => {
      stopped = true;
      unwatch();
      await Promise.all([...running]);
    },
  };
}

async function answerOne(d: AnswerDeps, row: AskRow, slots: { take(): boolean; give(): void; busy(): number }): Promise<void> {
  const who = { ask: row.id, replica: d.self.replica, vantage: d.self.vantage };
  // One answer's rows in order, one at a time: the asker reads each replica's parts as they were sent.
  let chain: Promise<void> = Promise.resolve();
  let broken = false;
  const put = (kind: AnswerKind, body: string): Promise<void> => {
    chain = chain.then(async () => {
      if (broken) return;
      try {
        await d.asks.answer({ ...who, kind, body, at: d.now().toISOString() });
      } catch (err) {
        broken = true;
        d.log?.(`probe request ${row.id} from ${row.replica}: the journal did not take the answer (${err instanceof Error ? (err.message.split('\n')[0] ?? '') : String(err)})`);
      }
    });
    return chain;
  };
  const parsed = parseAsk(row, d.fleet.siteNames);
  if (!parsed.ok) {
    await put('failed', JSON.stringify({ why: parsed.why }));
    d.answered?.(row.id, 'failed');
    return;
  }
  if (!slots.take()) {
    await put('failed', JSON.stringify({ why: `this replica is probing for ${slots.busy()} other requests already` }));
    d.answered?.(row.id, 'failed');
    return;
  }
  try {
    await probeAndAnswer(d, parsed.value.req, put);
  } finally {
    slots.give();
  }
  d.answered?.(row.id, 'done');
}

/** The probe asked, its findings streamed for the asker's progress, then its result and its end. */
async function probeAndAnswer(d: AnswerDeps, req: ProbeRequest, put: (kind: AnswerKind, body: string) => Promise<void>): Promise<void> {
  // Not waited for: the probe starts now, and the rows still go in order.
  void put('taken', '{}');
  let pending: Finding[] = [];
  let progress = { done: 0, total: 0 };
  const flush = (): void => {
    const out = pending;
    pending = [];
    if (out.length === 0) return;
    for (const body of findingBodies(out, progress)) void put('findings', body);
  };
  const timer = setInterval(flush, STREAM_MS);
  timer.unref();
  let report: ProbeReport;
  try {
    report = await d.probe(req, (e) => {
      if (e.type === 'start') {
        progress = { done: 0, total: e.total };
        return;
      }
      progress = { done: e.done, total: e.total };
      pending.push(...e.findings);
    });
  } catch (err) {
    clearInterval(timer);
    flush();
    await put('failed', JSON.stringify({ why: `the probe could not finish (${err instanceof Error ? (err.message.split('\n')[0] ?? '') : String(err)})` }));
    throw err;
  }
  clearInterval(timer);
  pending = [];
  // The streamed rows were for the asker's progress; the report's own findings are what count (GPU
  // rows judged beside the seats, in report order): they go whole, then the end.
  for (const body of findingBodies(report.findings, { done: progress.total, total: progress.total })) void put('result', body);
  const done: AnswerDone = { schemaVersion: report.schemaVersion, site: report.site, fleet: report.fleet, drill: report.drill, sites: report.sites, startedAt: report.startedAt, finishedAt: report.finishedAt, durationMs: report.durationMs };
  await put('done', JSON.stringify(done));
}
