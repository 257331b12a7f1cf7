// Gateway findings from what was measured: one per key listing, per alias, per seat.
import type { AliasRef } from '../../inventory/fleet.ts';
import { inferred, measured, type FindingInput } from '../finding.ts';
import { clean, cut, fmtInt } from '../edge/text.ts';
import type { Finding, FindingStatus, HttpOutcome, KeyResult, Measurement, Reason, Subject } from '../types.ts';
import { attribute, pathFailed } from './attribution.ts';
import type { KeyOutcome, Listing, SeatCheck } from './checks.ts';
import { MAX_MODELS_KEPT } from './litellm.ts';
import { groupBy, outcomeText, routedTo, seatName, transportReason, withKeys } from './words.ts';

export type Make = (f: FindingInput) => Finding;

export function keyFinding(mk: Make, base: string, l: Listing, timeoutMs: number): Finding {
  const subject: Subject = { kind: 'gateway', key: l.key.name };
  const target = `gateway (${l.key.name} key)`;
  const common = { probe: 'gateway' as const, target, subject };
  const data = (models: Set<string> | null, count = models?.size ?? 0) => ({
    kind: 'gateway' as const,
    key: l.key.name,
    envVar: l.key.envVar,
    listed: models !== null,
    models: models ? [...models].slice(0, MAX_MODELS_KEPT).map(shown) : [],
    modelCount: count,
  });
  if (l.state === 'unset') {
    return mk({ ...common, status: 'unknown', reason: 'key_unset', detail: `${l.key.envVar} is not set`, provenance: inferred('key_unset', subject), latencyMs: null, data: data(null) });
  }
  const provenance = measured({ how: 'http', method: 'GET', url: `${base}/v1/models`, key: l.key.name });
  if (l.state === 'failed') {
    const o = l.outcome;
    const rejected = o.httpStatus === 401 || o.httpStatus === 403;
    const reason: Reason = rejected ? 'key_rejected' : transportReason(o);
    const detail = rejected
      ? `key rejected (HTTP ${o.httpStatus}${o.error ? `: ${o.error}` : ''})`
      : o.httpStatus === null && o.code !== 'redirect' && o.code !== 'too_large'
        ? `gateway unreachable at ${base}: ${outcomeText(o, timeoutMs)}`
        : outcomeText(o, timeoutMs);
    return mk({ ...common, status: 'down', reason, detail, provenance, latencyMs: o.httpStatus === null && o.code === 'timeout' ? null : o.latencyMs, data: data(null) });
  }
  const n = l.modelCount ?? l.models.size;
  return mk({
    ...common,
    status: n > 0 ? 'up' : 'degraded',
    reason: n > 0 ? undefined : 'no_models',
    detail: n > 0 ? `${fmtInt(n)} model${n === 1 ? '' : 's'} listed` : 'key accepted but lists no models',
    provenance,
    latencyMs: l.outcome.latencyMs,
    data: data(l.models, n),
  });
}

/** A model id as a peer sent it is no text to show: one clean line, cut. Membership is decided on the raw id. */
function shown(id: string): string {
  return cut(clean(id), 200) || '(an id with nothing printable)';
}

