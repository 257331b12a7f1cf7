// What replicas send each other through the journal (src/journal/asks.ts), written and read. A row
// came from another process with the database's password, not from us: every one is parsed here,
// capped, its strings stripped of control characters, and refused whole when it does not fit — a
// refused row costs that replica's answer, never another's, never the asker's own findings.
import { z } from 'zod';
import type { ProbeReport, ProbeRequest } from '../commands/probe.ts';
import { PROBE_GROUPS, type Finding } from '../probes/types.ts';
import { isVantageName } from '../probes/vantage.ts';
import { clean as safeLine, cut } from '../probes/edge/text.ts';
import { MAX_ANSWER_BYTES, type AnswerKind, type AnswerRow, type AskRow } from '../journal/asks.ts';

/** The longest a probe asked of another replica may be given (10 minutes). */
export const MAX_ASK_TIMEOUT_MS = 600_000;
/** What one replica's answer to one request may hold in all. */
export const MAX_ANSWER_TOTAL_BYTES = 32 * 1024 * 1024;

const name = z.string().regex(/^[A-Za-z0-9][A-Za-z0-9._-]{0,62}$/);

const requestSchema = z.strictObject({
  site: z.union([z.literal('all'), name]),
  only: z.array(z.enum(PROBE_GROUPS as readonly [string, ...string[]])).min(1).max(PROBE_GROUPS.length),
  timeoutMs: z.number().int().min(1).max(MAX_ASK_TIMEOUT_MS),
  paid: z.boolean(),
  skipSites: z.array(name).max(1000).optional(),
});

/** A request as it goes in the row: the timeout written out, so both sides wait the same. */
export function requestText(req: ProbeRequest, timeoutMs: number): string {
  return JSON.stringify({ site: req.site, only: req.only, timeoutMs, paid: req.paid, ...(req.skipSites?.length ? { skipSites: [...req.skipSites] } : {}) });
}

export type Parsed<T> = { ok: true; value: T } | { ok: false; why: string };

/** The request of a row, or why it cannot be run: a site this replica's inventory does not have is said. */
export function parseAsk(row: AskRow, sites: readonly string[]): Parsed<{ req: ProbeRequest; from: { replica: string; vantage: string } }> {
  // SQLite keeps a BLOB in a TEXT column: what another process wrote need not be text at all.
  if (typeof row.replica !== 'string') return { ok: false, why: 'the asking replica is not named in text' };
  if (typeof row.vantage !== 'string' || !isVantageName(row.vantage)) return { ok: false, why: 'the asking replica names no vantage' };
  if (typeof row.request !== 'string') return { ok: false, why: 'the request is not JSON' };
  let json: unknown;
  try {
    json = JSON.parse(row.request);
  } catch {
    return { ok: false, why: 'the request is not JSON' };
  }
  const r = requestSchema.safeParse(json);
  if (!r.success) return { ok: false, why: `the request does not fit (${r.error.issues[0]?.path.join('.') || 'its shape'})` };
  const v = r.data;
  if (v.site !== 'all' && !sites.includes(v.site)) return { ok: false, why: `this replica's inventory has no site ${v.site}` };
  const req: ProbeRequest = { site: v.site, only: v.only as ProbeRequest['only'], timeoutMs: v.timeoutMs, paid: v.paid, ...(v.skipSites ? { skipSites: v.skipSites } : {}) };
  return { ok: true, value: { req, from: { replica: clean(row.replica, 120), vantage: row.vantage } } };
}

/** What a replica's last row says of its run: the head of its probe report. */
export type AnswerDone = Pick<ProbeReport, 'schemaVersion' | 'site' | 'fleet' | 'drill' | 'sites' | 'startedAt' | 'finishedAt' | 'durationMs'>;

// ISO-8601 as our clocks write it (toISOString, or an offset): Date.parse alone takes "1" (2001 to V8) and "Tuesday, 1 May".
const iso = z
  .string()
  .max(40)
  .regex(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,9})?(Z|[+-]\d{2}:\d{2})$/)
  .refine((s) => !Number.isNaN(Date.parse(s)));
const doneSchema = z.strictObject({
  schemaVersion: z.number().int().min(1).max(1000),
  site: z.union([z.literal('all'), name]),
  fleet: z.string().max(200),
  drill: z.boolean(),
  sites: z.array(name).max(1000),
  startedAt: iso,
  finishedAt: iso,
  durationMs: z.number().min(0).max(24 * 3600_000),
});

