// Text rendering of the core's data for a terminal. Plain lines when piped, colour on a TTY.
import { format } from 'date-fns/format';
import { DRILL_SOURCE, type ProbeReport } from '../commands/probe.ts';
import { declaredTotalText } from '../probes/gpu.ts';
import type { Finding, FindingStatus } from '../probes/types.ts';

const MARK: Record<FindingStatus, string> = { up: 'ok  ', down: 'DOWN', degraded: 'WARN', unknown: '??  ' };
const COLOUR: Record<FindingStatus, string> = { up: '32', down: '31', degraded: '33', unknown: '35' };

export interface RenderOptions {
  colour: boolean;
  /** The findings by section; off when they were already streamed as plain lines. */
  sections?: boolean;
}

export function statusMark(status: FindingStatus, o: RenderOptions): string {
  return o.colour ? `\x1b[${COLOUR[status]}m${MARK[status]}\x1b[0m` : MARK[status];
}

export function findingLine(f: Finding, o: RenderOptions): string {
  const latency = f.latencyMs === null ? '' : ` (${Math.round(f.latencyMs)} ms)`;
  return `${statusMark(f.status, o)} ${f.probe.padEnd(8)} ${f.target.padEnd(24)} ${f.detail}${latency}`;
}

const SECTIONS: { title: string; probes: Finding['probe'][] }[] = [
  { title: 'Gateway and aliases', probes: ['gateway', 'alias'] },
  { title: 'Backend seats (direct)', probes: ['seat'] },
  { title: 'GPU memory', probes: ['gpu'] },
  { title: 'Power and out-of-band', probes: ['ups', 'bmc', 'firewall', 'host'] },
];

export function renderReport(report: ProbeReport, o: RenderOptions): string {
  const out: string[] = [];
  const v = report.verdict;
  const head = v.status === 'ok' ? 'OK' : v.status === 'down' ? 'DOWN' : 'DEGRADED';
  if (report.drill) out.push(`${o.colour ? '\x1b[1;36mDRILL\x1b[0m' : 'DRILL'} fleet "${report.fleet}": ${DRILL_SOURCE}`);
  out.push(`${o.colour ? `\x1b[1m${head}\x1b[0m` : head} ${report.site}: ${v.headline}`);
  for (const line of v.lines.slice(v.lines[0] === v.headline ? 1 : 0)) out.push(`  ${line}`);
  for (const section of o.sections === false ? [] : SECTIONS) {
    const rows = report.findings.filter((f) => section.probes.includes(f.probe));
    if (rows.length === 0) continue;
    out.push('', `${section.title}:`);
    for (const f of rows) out.push(`  ${findingLine(f, o)}`, ...gpuBars(f, o));
  }
  const c = report.summary.counts;
  const started = format(new Date(report.startedAt), "yyyy-MM-dd HH:mm:ss 'local'");
  out.push(
    '',
    `${report.findings.length} findings: ${c.up} up, ${c.down} down, ${c.degraded} degraded, ${c.unknown} unknown — ` +
      `measured in ${report.durationMs} ms from ${started} (per-probe timeout ${report.timeoutMs} ms, deadline ${report.deadlineMs} ms)`,
  );
  return out.join('\n');
}

/** One bar per GPU: memory taken, with the free-memory floor marked. */
function gpuBars(f: Finding, o: RenderOptions): string[] {
  if (f.data?.kind !== 'gpu') return [];
  const g = f.data.gpu;
  if (g.totalMiB === null || g.freeMiB === null || g.totalMiB <= 0) return [];
  const width = 40;
  const used = Math.min(width, Math.max(0, Math.round(((g.totalMiB - g.freeMiB) / g.totalMiB) * width)));
  // '|' marks the free-memory floor: the fill must stay left of it.
  const floorAt = Math.max(0, width - Math.round((g.floorMiB / g.totalMiB) * width));
  const cells: string[] = Array.from({ length: width }, (_, i) => (i < used ? '#' : '.'));
  cells[Math.min(floorAt, width - 1)] = '|';
  const under = g.marginMiB !== null && g.marginMiB < 0;
  const bar = under && o.colour ? `\x1b[31m${cells.join('')}\x1b[0m` : cells.join('');
  const declared = g.seats.length ? ` · declared ${declaredTotalText(g.seats)}` : '';
  return [`         [${bar}] used ${g.usedMiB === null ? '?' : n(g.usedMiB)}${declared} · free ${n(g.freeMiB)} MiB`];
}

function n(x: number): string {
  return Math.round(x).toLocaleString('en-US');
}

/** One rewritable status line for a TTY. */
export function progressLine(site: string, done: number, total: number, bad: number): string {
  return `probing ${site}: ${done} of ${total} done${bad > 0 ? `, ${bad} down or degraded` : ''}`;
}
