// The incident journal behind a small interface: SQLite now (sqlite.ts), PostgreSQL for bot
// replicas later, with the same events and the same hash chain (chain.ts). Every write is one
// transaction that has committed before it returns: a decision is shown as recorded only then.
import type { Actor, AppendResult, EventInput, EventKind, Incident, IncidentStatus, JournalEvent, StepExpectation, VerifyResult } from '../incident/types.ts';

export interface OpenIncident {
  site: string;
  /** Free text as typed. */
  title: string;
  actor: Actor;
  /** When it was opened (UTC ISO-8601). */
  at: string;
  drill: boolean;
  slack?: { channel: string; thread: string };
  /** A replayed `/seat incident open` opens one incident, not two. */
  dedupe?: string;
}

/**
 * The SQLite store's synchronous core (sqlite.ts). Callers use JournalStore, which every store
 * implements asynchronously; this stays underneath so a transaction is one call, never a bridge.
 */
export interface SyncJournalStore {
  readonly path: string;
  /** The incident row and its `incident.opened` event (seq 1), in one transaction. */
  openIncident(o: OpenIncident): { incident: Incident; event: JournalEvent; duplicate: boolean };
  /** An `incident.closed` event, and the incident's status with it. */
  closeIncident(id: number, actor: Actor, at: string, reason?: string, dedupe?: string): AppendResult;
  setSlackThread(id: number, channel: string, thread: string): void;
  incident(id: number): Incident | undefined;
  incidentByThread(channel: string, thread: string): Incident | undefined;
  /** Newest first. */
  incidents(o?: { status?: IncidentStatus; limit?: number }): Incident[];
  newestOpen(): Incident | undefined;
  /** One event, one transaction. With `expect`, recorded only if the step's version still matches. */
  append(e: EventInput, expect?: StepExpectation): AppendResult;
  /**
   * Many events in one transaction (a probe report's evidence). A duplicate gives back the first.
   * An event handed back may carry the caller's own payload object (it equals what reads back).
   */
  appendMany(events: EventInput[]): JournalEvent[];
  /** In seq order. */
  events(incident: number, o?: { fromSeq?: number }): JournalEvent[];
  /** The step's compare-and-set version: how many step.done/skipped/blocked events it has, and the last. */
  stepVersion(incident: number, step: string): { version: number; last?: JournalEvent };
  /**
   * Recomputes every hash and link, for one incident or all; compares each incident's row and head
   * record with its events. A deleted tail whose head record was forged too is not seen: findHash().
   */
  verify(incident?: number): VerifyResult;
  /** The events whose hash starts with `prefix` (8 to 64 lowercase hex digits): where a head someone kept is now. */
  findHash(prefix: string, incident?: number): HashMatch[];
  close(): void;
  takeLease(l: Lease): LeaseResult;
  dropLease(incident: number, step: string, token: string): void;
  heartbeat(r: { replica: string; site: string; host: string; version: string; at: string }): void;
  replicas(): ReplicaSeen[];
  status(): StoreStatus;
  messages(incident: number): KeptMessage[];
  keepMessage(incident: number, key: string, channel: string, ts: string): void;
}

/**
 * The journal as its callers see it: every store (SQLite, PostgreSQL) answers asynchronously, and a
 * returned promise has resolved only after its transaction committed. Errors are JournalErrors.
 */
export interface JournalStore {
  readonly path: string;
  /** What kind of store: `sqlite` (a file, embedded) or `postgres` (shared by replicas). */
  readonly kind: 'sqlite' | 'postgres';
  openIncident(o: OpenIncident): Promise<{ incident: Incident; event: JournalEvent; duplicate: boolean }>;
  closeIncident(id: number, actor: Actor, at: string, reason?: string, dedupe?: string): Promise<AppendResult>;
  setSlackThread(id: number, channel: string, thread: string): Promise<void>;
  incident(id: number): Promise<Incident | undefined>;
  incidentByThread(channel: string, thread: string): Promise<Incident | undefined>;
  /** Newest first. */
  incidents(o?: { status?: IncidentStatus; limit?: number }): Promise<Incident[]>;
  newestOpen(): Promise<Incident | undefined>;
  append(e: EventInput, expect?: StepExpectation): Promise<AppendResult>;
  appendMany(events: EventInput[]): Promise<JournalEvent[]>;
  /** In seq order. */
  events(incident: number, o?: { fromSeq?: number }): Promise<JournalEvent[]>;
  stepVersion(incident: number, step: string): Promise<{ version: number; last?: JournalEvent }>;
  verify(incident?: number): Promise<VerifyResult>;
  findHash(prefix: string, incident?: number): Promise<HashMatch[]>;
  close(): Promise<void>;
  /** Leases, heartbeats and the Slack message index: what replicas share besides the events. */
  readonly replicaSide: ReplicaSide;
}


