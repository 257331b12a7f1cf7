// The asking side: a probe on one replica asks every other live replica (heartbeat seen within
// HEARTBEAT_STALE_S, at another vantage) to probe the same targets, through the journal
// (journal/asks.ts), runs its own probe meanwhile, streams what the others find into the same
// progress, and merges their reports into its own (merge.ts). Each vantage costs at most its
// timeout: one that has not said `taken` within the probe's timeout is named and not waited for;
// one that took it gets the run's own deadline. With no other vantage alive, the probe is the
// local one, untouched.
import { performance } from 'node:perf_hooks';
import type { ProbeDeps, ProbeReport, ProbeRequest } from '../commands/probe.ts';
import type { Fleet } from '../inventory/fleet.ts';
import type { AnswerRow, AskTransport } from '../journal/asks.ts';
import { HEARTBEAT_STALE_S } from '../journal/heartbeat.ts';
import type { ReplicaSeen } from '../journal/store.ts';
import type { RunEvent, TaskInfo } from '../probes/runner.ts';
import type { Finding, ProbeGroup, ProbeName } from '../probes/types.ts';
import { isVantageName } from '../probes/vantage.ts';
import { mergeAnswers, type VantageAnswer } from './merge.ts';
import type { AskedVantage } from './types.ts';

export type { AskedVantage } from './types.ts';
import { answerKind, clean, MAX_ANSWER_TOTAL_BYTES, parseDone, parseFailed, parseFindings, requestText } from './wire.ts';

/** How long the local probe waits for the request to be in the journal before it starts anyway. */
export const SEND_FIRST_MS = 50;

/** How long the live replicas are looked up before the probe goes on from this vantage alone. */
export const LOOKUP_MS = 1000;

/** `p`, or a rejection once `ms` have passed. */
function within<T>(p: Promise<T>, ms: number, setTimer?: (fn: () => void, ms: number) => () => void): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const fire = (): void => reject(new Error(`the journal did not answer within ${ms} ms`));
    const cancel = setTimer ? setTimer(fire, ms) : ((t) => () => clearTimeout(t))(setTimeout(fire, ms).unref());
    p.then(
      (v) => {
        cancel();
        resolve(v);
      },
      (err: unknown) => {
        cancel();
        reject(err instanceof Error ? err : new Error(String(err)));
      },
    );
  });
}

/** What a replica's answer may take on top of the run itself: the rows' way through the database. */
export const ASK_GRACE_MS = 1000;

type RunProbe = (fleet: Fleet, req: ProbeRequest, deps?: ProbeDeps) => Promise<ProbeReport>;

export interface AskDeps {
  asks: AskTransport;
  self: { replica: string; vantage: string };
  /** The replicas the journal has seen (their heartbeats). */
  replicas: () => Promise<ReplicaSeen[]>;
  /** Wall clock: heartbeats' age, the rows' times. */
  now: () => Date;
  /** Milliseconds, for the waits (tests drive it with the timer). */
  monotonic?: () => number;
  setTimer?: (fn: () => void, ms: number) => () => void;
  log?: (line: string) => void;
}

/** The other live replicas, by vantage (not this one's own: the local probe measures from there). */
export function otherVantages(seen: readonly ReplicaSeen[], self: { replica: string; vantage: string }, now: Date): Map<string, ReplicaSeen[]> {
  const out = new Map<string, ReplicaSeen[]>();
  for (const r of seen) {
    if (r.replica === self.replica || r.site === self.vantage || !isVantageName(r.site)) continue;
    // A heartbeat dated ahead of this clock by more than a minute is not "fresh for ever": it is left out.
    const age = now.getTime() - Date.parse(r.lastSeen);
    if (!(age <= HEARTBEAT_STALE_S * 1000 && age >= -60_000)) continue;
    out.set(r.site, [...(out.get(r.site) ?? []), r]);
  }
  return out;
}

/** `local`, asking the other replicas too. */
export function askingOthers(local: RunProbe, d: AskDeps): RunProbe {
  return async (fleet, req, deps = {}) => {
    let peers: Map<string, ReplicaSeen[]>;
    try {
      // A journal that does not answer (its primary gone) never holds the probe up: past the bound, this
      // vantage alone, and said so.
      peers = otherVantages(await within(d.replicas(), LOOKUP_MS, d.setTimer), d.self, d.now());
    } catch (err) {
      d.log?.(`probe of ${req.site}: the other replicas could not be looked up (${firstLine(err)}); probing from ${d.self.vantage} only`);
      return local(fleet, req, deps);
    }
    if (peers.size === 0) return local(fleet, req, deps);
    return new Ask(local, d, fleet, req, deps, peers).run();
  };
}

