// One probe report as the postmortem shows it: what was down by host, each GPU's memory with every
// seat's declared budget beside what it measured, the UPS, and the out-of-band addresses. Figures
// come from the findings' data, never from their display text (which may change wording).
import type { Finding, GpuMemory, UpsReading } from '../probes/types.ts';
import { code, md } from './escape.ts';
import type { Snapshot } from './facts.ts';
import { num, table } from './table.ts';

const how = (f: Finding): string => (f.provenance.kind === 'measured' ? 'measured' : `inferred (${md(String(f.provenance.why))})`);
const state = (f: Finding): string => (f.status === 'up' ? 'up' : `**${md(f.status)}**${f.reason ? ` (${md(f.reason)})` : ''}`);

/** Where an alias's traffic lands: the hosts of its seats (`gen@fv-ml1`), or its outside backend. */
function hostsOf(f: Finding): string[] {
  if (f.data.kind !== 'alias') return ['?'];
  const routes = Array.isArray(f.data.routedTo) ? f.data.routedTo : [];
  const hosts = routes.map((r) => (r.includes('@') ? r.slice(r.lastIndexOf('@') + 1) : r));
  return hosts.length > 0 ? [...new Set(hosts)] : ['(no route)'];
}

export function aliasesTable(findings: Finding[]): string | null {
  const aliases = findings.filter((f) => f.subject.kind === 'alias');
  if (aliases.length === 0) return null;
  const byHost = new Map<string, { down: string[]; total: number }>();
  for (const f of aliases) {
    const name = f.subject.kind === 'alias' ? f.subject.name : f.target;
    for (const h of hostsOf(f)) {
      const row = byHost.get(h) ?? { down: [], total: 0 };
      row.total++;
      if (f.status !== 'up') row.down.push(`${name}${f.status === 'down' ? '' : ` (${f.status})`}`);
      byHost.set(h, row);
    }
  }
  const down = aliases.filter((f) => f.status !== 'up').length;
  const rows = [...byHost.entries()]
    .filter(([, r]) => r.down.length > 0)
    .sort((a, b) => b[1].down.length - a[1].down.length || (a[0] < b[0] ? -1 : 1))
    .map(([h, r]) => [md(h), `${r.down.length} of ${r.total}`, r.down.map(md).join(', ')]);
  const head = `Aliases: ${down} of ${aliases.length} not up.`;
  return rows.length === 0 ? head : `${head}\n\n${table(['Host or backend', 'Not up', 'Aliases'], rows, ['l', 'r', 'l'])}`;
}

export function gpuTable(findings: Finding[]): string | null {
  const cards = findings.filter((f): f is Finding & { data: { kind: 'gpu'; gpu: GpuMemory } } => f.data.kind === 'gpu');
  if (cards.length === 0) return null;
  const rows: string[][] = [];
  for (const f of cards) {
    const g = f.data.gpu;
    const card = `${md(g.host)} GPU${g.index >= 0 ? g.index : '?'}`;
    const common = [num(g.usedMiB), num(g.freeMiB), num(g.totalMiB), num(g.floorMiB), num(g.marginMiB), state(f), how(f)];
    const seats = Array.isArray(g.seats) ? g.seats : [];
    if (seats.length === 0) rows.push([card, '—', '—', '—', ...common]);
    for (const s of seats) {
      const declared = s.declaredMiB === null ? '? (undeclared)' : `${num(s.declaredMiB)}${s.kvCacheOnly ? ' KV + weights' : ''}`;
      const measured = s.measuredMiB === null ? `? (${md(s.unmeasuredWhy ?? 'not measured')})` : num(s.measuredMiB);
      rows.push([card, code(s.seat), declared, measured, ...common]);
    }
  }
  return table(['GPU', 'Seat', 'Declared MiB', 'Measured MiB', 'Used', 'Free', 'Total', 'Floor', 'Margin', 'Status', 'How'], rows, ['l', 'l', 'r', 'r', 'r', 'r', 'r', 'r', 'r', 'l', 'l']);
}

export function upsTable(findings: Finding[]): string | null {
  const ups = findings.filter((f): f is Finding & { data: { kind: 'ups'; ups: UpsReading } } => f.data.kind === 'ups');
  if (ups.length === 0) return null;
  const rows = ups.map((f) => {
    const u = f.data.ups;
    const watts = u.loadW === null ? '—' : `${num(u.loadW, ' W')}${u.loadWFrom === 'load×rating' ? ' (load × rating)' : u.loadWFrom ? ' (metered)' : ''}`;
    const flags = Array.isArray(u.status) && u.status.length > 0 ? u.status.map(md).join(' ') : '—';
    return [md(u.ups), state(f), flags, num(u.loadPct, ' %'), watts, num(u.ratedW, ' W'), num(u.chargePct, ' %'), num(u.runtimeS, ' s'), how(f)];
  });
  return table(['UPS', 'Status', 'Flags', 'Load', 'Drawn', 'Rating', 'Battery', 'Runtime', 'How'], rows, ['l', 'l', 'l', 'r', 'r', 'r', 'r', 'r', 'l']);
}

export function oobTable(findings: Finding[]): string | null {
  const oob = findings.filter((f) => f.subject.kind === 'address');
  if (oob.length === 0) return null;
  const rows = oob.map((f) => {
    const role = f.subject.kind === 'address' ? f.subject.role : '?';
    const name = f.subject.kind === 'address' ? f.subject.name : f.target;
    const d = f.data.kind === 'oob' ? f.data : null;
    const tcp = d && Array.isArray(d.tcp) && d.tcp.length > 0 ? d.tcp.map((t) => `${t.port} ${t.ok ? 'open' : 'closed'}`).join(', ') : '—';
    return [md(name), md(role), state(f), d ? md(d.ping) : '—', tcp, how(f)];
  });
  return table(['Address', 'Role', 'Status', 'Ping', 'TCP', 'How'], rows);
}

/** Counts by status, and how many findings were inferred rather than measured. */
export function countsLine(s: Snapshot): string {
  const n = { up: 0, down: 0, degraded: 0, unknown: 0 } as Record<string, number>;
  let inferred = 0;
  for (const f of s.findings) {
    n[f.status] = (n[f.status] ?? 0) + 1;
    if (f.provenance.kind !== 'measured') inferred++;
  }
  return `${s.findings.length} findings: ${n.up ?? 0} up, ${n.down ?? 0} down, ${n.degraded ?? 0} degraded, ${n.unknown ?? 0} not measured; ${s.findings.length - inferred} measured, ${inferred} inferred.`;
}

export function snapshotTables(s: Snapshot): string[] {
  const parts: string[] = [countsLine(s)];
  const a = aliasesTable(s.findings);
  if (a) parts.push(a);
  const g = gpuTable(s.findings);
  if (g) parts.push(`GPU memory, declared vs measured (MiB):\n\n${g}`);
  const u = upsTable(s.findings);
  if (u) parts.push(`UPS:\n\n${u}`);
  const o = oobTable(s.findings);
  if (o) parts.push(`BMC and firewall:\n\n${o}`);
  return parts;
}