export function aliasFinding(mk: Make, base: string, a: AliasRef, outcomes: KeyOutcome[], seats: SeatCheck[], timeoutMs: number): Finding {
  const measuredKeys = outcomes.filter((o) => o.kind !== 'unset');
  // A key the alias is not meant for says nothing about it: absence there is expected.
  const judged = measuredKeys.filter((o) => o.kind !== 'not-intended');
  const works = judged.filter((o) => o.kind === 'ok' || o.kind === 'listed-only');
  const status: FindingStatus = judged.length === 0 ? 'unknown' : works.length === judged.length ? 'up' : works.length === 0 ? 'down' : 'degraded';
  const names = (kind: KeyOutcome['kind']): string[] => outcomes.filter((o) => o.kind === kind).map((o) => o.key.name);
  const parts: string[] = [];
  const backend = a.alias.backend ? `${a.paid ? 'paid ' : ''}backend ${a.alias.backend.name}` : '';
  const ok = names('ok');
  const listedOnly = names('listed-only');
  const notRegistered = names('not-registered');
  const notIntended = names('not-intended');
  if (ok.length > 0) parts.push(`${a.alias.kind} ok for ${ok.join(', ')}${a.paid ? ` (${backend}, called with --paid)` : ''}`);
  if (listedOnly.length > 0) parts.push(`listed for ${listedOnly.join(', ')}; not called (${backend}; --paid to exercise)`);
  if (notRegistered.length > 0) {
    const registered = outcomes.filter((o) => o.kind === 'ok' || o.kind === 'failed' || o.kind === 'listed-only').map((o) => o.key.name);
    parts.push(registered.length > 0 ? `registered for ${registered.join(', ')}, not for ${notRegistered.join(', ')}` : `not registered for ${notRegistered.join(', ')}: the gateway does not list it`);
  }
  if (notIntended.length > 0 && status === 'up') parts.push(`not meant for ${notIntended.join(', ')}`);
  const failures = outcomes.flatMap((o) => (o.kind === 'failed' ? [o] : []));
  for (const [why, fs] of groupBy(failures, (o) => throughGateway(o.outcome, timeoutMs))) parts.push(withKeys(why, fs.map((o) => o.key.name), outcomes.length));
  const listingFailures = outcomes.flatMap((o) => (o.kind === 'listing-failed' ? [o] : []));
  for (const [why, fs] of groupBy(listingFailures, (o) => listingShort(o.outcome, timeoutMs))) parts.push(withKeys(why, fs.map((o) => o.key.name), outcomes.length));
  for (const o of outcomes) if (o.kind === 'unset') parts.push(`${o.key.name} not measured (${o.key.envVar} is not set)`);

  const attributed = attribute({
    requestFailures: failures.map((o) => o.outcome).filter(pathFailed),
    listingUnreachable: listingFailures.some((o) => pathFailed(o.outcome) && o.outcome.httpStatus === null),
    seats,
    timeoutMs,
    gatewayAnswered: outcomes.some((o) => o.kind === 'ok' || o.kind === 'listed-only' || o.kind === 'not-registered' || o.kind === 'not-intended'),
  });
  const reason = status === 'up' ? undefined : aliasReason(status, attributed.reason, failures, listingFailures, notRegistered.length > 0);

  const via: Measurement[] = [];
  const chat = a.alias.kind === 'chat';
  for (const o of outcomes) {
    if (o.kind === 'ok' || o.kind === 'failed') via.push({ how: 'http', method: 'POST', url: `${base}/v1/${chat ? 'chat/completions' : 'embeddings'}`, key: o.key.name, body: chat ? 'max_tokens=1' : 'input="ping"' });
  }
  if (via.length === 0) for (const o of measuredKeys) via.push({ how: 'http', method: 'GET', url: `${base}/v1/models`, key: o.key.name });
  for (const s of seats) via.push({ how: 'http', method: 'GET', url: `${s.seat.url}/health` });
  const subject: Subject = { kind: 'alias', name: a.name, inInventory: true };
  const latencies = outcomes.flatMap((o) => (o.kind === 'ok' || o.kind === 'failed' ? [o.outcome.latencyMs] : []));
  const backendError = failures.find((o) => o.outcome.error)?.outcome.error;
  return mk({
    probe: 'alias',
    target: a.name,
    subject,
    status,
    reason,
    detail: (parts.join('; ') || 'no key measured') + attributed.words,
    provenance: via.length > 0 ? measured(...via) : inferred('key_unset', subject),
    latencyMs: latencies.length > 0 ? Math.max(...latencies) : null,
    data: {
      kind: 'alias',
      aliasKind: a.alias.kind,
      paid: a.paid,
      routedTo: routedTo(a),
      routedSeats: a.seats.map((s) => s.name),
      keys: outcomes.map((o) => keyResult(o, a, timeoutMs)),
      exercised: ok.length + failures.length > 0,
      attribution: attributed.attribution,
      ...(backendError ? { backendError } : {}),
    },
  });
}