interface Pending {
  vantage: string;
  replicas: ReplicaSeen[];
  owner?: string;
  taken: boolean;
  /** Streamed progress, and the result's findings. */
  done: number;
  total: number;
  result: Finding[];
  /** The `result` parts read: an end before any is an answer without its findings. */
  parts: number;
  bytes: number;
  state: 'waiting' | 'running' | 'answered' | 'failed' | 'refused';
  why?: string;
  ms?: number;
  end?: VantageAnswer['done'];
}

class Ask {
  private readonly mono: () => number;
  private readonly setTimer: (fn: () => void, ms: number) => () => void;
  private readonly pending = new Map<string, Pending>();
  private t0 = 0;
  private localDone = 0;
  private localTotal = 0;
  private wake: (() => void) | undefined;
  private cancels: (() => void)[] = [];
  private deadline = Infinity;
  /** Set once the report is out: a look still under way then must not stream into a finished progress. */
  private closed = false;

  constructor(
    private readonly local: RunProbe,
    private readonly d: AskDeps,
    private readonly fleet: Fleet,
    private readonly req: ProbeRequest,
    private readonly deps: ProbeDeps,
    peers: Map<string, ReplicaSeen[]>,
  ) {
    this.mono = d.monotonic ?? (() => performance.now());
    this.setTimer = d.setTimer ?? ((fn, ms) => {
      const t = setTimeout(fn, ms);
      t.unref?.();
      return () => clearTimeout(t);
    });
    for (const [vantage, replicas] of peers) this.pending.set(vantage, { vantage, replicas, taken: false, done: 0, total: 0, result: [], parts: 0, bytes: 0, state: 'waiting' });
  }

  async run(): Promise<ProbeReport> {
    const timeoutMs = this.req.timeoutMs ?? this.fleet.inventory.settings.probeTimeoutMs;
    this.t0 = this.mono();
    let unwatch: (() => void) | undefined;
    // The request goes while the local probe starts: neither waits for the other.
    const asked = this.d.asks.ask({ replica: this.d.self.replica, vantage: this.d.self.vantage, request: requestText(this.req, timeoutMs), askedAt: this.d.now().toISOString(), waitMs: timeoutMs + ASK_GRACE_MS }).then(
      (id) => {
        unwatch = this.d.asks.onAnswers(id, [...this.pending.values()].flatMap((p) => p.replicas.map((r) => r.replica)), (rows) => this.take(rows));
        return id;
      },
      (err: unknown) => {
        const why = `the journal did not take the request (${firstLine(err)})`;
        this.d.log?.(`probe of ${this.req.site}: ${why}; probing from ${this.d.self.vantage} only`);
        for (const p of this.pending.values()) Object.assign(p, { state: 'failed', why });
        return null;
      },
    );
    // A vantage that has not said it took the request within the probe's timeout is not waited for.
    this.cancels.push(this.setTimer(() => this.noAnswer(timeoutMs), timeoutMs + ASK_GRACE_MS));
    // The request is on its way before the local probe plans its tasks (tens of ms of this loop on a
    // big fleet, which would hold the request's bytes back): the others start as soon as this one.
    await Promise.race([asked, new Promise<void>((resolve) => this.cancels.push(this.setTimer(resolve, SEND_FIRST_MS)))]);
    try {
      const report = await this.local(this.fleet, this.req, { ...this.deps, onEvent: (e) => this.localEvent(e) });
      // Those that took it get the run's own deadline, from the request.
      this.deadline = this.t0 + Math.max(report.deadlineMs, timeoutMs) + ASK_GRACE_MS;
      // A journal that never says whether it took the request costs the deadline too, never a hang.
      const id = await this.byDeadline(asked);
      if (id === undefined) {
        const why = "the journal did not take the request within the run's deadline";
        this.d.log?.(`probe of ${this.req.site}: ${why}; probing from ${this.d.self.vantage} only`);
        for (const p of this.pending.values()) if (p.state === 'waiting' || p.state === 'running') Object.assign(p, { state: 'failed', why });
      } else if (id !== null) await this.settled();
      return this.merged(report);
    } finally {
      this.closed = true;
      for (const c of this.cancels) c();
      void asked.then((id) => {
        unwatch?.();
        if (id !== null) this.d.asks.forget(id, this.d.now()).catch((err: unknown) => this.d.log?.(`probe request ${id}: its rows could not be removed (${firstLine(err)})`));
      });
    }
  }