const subject = z.union([
  z.strictObject({ kind: z.literal('gateway'), key: z.string().max(200) }),
  z.strictObject({ kind: z.literal('alias'), name: z.string().max(500), inInventory: z.boolean() }),
  z.strictObject({ kind: z.literal('seat'), name: z.string().max(200), host: z.string().max(200) }),
  z.strictObject({ kind: z.literal('gpu'), host: z.string().max(200), index: z.number().int().min(0).max(1024), uuid: z.string().max(200).nullable(), inInventory: z.boolean() }),
  z.strictObject({ kind: z.literal('gpu-host'), host: z.string().max(200) }),
  z.strictObject({ kind: z.literal('ups'), site: z.string().max(200), ups: z.string().max(200) }),
  z.strictObject({ kind: z.literal('address'), site: z.string().max(200), role: z.enum(['bmc', 'firewall', 'host', 'control', 'oob-path']), name: z.string().max(200) }),
  z.strictObject({ kind: z.literal('container'), host: z.string().max(200), seat: z.string().max(200), container: z.string().max(200) }),
]);

// A finding's figures, by kind: what the diagnosis and the renderers read is checked for its type (a
// peer's card without its `seats` threw in the middle of the diagnosis, and every other vantage's
// answer was left out with it); the rest is kept as sent (loose: a newer replica's extra fields pass,
// and are cleaned with the others).
// No length of their own: a model id or an error body is as long as the peer made it, and the row's cap bounds them all.
const text = z.string();
const int = z.number().int();
const figure = z.number().nullable();
const texts = z.array(text);
const http = z.object({ ok: z.boolean(), httpStatus: int.nullable(), code: text, error: text.optional(), location: text.optional(), latencyMs: z.number() }).loose();
const keyResult = z
  .object({ key: text, registered: z.boolean().nullable(), intended: z.boolean(), outcome: z.enum(['ok', 'failed', 'listed-only', 'not-registered', 'not-intended', 'listing-failed', 'unset']), request: http.optional(), note: text.optional() })
  .loose();
const gpuMemory = z
  .object({
    host: text,
    index: int.min(0),
    uuid: text.nullable(),
    name: text.nullable(),
    totalMiB: figure,
    usedMiB: figure,
    freeMiB: figure,
    seats: z.array(z.object({ seat: text, declaredMiB: figure, declaredBy: text, measuredMiB: figure }).loose()),
    processes: z.array(z.object({ pid: z.number(), name: text, usedMiB: figure }).loose()),
    marginMiB: figure,
    floorMiB: z.number(),
  })
  .loose();
const dataSchema = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('alias'), aliasKind: z.enum(['chat', 'embedding', 'unknown']), paid: z.boolean(), routedTo: texts, routedSeats: texts, keys: z.array(keyResult), exercised: z.boolean(), attribution: z.enum(['backend', 'backend-failing', 'gateway', 'gateway-unreachable', 'mixed']).nullable(), backendError: text.optional() }).loose(),
  z.object({ kind: z.literal('seat'), url: text, health: http, models: texts.optional() }).loose(),
  z.object({ kind: z.literal('gateway'), key: text, envVar: text, listed: z.boolean(), models: texts, modelCount: z.number() }).loose(),
  z.object({ kind: z.literal('gpu'), gpu: gpuMemory }).loose(),
  z.object({ kind: z.literal('gpu-seat'), seat: text, host: text, index: int.min(0), declaredMiB: figure }).loose(),
  z.object({ kind: z.literal('ups'), ups: z.object({ ups: text, status: texts, loadPct: figure, loadW: figure, loadWFrom: text.nullable(), ratedW: figure, ratedVA: figure, chargePct: figure, runtimeS: figure, warnPct: z.number(), vars: z.record(z.string(), text) }).loose() }).loose(),
  z
    .object({
      kind: z.literal('container'),
      container: z
        .object({ host: text, seat: text, container: text, port: int, state: text.nullable(), health: text.nullable(), restartCount: figure, previousRestartCount: figure, oomKilled: z.boolean().nullable(), exitCode: figure, networkMode: text.nullable(), ports: z.array(z.object({ containerPort: int, proto: text, hostIp: text, hostPort: int }).loose()), published: z.boolean(), answering: z.boolean().nullable() })
        .loose(),
    })
    .loose(),
  z.object({ kind: z.literal('unit'), unit: z.object({ host: text, seat: text, unit: text, port: int, loadState: text.nullable(), activeState: text.nullable(), subState: text.nullable(), restarts: figure, startedAt: text.nullable(), answering: z.boolean().nullable() }).loose() }).loose(),
  z.object({ kind: z.literal('none') }).loose(),
  z.object({ kind: z.literal('oob'), ping: z.enum(['ok', 'failed', 'skipped', 'not_run']), tcp: z.array(z.object({ port: int, ok: z.boolean(), error: text.optional() }).loose()) }).loose(),
]);

const findingSchema = z.object({
  probe: z.enum(['gateway', 'alias', 'seat', 'gpu', 'ups', 'bmc', 'firewall', 'host', 'container', 'oob-path']),
  target: z.string().max(1000),
  status: z.enum(['up', 'down', 'degraded', 'unknown']),
  reason: z.string().regex(/^[a-z][a-z_]{0,40}$/).optional(),
  subject,
  detail: z.string().max(4000),
  measuredBy: z.string().max(4000),
  provenance: z.object({ kind: z.enum(['measured', 'inferred']), vantage: name }).loose(),
  observedAt: iso,
  latencyMs: z.number().min(0).max(24 * 3600_000).nullable(),
  site: z.string().max(200).optional(),
  host: z.string().max(200).optional(),
  data: dataSchema,
});