/**
 * A probe step in progress, held by one replica until it records its decision or the lease runs
 * out: a replica that dies mid-step leaves a lease that expires, never a step "running" forever.
 * Leases are coordination, not record: they live beside the events, outside the hash chain.
 */
export interface Lease {
  incident: number;
  step: string;
  /** Who pressed Done. */
  by: Actor;
  /** The replica running it (host:pid). */
  replica: string;
  /** When it was taken and until when it holds (UTC ISO-8601). */
  at: string;
  until: string;
}

export type LeaseResult =
  | { ok: true; token: string; expired?: Lease }
  | { ok: false; held: Lease };

/** A bot replica seen by the journal: its heartbeat row. */
export interface ReplicaSeen {
  replica: string;
  site: string;
  host: string;
  version: string;
  /** When it first and last said it was alive (UTC ISO-8601). */
  started: string;
  lastSeen: string;
}

/** Where the journal's database stands: which server answers, and whether it takes writes. */
export interface StoreStatus {
  kind: 'sqlite' | 'postgres';
  where: string;
  /** The server's address as it says it (PostgreSQL), or the file. */
  server: string;
  primary: boolean;
}

/** Where one part of an incident has its Slack message. */
export interface KeptMessage {
  key: string;
  channel: string;
  ts: string;
}

/** Leases and heartbeats: what replicas share besides the events. */
export interface ReplicaSide {
  /** Takes the step's lease, or says who holds it; an expired lease is taken over and handed back as `expired`. */
  takeLease(l: Lease): Promise<LeaseResult>;
  /** Lets the lease go (its decision recorded, or the run failed). A token that no longer holds it does nothing. */
  dropLease(incident: number, step: string, token: string): Promise<void>;
  heartbeat(r: { replica: string; site: string; host: string; version: string; at: string }): Promise<void>;
  /** Newest first. */
  replicas(): Promise<ReplicaSeen[]>;
  status(): Promise<StoreStatus>;
  /**
   * Where an incident's part (the parent, a step, an override request) has its Slack message, so
   * every replica updates the one message instead of posting its own. The first kept stands.
   */
  messages(incident: number): Promise<KeptMessage[]>;
  keepMessage(incident: number, key: string, channel: string, ts: string): Promise<void>;
}

/** The asynchronous face of a synchronous core: each call is one synchronous transaction. */
export function asyncStore(core: SyncJournalStore): JournalStore {
  const call = <T>(f: () => T): Promise<T> => {
    try {
      return Promise.resolve(f());
    } catch (err) {
      return Promise.reject(err instanceof Error ? err : new Error(String(err)));
    }
  };
  return {
    path: core.path,
    kind: 'sqlite',
    openIncident: (o) => call(() => core.openIncident(o)),
    closeIncident: (id, actor, at, reason, dedupe) => call(() => core.closeIncident(id, actor, at, reason, dedupe)),
    setSlackThread: (id, channel, thread) => call(() => core.setSlackThread(id, channel, thread)),
    incident: (id) => call(() => core.incident(id)),
    incidentByThread: (channel, thread) => call(() => core.incidentByThread(channel, thread)),
    incidents: (o) => call(() => core.incidents(o)),
    newestOpen: () => call(() => core.newestOpen()),
    append: (e, expect) => call(() => core.append(e, expect)),
    appendMany: (events) => call(() => core.appendMany(events)),
    events: (incident, o) => call(() => core.events(incident, o)),
    stepVersion: (incident, step) => call(() => core.stepVersion(incident, step)),
    verify: (incident) => call(() => core.verify(incident)),
    findHash: (prefix, incident) => call(() => core.findHash(prefix, incident)),
    close: () => call(() => core.close()),
    replicaSide: {
      takeLease: (l) => call(() => core.takeLease(l)),
      dropLease: (incident, step, token) => call(() => core.dropLease(incident, step, token)),
      heartbeat: (r) => call(() => core.heartbeat(r)),
      replicas: () => call(() => core.replicas()),
      status: () => call(() => core.status()),
      messages: (incident) => call(() => core.messages(incident)),
      keepMessage: (incident, key, channel, ts) => call(() => core.keepMessage(incident, key, channel, ts)),
    },
  };
}