  private localEvent(e: RunEvent): void {
    if (e.type === 'start') {
      this.localTotal = e.total;
      this.deps.onEvent?.({ type: 'start', total: this.total() });
      return;
    }
    this.localDone = e.done;
    this.localTotal = e.total;
    this.deps.onEvent?.({ ...e, done: this.doneCount(), total: this.total() });
  }

  private total(): number {
    let n = this.localTotal;
    for (const p of this.pending.values()) if (p.state !== 'failed' && p.state !== 'refused') n += p.total;
    return n;
  }

  private doneCount(): number {
    let n = this.localDone;
    for (const p of this.pending.values()) if (p.state !== 'failed' && p.state !== 'refused') n += p.done;
    return n;
  }

  private take(rows: AnswerRow[]): void {
    if (this.closed) return;
    for (const row of rows) {
      const p = this.pending.get(row.vantage);
      // A row from a vantage not asked, from a second replica of a vantage, or after its end: not ours to read.
      if (!p || p.state === 'answered' || p.state === 'failed' || p.state === 'refused') continue;
      if (p.owner === undefined) {
        if (!p.replicas.some((r) => r.replica === row.replica)) continue;
        p.owner = row.replica;
      } else if (p.owner !== row.replica) continue;
      // SQLite keeps a BLOB in a TEXT column: a part that is not text is not ours to read.
      if (typeof row.body !== 'string') {
        this.refuse(p, 'a part of its answer is not text');
        continue;
      }
      p.bytes += row.body.length;
      if (p.bytes > MAX_ANSWER_TOTAL_BYTES) {
        this.refuse(p, `its answer is over ${MAX_ANSWER_TOTAL_BYTES / (1024 * 1024)} MiB`);
        continue;
      }
      const kind = answerKind(row);
      if (kind === null) {
        this.refuse(p, 'it sent a row of a kind this seatbelt does not know');
        continue;
      }
      if (kind === 'taken') {
        p.taken = true;
        p.state = 'running';
        continue;
      }
      if (kind === 'failed') {
        // Saying why it could not probe is an answer (taken or not): named as failed, not as silent.
        Object.assign(p, { state: 'failed', taken: true, why: `it could not probe (${parseFailed(row.body)})`, ms: this.elapsed() });
        this.settle();
        continue;
      }
      if (kind === 'findings' || kind === 'result') {
        const parsed = parseFindings(row.body, p.vantage);
        if (!parsed.ok) {
          this.refuse(p, parsed.why);
          continue;
        }
        p.taken = true;
        if (p.state === 'waiting') p.state = 'running';
        if (parsed.value.done !== undefined) p.done = parsed.value.done;
        if (parsed.value.total !== undefined) p.total = parsed.value.total;
        if (kind === 'result') {
          p.parts += 1;
          p.result.push(...parsed.value.findings);
        } else this.forward(parsed.value.findings);
        continue;
      }
      // Our answerer always sends its findings (one part at least, if empty) before the end.
      if (p.parts === 0) {
        this.refuse(p, 'its answer ended without its findings');
        continue;
      }
      const end = parseDone(row.body);
      if (!end.ok) {
        this.refuse(p, end.why);
        continue;
      }
      Object.assign(p, { state: 'answered', end: end.value, ms: this.elapsed() });
      this.settle();
    }
  }

  /** Another vantage's findings into the same progress as the local ones. */
  private forward(findings: Finding[]): void {
    const on = this.deps.onEvent;
    if (!on) return;
    for (const f of findings) on({ type: 'task', task: taskOf(f), findings: [f], done: this.doneCount(), total: this.total(), timedOut: false });
  }

  private refuse(p: Pending, why: string): void {
    Object.assign(p, { state: 'refused', why, ms: this.elapsed(), result: [] });
    this.settle();
  }

  private noAnswer(timeoutMs: number): void {
    for (const p of this.pending.values()) {
      if (p.state !== 'waiting') continue;
      Object.assign(p, { state: 'failed', why: `no answer within ${(timeoutMs / 1000).toFixed(1)} s` });
    }
    this.settle();
  }

