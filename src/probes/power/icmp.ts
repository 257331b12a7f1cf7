// One ICMP echo with the real `ping`, through the one exec helper (its own process group, reaped).
import { probeCommandOptions, runCommand, wrappedNotStarted } from '../edge/exec.ts';
import { clean, cut, firstLine } from '../edge/text.ts';
import type { ProbeEnv } from '../types.ts';

/** skipped: ICMP was not measured — `tool_missing` when ping could not be started (not on PATH, or a
 * wrapper such as `ip netns exec` could not start it), `not_measurable` when it may not run here. */
export type PingOutcome =
  | { result: 'ok'; rttMs: number | null }
  | { result: 'failed'; why: string }
  | { result: 'skipped'; why: string; reason: 'tool_missing' | 'not_measurable' };

export async function runPing(argv: string[], env: ProbeEnv, budgetMs: number, signal: AbortSignal): Promise<PingOutcome> {
  const r = await runCommand(argv, { ...probeCommandOptions(env, signal, 64 * 1024), timeoutMs: budgetMs });
  if (r.code === 'ok') {
    const m = /time[=<](\d{1,9}(?:\.\d{1,6})?) ?ms/.exec(r.stdout);
    return { result: 'ok', rttMs: m ? Number(m[1]) : null };
  }
  if (r.code === 'not_found') return { result: 'skipped', reason: 'tool_missing', why: `${argv[0] ?? 'ping'} not found on PATH` };
  // `ip netns exec NS ping` without ping exits 1, as a ping with no reply does: its own words tell them apart.
  const notStarted = wrappedNotStarted(r);
  if (notStarted) return { result: 'skipped', reason: 'tool_missing', why: `ping could not be started: ${notStarted}` };
  if (r.code === 'timeout') return { result: 'failed', why: `none within ${budgetMs} ms` };
  if (r.code === 'stopped') return { result: 'failed', why: 'stopped' };
  if (r.code === 'too_large') return { result: 'failed', why: 'ping wrote over 64 KiB: stopped, not read' };
  // Exit 1: sent, and no echo reply came (a router may have said why); 2 and others: ping could not send at all.
  const icmpError = firstLine(r.stdout.split('\n').filter((l) => /unreachable|prohibited|exceeded/i.test(l)).join('\n'));
  const said = cut(clean(firstLine(r.stderr) || icmpError), 160);
  if (/operation not permitted|permission denied/i.test(said)) return { result: 'skipped', reason: 'not_measurable', why: `ping may not run here: ${said}` };
  return { result: 'failed', why: r.exitCode === 1 ? said : said || `exit ${r.exitCode ?? r.signal ?? '?'}` };
}
