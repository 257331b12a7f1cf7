// The site's UPS through upsd (NUT's `LIST VAR`), judged against the inventory's rating.
import type { Ups } from '../../inventory/schema.ts';
import { hostPort, makeFinding, measured } from '../finding.ts';
import { fmtNum } from '../edge/text.ts';
import { listVars, type NutError } from '../nut.ts';
import type { FindingStatus, ProbeEnv, ProbeTask, Reason, UpsReading } from '../types.ts';
import { innerBudget } from '../edge/timeout.ts';

export function upsTask(env: ProbeEnv, site: string, ups: Ups, warnPct: number): ProbeTask {
  const where = hostPort(ups.host, ups.port);
  const subject = { kind: 'ups' as const, site, ups: ups.name };
  const target = `${ups.name}@${where}`;
  const provenance = measured({ how: 'nut', host: ups.host, port: ups.port, ups: ups.name, command: 'LIST VAR' });
  const finding = (j: { status: FindingStatus; reason?: Reason | undefined; detail: string }, latencyMs: number | null, reading: UpsReading) =>
    makeFinding(env.clock, { probe: 'ups', target, subject, site, provenance, latencyMs, ...j, data: { kind: 'ups', ups: reading } });
  return {
    id: `power:ups:${site}:${ups.name}`,
    group: 'power',
    probe: 'ups',
    target,
    subject,
    site,
    timeoutMs: env.timeoutMs,
    async run(signal) {
      const r = await listVars(ups.name, { host: ups.host, port: ups.port, timeoutMs: innerBudget(env.timeoutMs), signal, now: env.now });
      if (!r.ok) return [finding(upsError(r.error, ups, where), null, emptyReading(ups, warnPct))];
      const judged = judgeUps(r.vars, ups, warnPct);
      return [finding(judged, r.latencyMs, judged.reading)];
    },
    onTimeout: (ms) => [finding({ status: 'down', reason: 'timeout', detail: `upsd unreachable at ${where}: no answer within ${ms} ms` }, null, emptyReading(ups, warnPct))],
  };
}

function emptyReading(ups: Ups, warnPct: number): UpsReading {
  return { ups: ups.name, status: [], loadPct: null, loadW: null, loadWFrom: null, ratedW: ups.ratedW ?? null, ratedVA: ups.ratedVA ?? null, chargePct: null, runtimeS: null, warnPct, vars: {} };
}

function upsError(e: NutError, ups: Ups, where: string): { status: FindingStatus; reason: Reason; detail: string } {
  switch (e.code) {
    case 'nut_data_stale':
      return { status: 'down', reason: 'ups_stale', detail: `upsd has only stale data for ${ups.name}: its driver lost contact with the UPS hardware (ERR DATA-STALE)` };
    case 'nut_driver_not_connected':
      return { status: 'down', reason: 'ups_stale', detail: `upsd runs but no driver is connected for ${ups.name}: nothing is reading the UPS (ERR DRIVER-NOT-CONNECTED)` };
    case 'nut_unknown_ups':
      return { status: 'unknown', reason: 'ups_unknown', detail: `upsd at ${where} has no UPS named ${ups.name}: check ups.name in the inventory (ERR UNKNOWN-UPS)` };
    case 'nut_access_denied':
      return { status: 'unknown', reason: 'access_denied', detail: `upsd at ${where} refused to list ${ups.name} to this machine: check its upsd.conf/upsd.users (ERR ACCESS-DENIED)` };
    case 'nut_error':
      return { status: 'unknown', reason: 'bad_answer', detail: `upsd at ${where} answered ERR ${e.nutCode ?? ''}`.trimEnd() };
    case 'connect_refused':
      return { status: 'down', reason: 'refused', detail: `upsd unreachable at ${where}: connection refused (nothing listening, or upsd is not running)` };
    case 'connect_failed':
      return { status: 'down', reason: 'unreachable', detail: `upsd unreachable at ${where}: ${e.message}` };
    case 'connect_timeout':
      return { status: 'down', reason: 'timeout', detail: `upsd unreachable at ${where}: ${e.message}` };
    case 'answer_timeout':
      return { status: 'unknown', reason: 'timeout', detail: `upsd at ${where} accepted the connection but sent no answer: ${e.message}` };
    case 'closed':
      return { status: 'unknown', reason: 'reset', detail: `upsd at ${where}: ${e.message}` };
    case 'protocol':
      return { status: 'unknown', reason: 'bad_answer', detail: `upsd at ${where}: ${e.message}` };
    case 'aborted':
      return { status: 'unknown', reason: 'stopped', detail: 'UPS probe stopped before upsd answered' };
  }
}

const FLAG_MEANING: Record<string, string> = {
  LB: 'battery low, the UPS is about to cut its outputs',
  FSD: 'forced shutdown in progress',
  OFF: 'UPS output is off',
  OB: 'on battery: mains power is lost',
  OVER: 'the UPS reports an overload',
  BYPASS: 'on bypass: the load has no battery protection',
  RB: 'the battery needs replacing',
};
/** The lesson, in words that mean something to a team that never read our write-ups. */
const LESSON = ' — an overloaded UPS is the first device to give, and takes the site dark with it';
const DOWN_FLAGS = ['LB', 'FSD', 'OFF'];
const DEGRADED_FLAGS = ['OB', 'OVER', 'BYPASS', 'RB'];