  private elapsed(): number {
    return Math.round(this.mono() - this.t0);
  }

  private open(): boolean {
    return [...this.pending.values()].some((p) => p.state === 'waiting' || p.state === 'running');
  }

  private settle(): void {
    if (!this.open()) this.wake?.();
  }

  /** Resolves once every vantage has answered or is given up, or the deadline passed. */
  private settled(): Promise<void> {
    if (!this.open()) return Promise.resolve();
    return new Promise((resolve) => {
      this.wake = resolve;
      const left = this.deadline - this.mono();
      this.cancels.push(
        this.setTimer(resolve, Math.max(0, left)),
      );
    });
  }

  /** The local report with the answers merged; one the merge cannot take costs that answer alone. */
  private merged(local: ProbeReport): ProbeReport {
    const ms = this.elapsed();
    const asked = this.asked();
    const answers = this.answers();
    const all = mergeAnswers(this.fleet, local, answers, asked, ms);
    if (!answers.some((a) => outcomeIn(all, a.vantage)?.outcome === 'refused')) return all;
    // mergeAnswers leaves every answer out when the diagnosis fails over one: each is tried alone, and those that merge alone are merged together.
    const alone = new Map(answers.map((a) => [a.vantage, outcomeIn(mergeAnswers(this.fleet, local, [a], asked), a.vantage)]));
    const keep = answers.filter((a) => alone.get(a.vantage)?.outcome === 'answered');
    const outcomes = asked.map((o) => {
      const a = alone.get(o.vantage);
      return a && a.outcome !== 'answered' ? a : o;
    });
    return mergeAnswers(this.fleet, local, keep, outcomes, ms);
  }

  /** `p`, or undefined once the deadline passed first. */
  private byDeadline<T>(p: Promise<T>): Promise<T | undefined> {
    return new Promise((resolve) => {
      this.cancels.push(this.setTimer(() => resolve(undefined), Math.max(0, this.deadline - this.mono())));
      p.then(resolve, () => resolve(undefined));
    });
  }

  private answers(): VantageAnswer[] {
    const out: VantageAnswer[] = [];
    for (const p of this.pending.values()) if (p.state === 'answered' && p.end && p.owner) out.push({ vantage: p.vantage, replica: p.owner, done: p.end, findings: p.result });
    return out;
  }

  private asked(): AskedVantage[] {
    return [...this.pending.values()].map((p): AskedVantage => {
      const replicas = p.replicas.map((r) => clean(r.replica, 120));
      const base = { vantage: p.vantage, replicas, ...(p.owner ? { answeredBy: clean(p.owner, 120) } : {}), ...(p.ms !== undefined ? { ms: p.ms } : {}) };
      if (p.state === 'answered') return { ...base, outcome: 'answered', findings: p.result.length, ...(p.end ? { probeMs: p.end.durationMs } : {}) };
      if (p.state === 'refused') return { ...base, outcome: 'refused', why: p.why ?? 'its answer could not be read', findings: 0 };
      if (p.state === 'failed') return { ...base, outcome: p.taken ? 'failed' : 'no_answer', why: p.why ?? 'no answer', findings: 0 };
      if (p.state === 'running') return { ...base, outcome: 'unfinished', why: "its probe did not finish within the run's deadline", findings: 0 };
      return { ...base, outcome: 'no_answer', why: 'no answer', findings: 0 };
    });
  }
}

const GROUP: Record<ProbeName, ProbeGroup> = { gateway: 'aliases', alias: 'aliases', seat: 'gpus', gpu: 'gpus', container: 'gpus', ups: 'power', bmc: 'power', firewall: 'power', host: 'power', 'oob-path': 'power' };

function taskOf(f: Finding): TaskInfo {
  return { id: `${f.provenance.vantage ?? ''}:${f.probe}:${f.target}`, group: GROUP[f.probe], probe: f.probe, target: f.target, subject: f.subject, ...(f.site !== undefined ? { site: f.site } : {}), ...(f.host !== undefined ? { host: f.host } : {}) } as TaskInfo;
}

function outcomeIn(report: ProbeReport, vantage: string): AskedVantage | undefined {
  return report.asked?.find((o) => o.vantage === vantage);
}

function firstLine(err: unknown): string {
  return err instanceof Error ? (err.message.split('\n')[0] ?? '') : String(err);
}
