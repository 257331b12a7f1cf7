// The probe report sized for a phone: the verdict first, then at most three lines, each a fold of
// the failures that share a host and a cause ("fv-ml1: 19 aliases, 8 seats, 4 GPUs — same cause:
// the host does not answer"); every row stays whole in the report attached in the thread. Folds
// read the findings' subjects, statuses and reasons, never their wording.
import { fmtInt } from '../probes/edge/text.ts';
import type { Finding, Subject } from '../probes/types.ts';
import { esc, fit } from './mrkdwn.ts';

/** What a phone shows at most: 8 blocks and 3,000 characters of text. */
export const PHONE_BLOCKS = 8;
export const PHONE_CHARS = 3000;
export const PHONE_LINES = 3;
/** Up to this many rows not up are listed as rows (when they fit in PHONE_CHARS); more are folded. */
export const PHONE_ROWS = 6;

const NOUN: Partial<Record<Subject['kind'], [string, string]>> = {
  alias: ['alias', 'aliases'],
  seat: ['seat', 'seats'],
  container: ['container', 'containers'],
  gpu: ['GPU', 'GPUs'],
  'gpu-host': ['GPU host', 'GPU hosts'],
  gateway: ['gateway key', 'gateway keys'],
  ups: ['UPS', 'UPSes'],
  address: ['address', 'addresses'],
};

interface Group {
  where: string;
  cause: string;
  /** The host does not answer itself: everything on it fails for that one reason. */
  hostDown: boolean;
  findings: Finding[];
}

const failed = (f: Finding): boolean => f.status === 'down' || f.status === 'degraded';

/** The host a finding is about: its own, or (an alias) the one host all its seats are on. */
function hostOf(f: Finding, seatHost: ReadonlyMap<string, string>): string | undefined {
  const s = f.subject;
  switch (s.kind) {
    case 'seat':
    case 'gpu':
    case 'gpu-host':
    case 'container':
      return s.host;
    case 'address':
      return s.role === 'host' ? s.name : undefined;
    case 'alias': {
      if (f.data.kind !== 'alias') return undefined;
      // Where it routes (`seat@host`, or `backend:<name>`), when that is one place.
      const hosts = new Set(f.data.routedSeats.map((x) => seatHost.get(x)).filter((h): h is string => h !== undefined));
      for (const r of f.data.routedTo) hosts.add(r.includes('@') ? r.slice(r.lastIndexOf('@') + 1) : r);
      return hosts.size === 1 ? [...hosts][0] : undefined;
    }
    default:
      return undefined;
  }
}

function siteOf(f: Finding): string | undefined {
  const s = f.subject;
  return s.kind === 'ups' || s.kind === 'address' ? s.site : undefined;
}

/** The failures folded: one group per host and cause, biggest first. */
export function foldFailures(findings: readonly Finding[]): Group[] {
  const seatHost = new Map<string, string>();
  for (const f of findings) if (f.subject.kind === 'seat' || f.subject.kind === 'container') seatHost.set(f.subject.kind === 'seat' ? f.subject.name : f.subject.seat, f.subject.host);
  const hostDown = new Map<string, Finding>();
  for (const f of findings) if (f.subject.kind === 'address' && f.subject.role === 'host' && failed(f)) hostDown.set(f.subject.name, f);
  const groups = new Map<string, Group>();
  for (const f of findings) {
    if (!failed(f)) continue;
    const host = hostOf(f, seatHost);
    const down = host !== undefined ? hostDown.get(host) : undefined;
    const where = host ?? siteOf(f) ?? 'gateway';
    const cause = down ? `host ${host} does not answer (${(down.reason ?? down.status).replace(/_/g, ' ')})` : (f.reason ?? f.status);
    const key = `${where}|${cause}`;
    const g = groups.get(key) ?? { where, cause, hostDown: down !== undefined, findings: [] };
    g.findings.push(f);
    groups.set(key, g);
  }
  return [...groups.values()].sort((a, b) => b.findings.length - a.findings.length);
}

function counts(g: Group): string {
  const by = new Map<string, number>();
  for (const f of g.findings) {
    if (f.subject.kind === 'address') {
      by.set(f.subject.role, (by.get(f.subject.role) ?? 0) + 1);
      continue;
    }
    by.set(f.subject.kind, (by.get(f.subject.kind) ?? 0) + 1);
  }
  return [...by].map(([k, n]) => {
    const noun = NOUN[k as Subject['kind']];
    return noun ? `${fmtInt(n)} ${n === 1 ? noun[0] : noun[1]}` : n === 1 ? (k === 'host' ? 'the host' : esc(k === 'bmc' ? 'BMC' : k)) : `${fmtInt(n)} ${esc(k)}s`;
  }).join(', ');
}

/** One line per group: where, what, and why, the same cause said once. */
export function foldLine(g: Group): string {
  const what = counts(g);
  const name = g.findings.length === 1 ? esc(g.findings[0]!.target) : '';
  if (g.hostDown) return `• *${fit(g.where, 60)}*: ${what} down — same cause: ${fit(g.cause, 120)}`;
  return `• *${fit(g.where, 60)}*: ${what}${name && g.findings.length === 1 ? ` (${fit(name, 60)})` : ''} ${g.findings.every((f) => f.status === 'degraded') ? 'degraded' : 'down'} — ${fit(g.cause.replace(/_/g, ' '), 120)}`;
}

/** At most three lines: the biggest folds; a last line says how many more are in the attached report. */
export function phoneLines(findings: readonly Finding[], extra: readonly string[] = []): string[] {
  const groups = foldFailures(findings);
  const lines = groups.slice(0, PHONE_LINES).map(foldLine);
  if (groups.length > PHONE_LINES) {
    const more = groups.slice(PHONE_LINES - 1).reduce((n, g) => n + g.findings.length, 0);
    lines[PHONE_LINES - 1] = `• and ${fmtInt(more)} more not up, in ${fmtInt(groups.length - PHONE_LINES + 1)} groups: see the attached report`;
  }
  for (const l of extra) if (lines.length < PHONE_LINES) lines.push(`• ${fit(l, 400)}`);
  return lines;
}

/** The characters a message shows: every text of its blocks. */
export function shownChars(blocks: readonly unknown[]): number {
  let n = 0;
  const walk = (v: unknown): void => {
    if (Array.isArray(v)) v.forEach(walk);
    else if (v && typeof v === 'object') {
      for (const [k, x] of Object.entries(v)) {
        if (k === 'text' && typeof x === 'string') n += x.length;
        else if (k !== 'value') walk(x);
      }
    }
  };
  walk(blocks);
  return n;
}