/** Reads upsd's variables against the inventory's rating. Pure. Watts are compared with watts, percent with percent. */
export function judgeUps(vars: Record<string, string>, ups: Ups, warnPct: number): { status: FindingStatus; reason?: Reason; detail: string; reading: UpsReading } {
  // NUT's flags are a few capital letters (OL, OB, LB, FSD…); anything else is not one, and a handful is all there is.
  const flags = (vars['ups.status'] ?? '').trim().split(/\s+/).filter((f) => /^[A-Z]{1,12}$/.test(f)).slice(0, 16);
  const loadPct = num(vars['ups.load'], MAX_LOAD_PCT);
  // A nominal rating of 0 says nothing: the inventory's stands.
  const ratedW = positive(num(vars['ups.realpower.nominal'], MAX_WATTS)) ?? ups.ratedW ?? null;
  // A UPS that meters its output (ups.realpower) is believed over load % × rating, which is an estimate.
  const meteredW = num(vars['ups.realpower'], MAX_WATTS);
  const loadW = meteredW ?? (loadPct !== null && ratedW !== null ? Math.round((loadPct * ratedW) / 100) : null);
  const loadWFrom: UpsReading['loadWFrom'] = meteredW !== null ? 'ups.realpower' : loadW !== null ? 'load×rating' : null;
  const chargePct = num(vars['battery.charge'], 100);
  const runtimeS = num(vars['battery.runtime'], MAX_RUNTIME_S);
  const reading: UpsReading = { ups: ups.name, status: flags, loadPct, loadW, loadWFrom, ratedW, ratedVA: ups.ratedVA ?? null, chargePct, runtimeS, warnPct, vars };

  const parts = [flags.length > 0 ? flags.join(' ') : 'no ups.status'];
  const pctOf = (w: number, of: number): string => `${fmtNum((w / of) * 100, 0)} %`;
  if (meteredW !== null) parts.push(ratedW !== null ? `${fmtNum(meteredW)} W metered of the ${fmtNum(ratedW)} W rating (${pctOf(meteredW, ratedW)})` : `${fmtNum(meteredW)} W metered (no watt rating: set ratedW in the inventory)`);
  else if (loadPct !== null) parts.push(`load ${fmtNum(loadPct)} %${loadW !== null && ratedW !== null ? ` (≈${fmtNum(loadW)} W of the ${fmtNum(ratedW)} W rating, from load % × rating)` : ' (no watt rating: set ratedW in the inventory)'}`);
  if (chargePct !== null) parts.push(`battery ${fmtNum(chargePct)} %`);
  if (runtimeS !== null) parts.push(`runtime ${fmtNum(runtimeS)} s`);

  const problems: string[] = [];
  for (const f of [...DOWN_FLAGS, ...DEGRADED_FLAGS]) if (flags.includes(f)) problems.push(`${f}: ${FLAG_MEANING[f]}`);
  // Like with like: metered watts against the watt rating; else the load percentage against the threshold.
  let overloaded = false;
  if (meteredW !== null && ratedW !== null) {
    if (meteredW > ratedW) problems.push(`${fmtNum(meteredW)} W metered, above the ${fmtNum(ratedW)} W rating (${pctOf(meteredW, ratedW)})${LESSON}`);
    else if (meteredW > (warnPct * ratedW) / 100) problems.push(`${fmtNum(meteredW)} W metered, above ${fmtNum(warnPct)} % of the ${fmtNum(ratedW)} W rating (${fmtNum((warnPct * ratedW) / 100)} W)${LESSON}`);
    overloaded = meteredW > (warnPct * ratedW) / 100;
  } else if (loadPct !== null && loadPct > warnPct) {
    problems.push(`load ${fmtNum(loadPct)} %, above ${loadPct > 100 ? 'the UPS rating (100 %)' : `the ${fmtNum(warnPct)} % warning threshold`}${LESSON}`);
    overloaded = true;
  }

  let status: FindingStatus;
  if (flags.some((f) => DOWN_FLAGS.includes(f))) status = 'down';
  else if (overloaded || flags.some((f) => DEGRADED_FLAGS.includes(f))) status = 'degraded';
  else if (flags.includes('OL')) status = 'up';
  else {
    status = 'unknown';
    problems.push(flags.length === 0 ? 'upsd gave no ups.status' : 'neither OL nor OB in ups.status');
  }
  const has = (f: string): boolean => flags.includes(f);
  const reason: Reason | undefined =
    status === 'up' ? undefined
    : has('LB') ? 'low_battery'
    : has('FSD') || has('OFF') ? 'ups_flag'
    : has('OB') ? 'on_battery'
    : overloaded || has('OVER') ? 'overload'
    : status === 'unknown' ? 'no_status'
    : 'ups_flag';
  const detail = parts.join(', ') + (problems.length > 0 ? ` — ${problems.join('; ')}` : '');
  return { status, ...(reason ? { reason } : {}), detail, reading };
}

/** What a UPS may say and be believed: beyond these a reading is not one (a peer's 1e300 or -5000). */
const MAX_LOAD_PCT = 1000;
const MAX_WATTS = 10_000_000;
const MAX_RUNTIME_S = 10_000_000;

/** A plain decimal from 0 to `max` ("34", "1540", "87.5"), or null: not hex, not an exponent, not negative. */
function num(v: string | undefined, max: number): number | null {
  const t = v?.trim();
  if (t === undefined || !/^\d{1,12}(?:\.\d{1,12})?$/.test(t)) return null;
  const n = Number(t);
  return n <= max ? n : null;
}

function positive(n: number | null): number | null {
  return n !== null && n > 0 ? n : null;
}