const count = z.number().int().min(0).max(10_000_000).optional();
// Made once: a schema made per call is compiled per call, which cost a streamed row more than its parse.
const partSchema = z.strictObject({ findings: z.array(z.unknown()).max(20_000), done: count, total: count });

/**
 * The findings and the end of one replica's answer rows, or why they cannot be used. Each finding must
 * be measured from the replica's own vantage (a replica speaks for where it stands, not for another).
 */
export function parseFindings(body: string, vantage: string): Parsed<{ findings: Finding[]; done?: number; total?: number }> {
  if (body.length > MAX_ANSWER_BYTES) return { ok: false, why: `a part of its answer is over ${MAX_ANSWER_BYTES / 1024} KiB` };
  let json: unknown;
  try {
    json = JSON.parse(body);
  } catch {
    return { ok: false, why: 'a part of its answer is not JSON' };
  }
  const arr = partSchema.safeParse(json);
  if (!arr.success) return { ok: false, why: 'a part of its answer is not a list of findings' };
  const out: Finding[] = [];
  for (const [i, raw] of arr.data.findings.entries()) {
    const f = findingSchema.safeParse(raw);
    if (!f.success) return { ok: false, why: `its finding ${i + 1} does not fit (${f.error.issues[0]?.path.join('.') || 'its shape'})` };
    if (f.data.provenance.vantage !== vantage) return { ok: false, why: `its finding ${i + 1} says it was measured from ${f.data.provenance.vantage}, not from the replica's vantage ${vantage}` };
    out.push(Object.freeze(cleanDeep(f.data) as Finding));
  }
  return { ok: true, value: { findings: out, ...(arr.data.done !== undefined ? { done: arr.data.done } : {}), ...(arr.data.total !== undefined ? { total: arr.data.total } : {}) } };
}

export function parseDone(body: string): Parsed<AnswerDone> {
  let json: unknown;
  try {
    json = JSON.parse(body);
  } catch {
    return { ok: false, why: 'its last part is not JSON' };
  }
  const d = doneSchema.safeParse(json);
  if (!d.success) return { ok: false, why: `its last part does not fit (${d.error.issues[0]?.path.join('.') || 'its shape'})` };
  return { ok: true, value: cleanDeep(d.data) as AnswerDone };
}

/** Why a replica says it could not probe, in a line safe for a terminal. */
export function parseFailed(body: string): string {
  try {
    const j = JSON.parse(body) as { why?: unknown };
    return typeof j.why === 'string' ? clean(j.why, 300) : 'it gave no reason';
  } catch {
    return 'it gave no reason';
  }
}

/** One row's kind, if it is one of ours. */
export function answerKind(row: AnswerRow): AnswerKind | null {
  return (ANSWER_KINDS as readonly string[]).includes(row.kind) ? (row.kind as AnswerKind) : null;
}

const ANSWER_KINDS: readonly AnswerKind[] = ['taken', 'findings', 'result', 'done', 'failed'];

/** Findings cut into bodies under MAX_ANSWER_BYTES each; the last says how far the run is. */
export function findingBodies(findings: readonly Finding[], progress: { done: number; total: number }): string[] {
  const out: string[] = [];
  let part: string[] = [];
  let size = 64;
  const body = (last: boolean): string => `{"findings":[${part.join(',')}]${last ? `,"done":${progress.done},"total":${progress.total}` : ''}}`;
  for (const f of findings) {
    const s = JSON.stringify(f);
    if (s.length + 64 > MAX_ANSWER_BYTES) continue; // cannot travel: never made by our probes (their text is capped)
    if (size + s.length + 1 > MAX_ANSWER_BYTES && part.length > 0) {
      out.push(body(false));
      part = [];
      size = 64;
    }
    part.push(s);
    size += s.length + 1;
  }
  out.push(body(true));
  return out;
}

/** A peer's text for a terminal: one safe line (no escape sequence, no control, bidi or invisible character, no line break), cut to `max`. */
export function clean(s: string, max: number): string {
  return cut(safeLine(s), max);
}

/** Every string of a parsed value made one safe line (depth and sizes were capped by the schema or the row's size). */
function cleanDeep(v: unknown, depth = 0): unknown {
  if (typeof v === 'string') return safeLine(v);
  if (depth > 12 || v === null || typeof v !== 'object') return typeof v === 'object' && v !== null ? null : v;
  if (Array.isArray(v)) return v.map((x) => cleanDeep(x, depth + 1));
  const out: Record<string, unknown> = {};
  for (const [k, x] of Object.entries(v)) {
    // Cleaned first: "__pro\u0000to__" is "__proto__" once its control character is out.
    const key = safeLine(k);
    if (key !== '__proto__') out[key] = cleanDeep(x, depth + 1);
  }
  return out;
}