/** An event found by its hash. */
export interface HashMatch {
  incident: number;
  seq: number;
}

/** The kinds that decide a step, and so move its compare-and-set version. */
export const STEP_DECISIONS: readonly EventKind[] = ['step.done', 'step.skipped', 'step.blocked'];

export const EVENT_KINDS: readonly EventKind[] = [
  'incident.opened',
  'incident.closed',
  'runbook.pinned',
  'step.done',
  'step.skipped',
  'step.blocked',
  'evidence',
  'override.requested',
  'override.approved',
  'override.refused',
  'probe.report',
  'note',
  'correction',
];

/**
 * The most a payload may take, serialised (UTF-8 bytes). A probe report carries every finding of a
 * site; anything a person types is far smaller, and a cap keeps a pasted log out of the journal.
 */
export function maxPayloadBytes(kind: EventKind): number {
  return kind === 'probe.report' ? 8 * 2 ** 20 : 64 * 2 ** 10;
}

export type JournalErrorCode =
  | 'bad_event' // the event itself is wrong: a field, the payload, a seq it amends
  | 'too_large'
  | 'no_incident'
  | 'already_closed'
  | 'thread_taken'
  | 'journal_newer' // the file was written by a newer seatbelt
  | 'journal_busy'
  | 'journal_full'
  | 'journal_readonly'
  | 'journal_damaged'
  | 'journal_io'
  | 'journal_unavailable' // no writable PostgreSQL primary could be reached: nothing was recorded
  | 'journal_unmigrated'; // the PostgreSQL schema is missing or older: run seat journal migrate

/** What went wrong, in one plain line; `code` is what a caller branches on. */
export class JournalError extends Error {
  readonly code: JournalErrorCode;
  constructor(code: JournalErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'JournalError';
    this.code = code;
  }
}

// ---------------------------------------------------------------------------------------------
// What every store checks before it takes its lock: the event alone, without the journal. What
// needs the journal (the incident, the seq amended, the dedupe key, the step's version) is checked
// inside the transaction.

/** An event checked and serialised: `actor` and `payload` as the canonical JSON that is stored and hashed. */
export interface CheckedEvent {
  input: EventInput;
  actor: Actor;
  actorJson: string;
  payloadJson: string;
  /** The caller's payload is already what reads back (no undefined field, no -0, no null prototype). */
  exact: boolean;
}

const ISO_UTC = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d{1,9})?Z$/;
const MAX_WORD = 256;
const MAX_DEPTH = 64;
// A lone surrogate is not text: SQLite would store U+FFFD in its place and the hash would break.
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

function bad(message: string): JournalError {
  return new JournalError('bad_event', message);
}

let lastTime = '';

export function checkTime(v: unknown, what: string): string {
  if (v === lastTime) return v; // a batch's events share their time: check it once
  if (typeof v !== 'string' || !ISO_UTC.test(v) || Number.isNaN(Date.parse(v))) {
    throw bad(`${what} must be a UTC ISO-8601 time like 2025-03-01T14:02:00.000Z; got ${typeof v === 'string' ? JSON.stringify(v.slice(0, 40)) : typeof v}`);
  }
  lastTime = v;
  return v;
}

/** A short identifier: a step id, a dedupe key, a Slack channel or thread. */
export function checkWord(v: unknown, what: string): string {
  if (typeof v !== 'string' || v.length === 0) throw bad(`${what} must be a non-empty string`);
  if (v.length > MAX_WORD) throw bad(`${what} is ${v.length} characters; the most is ${MAX_WORD}`);
  if (LONE_SURROGATE.test(v)) throw bad(`${what} holds a broken character (a lone UTF-16 surrogate)`);
  return v;
}

export function checkText(v: unknown, what: string): string {
  if (typeof v !== 'string') throw bad(`${what} must be a string`);
  if (LONE_SURROGATE.test(v)) throw bad(`${what} holds a broken character (a lone UTF-16 surrogate)`);
  return v;
}