function aliasReason(status: FindingStatus, attributed: Reason | null, failures: { outcome: HttpOutcome }[], listing: { outcome: HttpOutcome }[], notRegistered: boolean): Reason {
  if (status === 'unknown') return 'key_unset';
  if (attributed) return attributed;
  if (failures[0]) return transportReason(failures[0].outcome);
  const l = listing[0]?.outcome;
  if (l) return l.httpStatus === 401 || l.httpStatus === 403 ? 'key_rejected' : 'gateway_unreachable';
  return notRegistered ? 'not_registered' : 'http_status';
}

/** "HTTP 500 through the gateway: …", "no answer through the gateway within 3000 ms". */
function throughGateway(o: HttpOutcome, timeoutMs: number): string {
  if (o.code === 'http_status' && o.httpStatus !== null) return `HTTP ${o.httpStatus} through the gateway${o.error ? `: ${o.error}` : ''}`;
  if (o.code === 'timeout') return `no answer through the gateway within ${timeoutMs} ms`;
  if (o.code === 'stopped') return 'stopped through the gateway';
  return `${outcomeText(o, timeoutMs)} through the gateway`;
}

function listingShort(o: HttpOutcome, timeoutMs: number): string {
  if (o.httpStatus === 401 || o.httpStatus === 403) return `key rejected (HTTP ${o.httpStatus})`;
  if (o.httpStatus !== null) return `gateway listing failed (${outcomeText(o, timeoutMs)})`;
  if (o.code === 'timeout') return `gateway listing gave no answer within ${timeoutMs} ms`;
  return `gateway unreachable (${o.error ?? o.code})`;
}

function keyResult(o: KeyOutcome, a: AliasRef, timeoutMs: number): KeyResult {
  const intended = a.forKeys === null || a.forKeys.includes(o.key.name);
  const base = { key: o.key.name, intended, outcome: o.kind };
  switch (o.kind) {
    case 'unset':
      return { ...base, registered: null, note: `${o.key.envVar} is not set` };
    case 'listing-failed':
      return { ...base, registered: null, note: `listing failed: ${listingShort(o.outcome, timeoutMs)}` };
    case 'not-registered':
      return { ...base, registered: false, note: 'not registered for this key' };
    case 'not-intended':
      return { ...base, registered: false, note: 'not meant for this key' };
    case 'listed-only':
      return { ...base, registered: true, note: 'paid: listed, not called without --paid' };
    case 'ok':
      return { ...base, registered: true, request: o.outcome };
    case 'failed':
      return { ...base, registered: true, request: o.outcome, note: outcomeText(o.outcome, timeoutMs) };
  }
}

