// What one probe leaves for the next: the targets that cost their timeout (asked first next time, so
// their clocks start first and the run ends sooner), and each container's restart count (a count is
// judged by whether it rose). The bot keeps one in memory; `seat probe` keeps one in a state file.
import type { Finding, Subject } from './types.ts';

/** Why a finding says its target cost its timeout, or never got to answer: a slow risk next time. */
const SLOW: ReadonlySet<string> = new Set(['timeout', 'deadline', 'not_started']);

/** Past this many remembered targets the oldest are forgotten: a hint, never a reason to grow without end. */
export const MEMORY_MAX_ENTRIES = 50_000;
/** A restart count older than this is not compared with: a container then falls back to "high alone". */
export const RESTART_MEMORY_MS = 24 * 60 * 60 * 1000;

/** A restart count as last read, and when (epoch ms). */
export interface RestartSeen {
  count: number;
  at: number;
}

/** One key for a task and the findings it yields: an alias, a seat, a key's listing, a host's GPUs or
 * containers, a UPS, an address. */
export function targetKey(s: Subject): string {
  switch (s.kind) {
    case 'alias':
      return `alias:${s.name}`;
    case 'seat':
      return `seat:${s.name}`;
    case 'gateway':
      return `gateway:${s.key}`;
    case 'gpu':
    case 'gpu-host':
      return `gpu:${s.host}`;
    case 'container':
      return `container:${s.host}`;
    case 'ups':
      return `ups:${s.site}:${s.ups}`;
    case 'address':
      return `address:${s.site}:${s.role}:${s.name}`;
  }
}

/** A container on a host, as the restart counts are keyed. */
export function containerKey(host: string, container: string): string {
  return `${host}\u0000${container}`;
}

export interface MemoryJson {
  v: 1;
  slow: string[];
  restarts: [string, string, number, number][];
}

export class ProbeMemory {
  /** Target keys whose last finding said they cost their timeout. */
  readonly slow = new Set<string>();
  /** Restart counts by containerKey(host, container), as last read and when. */
  readonly restarts = new Map<string, RestartSeen>();

  /** A memory of one report's findings (a test's or a caller's "previous report"), read at `at`. */
  static of(findings: readonly Finding[], at = Date.now()): ProbeMemory {
    const m = new ProbeMemory();
    m.learn(findings, at);
    return m;
  }

  /** The count to compare a container's with: the last one read, unless it is older than a day. */
  restartBefore(host: string, container: string, now: number): RestartSeen | null {
    const seen = this.restarts.get(containerKey(host, container));
    return seen !== undefined && now - seen.at <= RESTART_MEMORY_MS && seen.at <= now ? seen : null;
  }

  /** Takes in a report's findings, read at `at` (epoch ms): every target it measured replaces what was
   * known of it; targets it did not cover (another site, another group) are kept. */
  learn(findings: readonly Finding[], at = Date.now()): void {
    const lesson = new Lesson();
    lesson.add(findings);
    this.take(lesson, at);
  }

  /** Takes in what a run noted as its findings came in (a Lesson), read at `at`: as learn() of them all. */
  take(lesson: Lesson, at = Date.now()): void {
    for (const [ck, count] of lesson.restarts) {
      this.restarts.delete(ck); // re-inserted last: the newest are the last forgotten
      this.restarts.set(ck, { count, at });
    }
    for (const k of lesson.seen) {
      this.slow.delete(k);
      if (lesson.timedOut.has(k)) this.slow.add(k);
    }
    trim(this.slow);
    trim(this.restarts);
  }

  toJSON(): MemoryJson {
    return { v: 1, slow: [...this.slow], restarts: [...this.restarts].map(([k, r]) => [...(k.split('\u0000') as [string, string]), r.count, r.at]) };
  }

  /** Reads what toJSON wrote, as text; anything else is an empty memory (it is a hint, not a record). */
  static parse(text: string): ProbeMemory {
    let j: unknown;
    try {
      j = JSON.parse(text);
    } catch {
      return new ProbeMemory();
    }
    return ProbeMemory.from(j);
  }

  /** Reads what toJSON made, as an object (a copy sent to another thread, a parsed file). */
  static from(j: unknown): ProbeMemory {
    const m = new ProbeMemory();
    if (typeof j !== 'object' || j === null || (j as { v?: unknown }).v !== 1) return m;
    const { slow, restarts } = j as { slow?: unknown; restarts?: unknown };
    if (Array.isArray(slow)) for (const k of slow) if (typeof k === 'string' && k.length <= 1024) m.slow.add(k);
    if (Array.isArray(restarts)) {
      for (const r of restarts) {
        if (!Array.isArray(r) || r.length !== 4) continue;
        const [host, container, n, at] = r as unknown[];
        if (typeof host !== 'string' || typeof container !== 'string' || host.length > 1024 || container.length > 1024) continue;
        if (Number.isSafeInteger(n) && (n as number) >= 0 && Number.isSafeInteger(at) && (at as number) > 0) m.restarts.set(containerKey(host, container), { count: n as number, at: at as number });
      }
    }
    trim(m.slow);
    trim(m.restarts);
    return m;
  }
}

function trim(c: Set<string> | Map<string, unknown>): void {
  if (c.size <= MEMORY_MAX_ENTRIES) return;
  let over = c.size - MEMORY_MAX_ENTRIES;
  for (const k of c.keys()) {
    if (over-- <= 0) break;
    c.delete(k);
  }
}

/** What a run's findings teach the memory, noted as they come in: on a fleet of thousands of targets,
 * while the slowest are still awaited rather than after the last answer. ProbeMemory.take() applies it. */
export class Lesson {
  readonly seen = new Set<string>();
  readonly timedOut = new Set<string>();
  /** containerKey → the restart count read, in the order read. */
  readonly restarts = new Map<string, number>();

  add(findings: readonly Finding[]): void {
    for (const f of findings) {
      const k = targetKey(f.subject);
      this.seen.add(k);
      if (f.reason !== undefined && SLOW.has(f.reason)) this.timedOut.add(k);
      if (f.data.kind === 'container' && f.data.container.restartCount !== null) {
        const ck = containerKey(f.data.container.host, f.data.container.container);
        this.restarts.delete(ck);
        this.restarts.set(ck, f.data.container.restartCount);
      }
    }
  }
}
