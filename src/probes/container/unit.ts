// A systemd seat (NixOS hosts run vLLM as units, not containers): what `systemctl show -p
// Id,LoadState,ActiveState,SubState,NRestarts,ExecMainStartTimestamp UNIT...` prints, read and judged.
// systemctl prints one block of KEY=value lines per unit, in the order asked, blocks parted by an
// empty line. The answer is a peer's: lines are capped, keys must look like keys, values are cleaned
// and cut; nothing here throws.
import { clean, cut, fmtInt } from '../edge/text.ts';
import type { FindingStatus, Reason, UnitState } from '../types.ts';
import { RESTARTS_ALONE } from './judge.ts';

/** Six properties per unit; a host's dozen units are a few KiB. */
export const MAX_UNIT_BYTES = 64 * 1024;
const MAX_LINES = 4096;

export const UNIT_PROPERTIES = 'Id,LoadState,ActiveState,SubState,NRestarts,ExecMainStartTimestamp';

export interface UnitRead {
  loadState: string | null;
  activeState: string | null;
  subState: string | null;
  restarts: number | null;
  /** ExecMainStartTimestamp as systemd writes it ("Mon 2026-12-07 04:10:00 UTC"); null when empty. */
  startedAt: string | null;
}

/** One block per unit asked, in order; null when the blocks do not match the units asked. */
export function parseUnits(text: string, units: readonly string[]): UnitRead[] | null {
  const blocks: Map<string, string>[] = [];
  let current: Map<string, string> | null = null;
  for (const raw of text.slice(0, MAX_UNIT_BYTES).split('\n').slice(0, MAX_LINES)) {
    const line = raw.replace(/\r$/, '');
    if (line.trim() === '') {
      current = null;
      continue;
    }
    const m = /^([A-Za-z]{1,64})=(.*)$/.exec(line);
    if (!m) continue; // not a property line: not read
    if (current === null) {
      current = new Map();
      blocks.push(current);
    }
    if (!current.has(m[1]!)) current.set(m[1]!, cut(clean(m[2]!.slice(0, 1024)), 120).trim());
  }
  if (blocks.length !== units.length) return null;
  const out: UnitRead[] = [];
  for (const [i, b] of blocks.entries()) {
    const id = b.get('Id');
    const asked = units[i]!;
    // systemd adds `.service` to a bare name; any other Id is not the unit asked.
    if (id !== undefined && id !== asked && id !== `${asked}.service`) return null;
    const n = b.get('NRestarts');
    out.push({
      loadState: word(b.get('LoadState')),
      activeState: word(b.get('ActiveState')),
      subState: word(b.get('SubState')),
      restarts: n !== undefined && /^\d{1,9}$/.test(n) ? Number(n) : null,
      startedAt: b.get('ExecMainStartTimestamp') || null,
    });
  }
  return out;
}

function word(v: string | undefined): string | null {
  return v !== undefined && /^[a-z-]{1,32}$/.test(v) ? v : null;
}

export interface UnitJudged {
  status: FindingStatus;
  reason?: Reason;
  detail: string;
}

/** What the unit's state means for its seat; `answering` is a TCP connect to the seat's port from here. */
export function judgeUnit(u: UnitRead, unit: string, where: string, answering: boolean | null, answerError?: string): UnitJudged {
  const restarts = u.restarts === null ? 'NRestarts not reported' : `NRestarts ${fmtInt(u.restarts)}`;
  const since = u.startedAt ? `, started ${u.startedAt}` : '';
  const state = `${u.activeState ?? '?'}${u.subState ? ` (${u.subState})` : ''}`;
  const tail = `; ${restarts}${since}`;
  if (u.loadState === 'not-found') return { status: 'down', reason: 'no_unit', detail: `systemd has no unit ${unit}` };
  if (u.activeState === null) return { status: 'unknown', reason: 'unparseable', detail: `systemctl show gave no ActiveState for ${unit}` };
  if (u.activeState === 'activating' && u.subState === 'auto-restart') return { status: 'down', reason: 'restarting', detail: `systemd is restarting ${unit}: ${state}${tail}` };
  if (u.activeState === 'activating') return { status: 'degraded', reason: 'starting', detail: `${unit} is starting: ${state}${tail}` };
  if (u.activeState !== 'active' && u.activeState !== 'reloading') return { status: 'down', reason: 'not_running', detail: `${unit} is not running: ${state}${tail}` };
  if (answering === false) return { status: 'down', reason: 'not_answering', detail: `${unit} is ${state}, but ${where} does not answer from here${answerError ? ` (${answerError})` : ''}${tail}` };
  const answers = answering ? `, ${where} answers` : '';
  if (u.restarts !== null && u.restarts > RESTARTS_ALONE) {
    return { status: 'degraded', reason: 'restarting', detail: `${unit} is ${state}${answers}; ${restarts}: it keeps crashing and being restarted${since}` };
  }
  return { status: 'up', detail: `${unit} is ${state}${answers}${tail}` };
}

export function unitState(base: Pick<UnitState, 'host' | 'seat' | 'unit' | 'port'>, u: UnitRead | null, answering: boolean | null): UnitState {
  return {
    ...base,
    loadState: u?.loadState ?? null,
    activeState: u?.activeState ?? null,
    subState: u?.subState ?? null,
    restarts: u?.restarts ?? null,
    startedAt: u?.startedAt ?? null,
    answering,
  };
}