export function seatFinding(mk: Make, c: SeatCheck, timeoutMs: number): Finding {
  const s = c.seat;
  const h = c.health;
  let status: FindingStatus;
  let reason: Reason | undefined;
  let detail: string;
  if (h.httpStatus === null) {
    status = 'down';
    reason = transportReason(h);
    detail = h.code === 'timeout' ? `no answer from ${s.url}/health within ${timeoutMs} ms` : `unreachable at ${s.url}: ${outcomeText(h, timeoutMs)}`;
  } else if (!h.ok) {
    status = 'down';
    reason = h.code === 'redirect' ? 'redirect' : 'health_failed';
    detail = `/health ${outcomeText(h, timeoutMs).replace(/^HTTP /, '')}${h.httpStatus === 503 ? ' → the engine is dead or still starting' : ''}`;
  } else if (!c.models) {
    status = 'degraded';
    reason = 'models_failed';
    detail = `/health 200 but /v1/models ${c.modelsOutcome ? outcomeText(c.modelsOutcome, timeoutMs) : 'gave no answer'}`;
  } else {
    status = 'up';
    const served = c.models.map((m) => `${m.id}${m.maxModelLen !== null ? ` (max_model_len ${m.maxModelLen}${s.seat.maxModelLen !== undefined && m.maxModelLen !== s.seat.maxModelLen ? `, inventory says ${s.seat.maxModelLen}` : ''})` : ''}`);
    detail = `/health 200; serves ${served.join(', ') || 'no model'}`;
  }
  if (c.models && !h.ok) detail += `; /v1/models still lists ${c.models.map((m) => m.id).join(', ')}`;
  const via: Measurement[] = [{ how: 'http', method: 'GET', url: `${s.url}/health` }];
  if (h.httpStatus !== null) via.push({ how: 'http', method: 'GET', url: `${s.url}/v1/models` });
  return mk({
    probe: 'seat',
    target: seatName(s),
    subject: { kind: 'seat', name: s.name, host: s.host.name },
    status,
    reason,
    detail,
    provenance: measured(...via),
    latencyMs: h.httpStatus === null && h.code === 'timeout' ? null : h.latencyMs,
    site: s.host.site,
    host: s.host.name,
    data: { kind: 'seat', url: s.url, health: h, ...(c.models ? { models: c.models.map((m) => m.id) } : {}) },
  });
}

/** Listed by the gateway, unknown to the inventory: one finding each up to a cap, then one for the rest. */
export function extrasFindings(mk: Make, base: string, listings: Listing[], known: (name: string) => boolean, keyNames: string[], cap = 20): Finding[] {
  const seen = new Map<string, string[]>();
  // A long listing keeps only its first ids (litellm.ts): the rest are counted, not named.
  let most = 0;
  let listed = 0;
  let cutShort = 0;
  for (const l of listings) {
    if (l.state !== 'ok') continue;
    listed += 1;
    let kept = 0;
    let knownHere = 0;
    for (const m of l.models) {
      if (known(m)) {
        knownHere += 1;
        continue;
      }
      kept += 1;
      const by = seen.get(m);
      if (by) by.push(l.key.name);
      else seen.set(m, [l.key.name]);
    }
    const others = (l.modelCount ?? l.models.size) - knownHere;
    most = Math.max(most, others);
    if (others > kept) cutShort += 1;
  }
  // Exact unless several listings were cut short: their unnamed ids may or may not be the same ones.
  const total = Math.max(seen.size, most);
  const atLeast = cutShort > 0 && listed > 1 ? 'at least ' : '';
  const out: Finding[] = [];
  let i = 0;
  for (const [alias, by] of seen) {
    if (i++ >= cap) break;
    out.push(extra(mk, base, alias, by, keyNames, `listed by the gateway but not in the inventory; not exercised (listed for ${by.join(', ')})`));
  }
  if (total > cap) {
    const rest = total - Math.min(cap, seen.size);
    out.push(extra(mk, base, `(${atLeast}${fmtInt(rest)} more)`, keyNames, keyNames, `${atLeast}${fmtInt(rest)} more aliases listed by the gateway but not in the inventory; not exercised`));
  }
  return out;
}

function extra(mk: Make, base: string, id: string, by: string[], keyNames: string[], detail: string): Finding {
  const alias = shown(id);
  return mk({
    probe: 'alias',
    target: alias,
    subject: { kind: 'alias', name: alias, inInventory: false },
    status: 'unknown',
    reason: 'outside_inventory',
    detail,
    provenance: measured(...by.map((k) => ({ how: 'http' as const, method: 'GET' as const, url: `${base}/v1/models`, key: k }))),
    latencyMs: null,
    data: {
      kind: 'alias',
      aliasKind: 'unknown',
      paid: false,
      routedTo: [],
      routedSeats: [],
      keys: keyNames.map((k) => ({ key: k, registered: by.includes(k), intended: false, outcome: by.includes(k) ? 'listed-only' : 'not-registered' })),
      exercised: false,
      attribution: null,
    },
  });
}