/** A copy with only the fields an actor has, so a stray property is neither stored nor hashed. */
export function checkActor(v: unknown): Actor {
  const a = (typeof v === 'object' && v !== null ? v : {}) as Record<string, unknown>;
  switch (a.kind) {
    case 'slack':
      return { kind: 'slack', id: checkWord(a.id, 'the actor\'s Slack id'), name: checkText(a.name, 'the actor\'s name') };
    case 'local':
      return { kind: 'local', name: checkWord(a.name, 'the actor\'s name') };
    case 'system':
    case 'probe':
      return { kind: a.kind };
    default:
      throw bad('the actor must be { kind: slack, id, name }, { kind: local, name }, system or probe');
  }
}

/** An opening checked before any store takes its lock: the actor, and the `incident.opened` event it becomes (incident 1 stands in for the id the insert assigns). */
export function checkOpening(o: OpenIncident): { actor: Actor; c: CheckedEvent } {
  const actor = checkActor(o.actor);
  checkWord(o.site, 'the site');
  checkText(o.title, 'the title');
  checkTime(o.at, 'the time it was opened');
  if (typeof o.drill !== 'boolean') throw new JournalError('bad_event', 'drill must be true or false');
  if (o.slack) {
    checkWord(o.slack.channel, 'the Slack channel');
    checkWord(o.slack.thread, 'the Slack thread');
  }
  return { actor, c: checkEvent({ incident: 1, kind: 'incident.opened', actor, happenedAt: o.at, payload: { site: o.site, title: o.title, drill: o.drill }, dedupe: o.dedupe }) };
}

/** A batch checked event by event; a refusal names which of the batch it was. */
export function checkEvents(events: EventInput[]): CheckedEvent[] {
  return events.map((e, i) => {
    try {
      return checkEvent(e);
    } catch (err) {
      if (err instanceof JournalError) throw new JournalError(err.code, `event ${i + 1} of ${events.length}: ${err.message}`);
      throw err;
    }
  });
}

export function checkEvent(e: EventInput): CheckedEvent {
  if (typeof e !== 'object' || e === null) throw bad('an event must be an object');
  if (!Number.isSafeInteger(e.incident) || e.incident < 1) throw bad(`the incident must be a number like 7; got ${String(e.incident)}`);
  if (!EVENT_KINDS.includes(e.kind)) throw bad(`unknown event kind ${JSON.stringify(String(e.kind))}; known: ${EVENT_KINDS.join(', ')}`);
  const actor = checkActor(e.actor);
  checkTime(e.happenedAt, 'happenedAt');
  if (e.step !== undefined) checkWord(e.step, 'the step');
  if (e.dedupe !== undefined) checkWord(e.dedupe, 'the dedupe key');
  // A correction is a new event that names the one it amends; nothing else amends.
  if (e.kind === 'correction') {
    if (!Number.isSafeInteger(e.amends) || (e.amends as number) < 1) throw bad('a correction must name the seq of the event it amends (amends: 3)');
  } else if (e.amends !== undefined) {
    throw bad(`only a correction amends an event; this is a ${e.kind}`);
  }
  if (typeof e.payload !== 'object' || e.payload === null || Array.isArray(e.payload)) throw bad('the payload must be a plain object');
  let payloadJson: string;
  inexact = false;
  try {
    payloadJson = serialise(e.payload, 0);
  } catch (err) {
    if (err !== NOT_JSON) throw err;
    const issue = jsonIssue(e.payload, 0);
    throw bad(`payload${issue ? `${issue.path.join('')} ${issue.why}` : ' is not JSON data'}`);
  }
  const max = maxPayloadBytes(e.kind);
  // UTF-8 takes at least one byte per UTF-16 unit: the length alone settles most cases.
  const bytes = payloadJson.length > max ? payloadJson.length : Buffer.byteLength(payloadJson, 'utf8');
  if (bytes > max) {
    throw new JournalError('too_large', `the ${e.kind} payload is ${payloadJson.length > max ? 'over ' : ''}${bytes.toLocaleString('en-US')} bytes serialised; the most for a ${e.kind} is ${(max / 1024).toLocaleString('en-US')} KiB`);
  }
  return { input: e, actor, actorJson: actorJson(actor), payloadJson, exact: !inexact };
}

/** canonicalJson(actor), written out: the fields are fixed, and this runs for every event. */
function actorJson(a: Actor): string {
  switch (a.kind) {
    case 'slack':
      return `{"id":${JSON.stringify(a.id)},"kind":"slack","name":${JSON.stringify(a.name)}}`;
    case 'local':
      return `{"kind":"local","name":${JSON.stringify(a.name)}}`;
    default:
      return `{"kind":"${a.kind}"}`;
  }
}

const NOT_JSON = new Error('not JSON data');
/** Set by serialise() when what it wrote would read back different from what it was given. */
let inexact = false;

// A probe report repeats the same few dozen keys thousands of times: quote each once.
const quoted = new Map<string, string>();
function quotedKey(k: string): string {
  let q = quoted.get(k);
  if (q === undefined) {
    if (quoted.size >= 4096) quoted.clear();
    q = JSON.stringify(k);
    quoted.set(k, q);
  }
  return q;
}

/**
 * canonicalJson's bytes for JSON data, in one walk that also refuses what is not JSON data (it
 * throws NOT_JSON; jsonIssue then says where and why). A probe report's events come thousands at
 * a time, so this is the journal's hot path; a test holds it to canonicalJson.
 */
function serialise(v: unknown, depth: number): string {
  if (v === null) return 'null';
  switch (typeof v) {
    case 'string':
      return JSON.stringify(v);
    case 'boolean':
      return v ? 'true' : 'false';
    case 'number':
      // String() writes numbers as JSON does, and -0 as 0.
      if (!Number.isFinite(v)) throw NOT_JSON;
      if (v === 0 && 1 / v < 0) inexact = true;
      return String(v);
    case 'object':
      break;
    default:
      throw NOT_JSON;
  }
  if (depth >= MAX_DEPTH) throw NOT_JSON;
  if (Array.isArray(v)) {
    let out = '[';
    for (let i = 0; i < v.length; i++) {
      if (!(i in v) || v[i] === undefined) throw NOT_JSON;
      out += (i === 0 ? '' : ',') + serialise(v[i], depth + 1);
    }
    return `${out}]`;
  }
  const proto: unknown = Object.getPrototypeOf(v);
  if (proto !== Object.prototype) {
    if (proto !== null) throw NOT_JSON;
    inexact = true;
  }
  const o = v as Record<string, unknown>;
  // The default sort compares UTF-16 code units, as canonicalJson's `<` does.
  const keys = Object.keys(o).sort();
  let out = '{';
  for (const k of keys) {
    const x = o[k];
    if (x === undefined) {
      inexact = true;
      continue;
    }
    out += `${out.length === 1 ? '' : ','}${quotedKey(k)}:${serialise(x, depth + 1)}`;
  }
  return `${out}}`;
}

/**
 * Why a value is not JSON data, with where (built as the walk unwinds, so the common case builds
 * no paths). Undefined object fields are left out, as canonicalJson does; anything else that JSON
 * would drop or turn into null silently is refused, since the journal keeps what it was given.
 */
function jsonIssue(v: unknown, depth: number): { path: string[]; why: string } | null {
  if (v === null) return null;
  switch (typeof v) {
    case 'string':
    case 'boolean':
      return null;
    case 'number':
      return Number.isFinite(v) ? null : { path: [], why: `is ${v}: JSON has no such number` };
    case 'undefined':
      return { path: [], why: 'is undefined: JSON has no such value (use null)' };
    case 'object':
      break;
    default:
      return { path: [], why: `is a ${typeof v}: not JSON data` };
  }
  if (depth >= MAX_DEPTH) return { path: [], why: `is nested more than ${MAX_DEPTH} deep (a cycle?)` };
  if (Array.isArray(v)) {
    for (let i = 0; i < v.length; i++) {
      const issue = i in v ? jsonIssue(v[i], depth + 1) : { path: [], why: 'is a hole in the array' };
      if (issue) return { path: [`[${i}]`, ...issue.path], why: issue.why };
    }
    return null;
  }
  const proto: unknown = Object.getPrototypeOf(v);
  if (proto !== Object.prototype && proto !== null) {
    const name = (v as { constructor?: { name?: string } }).constructor?.name ?? 'object';
    return { path: [], why: `is a ${name}: only plain objects, arrays, strings, numbers, booleans and null` };
  }
  for (const [k, x] of Object.entries(v)) {
    if (x === undefined) continue;
    const issue = jsonIssue(x, depth + 1);
    if (issue) return { path: [/^[A-Za-z_$][\w$]*$/.test(k) ? `.${k}` : `[${JSON.stringify(k)}]`, ...issue.path], why: issue.why };
  }
  return null;
}
